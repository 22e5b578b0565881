// RUN: tessel-opt %s --canonicalize --split-input-file | FileCheck %s

// Exact algebraic identities fold away: x * 1, 1 * x, x / 1, x - (+0),
// x + (-0), (-0) + x, on floats and integers.
// CHECK-LABEL: func.func @identities
// CHECK-NOT:     tessel.mul
// CHECK-NOT:     tessel.div
// CHECK-NOT:     tessel.sub
// CHECK-NOT:     tessel.add
// CHECK:         return %arg0, %arg1
func.func @identities(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %one = tessel.constant dense<1.0> : tensor<f32>
  %pzero = tessel.constant dense<0.0> : tensor<3xf32>
  %nzero = tessel.constant dense<-0.0> : tensor<1x3xf32>
  %a = tessel.mul %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %b = tessel.mul %one, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = tessel.div %b, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %d = tessel.sub %c, %pzero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = tessel.add %d, %nzero : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %f = tessel.add %nzero, %e : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %izero = tessel.constant dense<0> : tensor<i32>
  %ione = tessel.constant dense<1> : tensor<4xi32>
  %g = tessel.add %i, %izero : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %h = tessel.mul %ione, %g : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %f, %h : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// Not identities: x + (+0) turns -0 into +0; 1 - x and 1 / x are not x; a
// broadcast that changes x's shape must stay.
// CHECK-LABEL: func.func @not_identities
// CHECK:         tessel.add
// CHECK:         tessel.sub
// CHECK:         tessel.div
// CHECK:         tessel.mul
func.func @not_identities(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %pzero = tessel.constant dense<0.0> : tensor<3xf32>
  %one = tessel.constant dense<1.0> : tensor<3xf32>
  %ones = tessel.constant dense<1.0> : tensor<2x3xf32>
  %a = tessel.add %x, %pzero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = tessel.sub %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = tessel.div %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %d = tessel.mul %x, %ones : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}

// -----

// transpose(transpose(x)) is one transpose, or none when they cancel.
// CHECK-LABEL: func.func @transposes
// CHECK:         %[[T:.*]] = tessel.transpose %arg0 {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT:     tessel.transpose
// CHECK:         return %arg0, %[[T]]
func.func @transposes(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>) {
  %nhwc = tessel.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %back = tessel.transpose %nhwc {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %a = tessel.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x2x4xf32>
  %b = tessel.transpose %a {perm = array<i64: 0, 3, 2, 1>} : (tensor<1x3x2x4xf32>) -> tensor<1x4x2x3xf32>
  %id = tessel.transpose %back {perm = array<i64: 0, 1, 2, 3>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %id, %b : tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>
}

// -----

// A transpose that moves only unit dimensions keeps the elements in order:
// it is a reshape. One that swaps two non-unit dimensions stays.
// CHECK-LABEL: func.func @unit_dim_transposes
// CHECK:         %[[R:.*]] = tessel.reshape %arg0 {shape = array<i64: 128, 1, 64>} : (tensor<1x128x64xf32>) -> tensor<128x1x64xf32>
// CHECK:         %[[S:.*]] = tessel.reshape %arg1 {shape = array<i64: 4, 1, 1, 8>} : (tensor<1x4x8x1xf32>) -> tensor<4x1x1x8xf32>
// CHECK:         %[[T:.*]] = tessel.transpose %arg0 {perm = array<i64: 0, 2, 1>}
// CHECK:         return %[[R]], %[[S]], %[[T]]
func.func @unit_dim_transposes(%x: tensor<1x128x64xf32>, %y: tensor<1x4x8x1xf32>)
    -> (tensor<128x1x64xf32>, tensor<4x1x1x8xf32>, tensor<1x64x128xf32>) {
  %a = tessel.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<1x128x64xf32>) -> tensor<128x1x64xf32>
  %b = tessel.transpose %y {perm = array<i64: 1, 3, 0, 2>} : (tensor<1x4x8x1xf32>) -> tensor<4x1x1x8xf32>
  %c = tessel.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<1x128x64xf32>) -> tensor<1x64x128xf32>
  return %a, %b, %c : tensor<128x1x64xf32>, tensor<4x1x1x8xf32>, tensor<1x64x128xf32>
}

// -----

// A transpose of a constant is a constant: element [i, j, k] of the result
// is element [k, i, j] of the input (perm [1, 2, 0]); a splat stays one.
// CHECK-LABEL: func.func @transposed_constants
// CHECK-DAG:     %[[T:.*]] = tessel.constant dense<{{\[\[\[}}1, 4], [2, 5], [3, 6]]]> : tensor<1x3x2xi32>
// CHECK-DAG:     %[[S:.*]] = tessel.constant dense<7.000000e+00> : tensor<3x2xf32>
// CHECK-NOT:     tessel.transpose
// CHECK:         return %[[T]], %[[S]]
func.func @transposed_constants() -> (tensor<1x3x2xi32>, tensor<3x2xf32>) {
  %c = tessel.constant dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi32>
  %t = tessel.transpose %c {perm = array<i64: 1, 2, 0>} : (tensor<2x1x3xi32>) -> tensor<1x3x2xi32>
  %s = tessel.constant dense<7.0> : tensor<2x3xf32>
  %u = tessel.transpose %s {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t, %u : tensor<1x3x2xi32>, tensor<3x2xf32>
}
