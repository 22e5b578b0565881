// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Elementwise ops become one parallel linalg.generic; broadcast operands read
// through maps that drop leading dims and pin expanded size-1 dims to 0.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast_rank
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[L:.+]]: f32, %[[R:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
func.func @add_broadcast_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Both operands expand a size-1 dim: each reads index 0 there.
// CHECK-DAG: #[[$COL0:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sub_broadcast_ones
// CHECK: linalg.generic {indexing_maps = [#[[$COL0]], #[[$ROW0]], #[[$ID]]]
// CHECK: arith.subf
func.func @sub_broadcast_ones(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.sub %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer elementwise ops use the signed integer arith ops; a rank-0
// operand reads through an empty map.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @int_ops
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK: arith.divsi %{{.+}}, %{{.+}} : i32
// CHECK: linalg.generic
// CHECK: arith.muli %{{.+}}, %{{.+}} : i32
// CHECK: linalg.generic
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: arith.maxsi %{{.+}}, %[[ZERO]] : i32
func.func @int_ops(%a: tensor<4xi32>, %s: tensor<i32>) -> tensor<4xi32> {
  %0 = tessel.div %a, %s : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %1 = tessel.mul %0, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tessel.relu %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @float_unary
// CHECK: linalg.generic
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.maximumf %{{.+}}, %[[ZERO]] : f32
// CHECK: linalg.generic
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NEG:.+]] = arith.negf
// CHECK: %[[EXP:.+]] = math.exp %[[NEG]]
// CHECK: %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]]
// CHECK: arith.divf %[[ONE]], %[[DEN]]
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @float_unary(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.relu %a : tensor<4xf32>
  %1 = tessel.sigmoid %0 : tensor<4xf32>
  %2 = tessel.tanh %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Clip clamps with maximumf/minimumf by constants of the element type; a
// missing bound clamps nothing on that side.
// CHECK-LABEL: func.func @clip
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[LO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[T:.+]] = arith.maximumf %[[X]], %[[LO]] : f16
// CHECK: %[[HI:.+]] = arith.constant 6.000000e+00 : f16
// CHECK: arith.minimumf %[[T]], %[[HI]] : f16
// CHECK: ^bb0(%[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NOT: arith.maximumf
// CHECK: arith.minimumf %[[Y]], %{{.+}} : f16
func.func @clip(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tessel.clip %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf16>
  %1 = tessel.clip %0 {max = 1.0 : f64} : tensor<4xf16>
  return %1 : tensor<4xf16>
}
