// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// CHECK-DAG: #[[$IDX:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[$IDX]], {{.*}} ins(%{{.*}} : tensor<2xi64>)
// CHECK: ^bb0(%[[I:.+]]: i64, %{{.*}}: f32):
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: arith.index_cast %[[I]]
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: %[[COL:.+]] = arith.minsi
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %[[COL]]] : tensor<4x6xf32>
func.func @gather(%x: tensor<4x6xf32>, %i: tensor<2xi64>) -> tensor<4x2xf32> {
  %0 = tessel.gather %x, %i {axis = 1 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Positive steps are a view.
// CHECK-LABEL: func.func @slice_forward
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
func.func @slice_forward(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %0 = tessel.slice %x {starts = array<i64: 1, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A negative step reads start + i * step.
// CHECK-LABEL: func.func @slice_backward
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[S:.+]] = arith.muli %[[I]], %c-1
// CHECK: %[[P:.+]] = arith.addi %[[S]], %c3
// CHECK: tensor.extract %{{.*}}[%[[P]]]
func.func @slice_backward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.slice %x {starts = array<i64: 3>, sizes = array<i64: 4>, steps = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-DAG: #[[$MOD:.+]] = affine_map<(d0, d1) -> (d0 mod 2, d1 mod 3)>
// CHECK-LABEL: func.func @tile
// CHECK: linalg.generic {indexing_maps = [#[[$MOD]], {{.*}}]
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %0 = tessel.tile %x {repeats = array<i64: 2, 2>} : (tensor<2x3xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK: tensor.pad %{{.*}} low[0, 1] high[2, 0]
// CHECK: tensor.yield %[[V]]
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<4x4xf32> {
  %0 = tessel.pad %x {pads = array<i64: 0, 1, 2, 0>, value = 1.5 : f64} : (tensor<2x3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Reflect mirrors without repeating the edge: j = min(|i - pad|, 2 * last - |i - pad|).
// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = arith.subi %[[I]], %c2
// CHECK: %[[N:.+]] = arith.subi %c0, %[[J]]
// CHECK: %[[A:.+]] = arith.maxsi %[[J]], %[[N]]
// CHECK: %[[M:.+]] = arith.subi %c6, %[[A]]
// CHECK: %[[R:.+]] = arith.minsi %[[A]], %[[M]]
// CHECK: tensor.extract %{{.*}}[%[[R]]]
func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = tessel.pad %x {pads = array<i64: 2, 2>, mode = #tessel.pad_mode<reflect>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$B]], {{.*}}]
func.func @broadcast(%x: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = tessel.broadcast_to %x {shape = array<i64: 4, 3>} : (tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Trilu keeps j - i >= k (upper), k read from its scalar operand.
// CHECK-LABEL: func.func @trilu
// CHECK: linalg.generic
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[D:.+]] = arith.subi %[[J]], %[[I]]
// CHECK: %[[K:.+]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: %[[KI:.+]] = arith.index_cast %[[K]]
// CHECK: %[[KEEP:.+]] = arith.cmpi sge, %[[D]], %[[KI]]
// CHECK: arith.select %[[KEEP]]
func.func @trilu(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %0 = tessel.trilu %x, %k {upper = true} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
