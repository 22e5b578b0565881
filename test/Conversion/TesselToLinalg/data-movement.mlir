// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Reshapes that only merge or split dims become collapse/expand_shape (views
// after bufferization), any other reshape tensor.reshape; transpose becomes
// linalg.transpose, concat insert_slices, constants arith.constant.

// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x28x28xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3]] : tensor<1x1x28x28xf32> into tensor<1x784xf32>
// CHECK: return %[[R]]
func.func @reshape_collapse(%x: tensor<1x1x28x28xf32>) -> tensor<1x784xf32> {
  %0 = tessel.reshape %x {shape = array<i64: 1, 784>} : (tensor<1x1x28x28xf32>) -> tensor<1x784xf32>
  return %0 : tensor<1x784xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_expand
// CHECK-SAME: (%[[X:.+]]: tensor<6xf32>)
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
func.func @reshape_expand(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %0 = tessel.reshape %x {shape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_general
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[SHAPE:.+]] = arith.constant dense<[3, 2]> : tensor<2xi64>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
func.func @reshape_general(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tessel.reshape %x {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Shapes that differ in unit dimensions only: a collapse to the shape
// without them, then an expand (no tensor.reshape, which would stand
// between producers and consumers that drop unit loops).
// CHECK-LABEL: func.func @reshape_unit_dims
// CHECK-SAME: (%[[X:.+]]: tensor<1x128x64xf32>)
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x128x64xf32> into tensor<128x64xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [128, 1, 64] : tensor<128x64xf32> into tensor<128x1x64xf32>
func.func @reshape_unit_dims(%x: tensor<1x128x64xf32>) -> tensor<128x1x64xf32> {
  %0 = tessel.reshape %x {shape = array<i64: 128, 1, 64>} : (tensor<1x128x64xf32>) -> tensor<128x1x64xf32>
  return %0 : tensor<128x1x64xf32>
}

// -----

// A reshape to its own shape folds away.
// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.reshape %x {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_scalar
// CHECK: tensor.collapse_shape %{{.+}} [] : tensor<1x1xi64> into tensor<i64>
func.func @reshape_scalar(%x: tensor<1x1xi64>) -> tensor<i64> {
  %0 = tessel.reshape %x {shape = array<i64>} : (tensor<1x1xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4x5xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<1x4x5x3xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<1x3x4x5xf32>) outs(%[[INIT]] : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
func.func @transpose(%x: tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32> {
  %0 = tessel.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}

// -----

// Each input goes in at the running offset along the axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[C:.+]]: tensor<2x2xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x6xf32>
// CHECK: %[[S0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[S1:.+]] = tensor.insert_slice %[[B]] into %[[S0]][0, 3] [2, 1] [1, 1]
// CHECK: %[[S2:.+]] = tensor.insert_slice %[[C]] into %[[S1]][0, 4] [2, 2] [1, 1]
// CHECK: return %[[S2]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = tessel.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// More than 16 inputs become one tensor.concat: a chain of insert_slices
// that long costs bufferization's analysis time cubic in its length.
// CHECK-LABEL: func.func @concat_many
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[R:.+]] = tensor.concat dim(0) %arg0, %arg1, %arg2, {{.*}}, %arg15, %arg16 : ({{.*}}) -> tensor<17x4xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[R]]
func.func @concat_many(%a0: tensor<1x4xf32>, %a1: tensor<1x4xf32>, %a2: tensor<1x4xf32>, %a3: tensor<1x4xf32>, %a4: tensor<1x4xf32>, %a5: tensor<1x4xf32>, %a6: tensor<1x4xf32>, %a7: tensor<1x4xf32>, %a8: tensor<1x4xf32>, %a9: tensor<1x4xf32>, %a10: tensor<1x4xf32>, %a11: tensor<1x4xf32>, %a12: tensor<1x4xf32>, %a13: tensor<1x4xf32>, %a14: tensor<1x4xf32>, %a15: tensor<1x4xf32>, %a16: tensor<1x4xf32>) -> tensor<17x4xf32> {
  %0 = tessel.concat %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16 {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<17x4xf32>
  return %0 : tensor<17x4xf32>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: %[[CST:.+]] = arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK: return %[[CST]]
func.func @constant() -> tensor<2xi64> {
  %0 = tessel.constant dense<[3, 4]> : tensor<2xi64>
  return %0 : tensor<2xi64>
}
