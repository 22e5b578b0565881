// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Unsigned integers compute as signless ones: the bodies pick the unsigned
// arith ops from the tessel op's types, then every uiN in the function,
// its signature included, becomes iN.

// CHECK-LABEL: func.func @arith(
// CHECK-SAME: %[[A:.+]]: tensor<4xi8>, %[[B:.+]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.addi %{{.+}}, %{{.+}} : i8
// CHECK: arith.divui %{{.+}}, %{{.+}} : i8
// CHECK: arith.maxui %{{.+}}, %{{.+}} : i8
// CHECK: arith.remui %{{.+}}, %{{.+}} : i8
// CHECK-NOT: ui8
func.func @arith(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tessel.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = tessel.div %0, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = tessel.max %1, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = tessel.mod %2, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %3 : tensor<4xui8>
}

// -----

// Comparisons, casts and constants.
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %[[U:.+]]: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xf32>)
// CHECK: arith.constant dense<[1, 2, 3, -294967296]> : tensor<4xi32>
// CHECK: arith.cmpi ult, %{{.+}}, %{{.+}} : i32
// CHECK: arith.uitofp %{{.+}} : i32 to f32
func.func @mixed(%u: tensor<4xui32>) -> (tensor<4xi1>, tensor<4xf32>) {
  %c = tessel.constant dense<[1, 2, 3, 4000000000]> : tensor<4xui32>
  %0 = tessel.less %u, %c : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %1 = tessel.cast %u to f32 : tensor<4xui32> -> tensor<4xf32>
  return %0, %1 : tensor<4xi1>, tensor<4xf32>
}
