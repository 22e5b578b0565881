// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// batch_norm is one parallel generic reading the four per-channel operands
// at dimension 1.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %[[B:.+]]: f32, %[[M:.+]]: f32, %[[V:.+]]: f32, %{{.+}}: f32)
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[V]], %[[EPS]]
// CHECK: %[[INV:.+]] = math.rsqrt %[[VE]]
// CHECK: %[[D:.+]] = arith.subf %[[X]], %[[M]]
// CHECK: %[[N:.+]] = arith.mulf %[[D]], %[[INV]]
// CHECK: %[[Y:.+]] = arith.mulf %[[N]], %[[S]]
// CHECK: arith.addf %[[Y]], %[[B]]
func.func @batch_norm(%x: tensor<1x3x4xf32>, %c: tensor<3xf32>) -> tensor<1x3x4xf32> {
  %0 = tessel.batch_norm %x, %c, %c, %c, %c : (tensor<1x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// layer_norm: sum, mean, sum of squared deviations from the mean, inverse
// standard deviation, then one generic applying them with the scale; Mean
// and InvStdDev are the two statistics expanded to keep the axis.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[S:.+]]: tensor<3xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2xf32>)
// CHECK: math.rsqrt
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$ID]]], {{.*}} ins(%[[X]], %[[MEAN]], %[[INV]], %[[S]] :
// CHECK: %[[M:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: %[[I:.+]] = tensor.expand_shape %[[INV]] {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: return %[[Y]], %[[M]], %[[I]]
func.func @layer_norm(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %0:3 = tessel.layer_norm %x, %s {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// instance_norm normalises over the dimensions from 2 and reads scale and
// bias at dimension 1.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$NC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @instance_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$NC]], #[[$NC]], #[[$CH]], #[[$CH]], #[[$ID]]]
func.func @instance_norm(%x: tensor<1x3x4xf32>, %c: tensor<3xf32>) -> tensor<1x3x4xf32> {
  %0 = tessel.instance_norm %x, %c, %c : (tensor<1x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}
