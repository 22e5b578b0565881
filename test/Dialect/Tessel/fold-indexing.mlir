// RUN: tessel-opt %s --canonicalize --split-input-file | FileCheck %s

// Constant shape computations fold away: gather, concat, slice, reshape and
// broadcast of constants become constants.

// CHECK-LABEL: func.func @shape_chain
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<[1, 12, 4]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_chain() -> tensor<3xi64> {
  %shape = tessel.constant dense<[1, 3, 4, 4]> : tensor<4xi64>
  %i0 = tessel.constant dense<0> : tensor<1xi64>
  %d0 = tessel.gather %shape, %i0 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %mid = tessel.constant dense<[12]> : tensor<1xi64>
  %last = tessel.slice %shape {starts = array<i64: 3>, sizes = array<i64: 1>, steps = array<i64: 1>} : (tensor<4xi64>) -> tensor<1xi64>
  %cat = tessel.concat %d0, %mid, %last {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  return %cat : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @reverse_and_reshape
// CHECK-NEXT: tessel.constant dense<{{\[\[}}4, 3], [2, 1]]> : tensor<2x2xi32>
func.func @reverse_and_reshape() -> tensor<2x2xi32> {
  %c = tessel.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %r = tessel.slice %c {starts = array<i64: 3>, sizes = array<i64: 4>, steps = array<i64: -1>} : (tensor<4xi32>) -> tensor<4xi32>
  %s = tessel.reshape %r {shape = array<i64: 2, 2>} : (tensor<4xi32>) -> tensor<2x2xi32>
  return %s : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_constant
// CHECK-NEXT: tessel.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
func.func @broadcast_constant() -> tensor<2x2xf32> {
  %c = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = tessel.broadcast_to %c {shape = array<i64: 2, 2>} : (tensor<2xf32>) -> tensor<2x2xf32>
  return %b : tensor<2x2xf32>
}

// -----

// A reshape of a reshape is one reshape; non-constant data is not folded.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT: %[[R:.+]] = tessel.reshape %arg0 {shape = array<i64: 6>}
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %a = tessel.reshape %x {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = tessel.reshape %a {shape = array<i64: 6>} : (tensor<3x2xf32>) -> tensor<6xf32>
  return %b : tensor<6xf32>
}
