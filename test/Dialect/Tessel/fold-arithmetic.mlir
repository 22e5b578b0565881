// RUN: tessel-opt %s --canonicalize --split-input-file | FileCheck %s

// Integer arithmetic, negation and casts on constants fold (ranks and axis counts that
// exporters compute from Shape and Size); float arithmetic does not.

// CHECK-LABEL: func.func @rank_minus_axis
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<3> : tensor<1xi64>
// CHECK-NEXT: return %[[C]]
func.func @rank_minus_axis() -> tensor<1xi64> {
  %rank = tessel.constant dense<4> : tensor<i64>
  %axis = tessel.constant dense<[1]> : tensor<1xi64>
  %n = tessel.sub %rank, %axis : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  return %n : tensor<1xi64>
}

// -----

// A negative axis counts the reduced axes by negation.
// CHECK-LABEL: func.func @negated_axis
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<[2, -128]> : tensor<2xi8>
// CHECK-NEXT: return %[[C]]
func.func @negated_axis() -> tensor<2xi8> {
  %axis = tessel.constant dense<[-2, -128]> : tensor<2xi8>
  %n = tessel.neg %axis : tensor<2xi8>
  return %n : tensor<2xi8>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<{{\[\[}}1, 3], [0, 0]]> : tensor<2x2xi32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_chain() -> tensor<2x2xi32> {
  %a = tessel.constant dense<[[1], [-2]]> : tensor<2x1xi32>
  %b = tessel.constant dense<[1, 2]> : tensor<2xi32>
  %s = tessel.add %a, %b : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  %m = tessel.mul %s, %b : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  %two = tessel.constant dense<2> : tensor<i32>
  %d = tessel.div %m, %two : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  %lo = tessel.constant dense<-1> : tensor<i32>
  %hi = tessel.constant dense<3> : tensor<i32>
  %x = tessel.max %d, %lo : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  %y = tessel.min %x, %hi : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  return %y : tensor<2x2xi32>
}

// -----

// Unsigned order and division follow the element type.
// CHECK-LABEL: func.func @unsigned
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<[127, 200]> : tensor<2xui8>
// CHECK-NEXT: return %[[C]]
func.func @unsigned() -> tensor<2xui8> {
  %a = tessel.constant dense<[254, 200]> : tensor<2xui8>
  %b = tessel.constant dense<[2, 1]> : tensor<2xui8>
  %d = tessel.div %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %m = tessel.constant dense<100> : tensor<ui8>
  %x = tessel.max %d, %m : (tensor<2xui8>, tensor<ui8>) -> tensor<2xui8>
  return %x : tensor<2xui8>
}

// -----

// Division by zero is left to run time; floats are not folded.
// CHECK-LABEL: func.func @not_folded
// CHECK: tessel.div
// CHECK: tessel.add
func.func @not_folded() -> (tensor<2xi64>, tensor<2xf32>) {
  %a = tessel.constant dense<[4, 5]> : tensor<2xi64>
  %z = tessel.constant dense<[1, 0]> : tensor<2xi64>
  %d = tessel.div %a, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %f = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = tessel.add %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %d, %s : tensor<2xi64>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK-DAG: tessel.constant dense<[-1, 0, 2]> : tensor<3xi64>
// CHECK-DAG: tessel.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: tessel.constant dense<[255, 0, 2]> : tensor<3xi32>
func.func @casts() -> (tensor<3xi64>, tensor<3xi1>, tensor<3xi32>) {
  %a = tessel.constant dense<[-1, 0, 2]> : tensor<3xi8>
  %w = tessel.cast %a to i64 : tensor<3xi8> -> tensor<3xi64>
  %b = tessel.cast %a to i1 : tensor<3xi8> -> tensor<3xi1>
  %u = tessel.constant dense<[255, 0, 2]> : tensor<3xui8>
  %z = tessel.cast %u to i32 : tensor<3xui8> -> tensor<3xi32>
  return %w, %b, %z : tensor<3xi64>, tensor<3xi1>, tensor<3xi32>
}

// -----

// Integer to float casts fold too (a window length cast for Range), rounding
// to nearest like the lowering: 2^24 + 1 is not a float32 and rounds to even;
// unsigned and bool sources are read unsigned.
// CHECK-LABEL: func.func @casts_to_float
// CHECK-DAG: tessel.constant dense<[-3.000000e+00, 0.000000e+00, 0x4B800000]> : tensor<3xf32>
// CHECK-DAG: tessel.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf64>
// CHECK-DAG: tessel.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf16>
func.func @casts_to_float() -> (tensor<3xf32>, tensor<2xf64>, tensor<2xf16>) {
  %a = tessel.constant dense<[-3, 0, 16777217]> : tensor<3xi64>
  %f = tessel.cast %a to f32 : tensor<3xi64> -> tensor<3xf32>
  %u = tessel.constant dense<[255, 1]> : tensor<2xui8>
  %d = tessel.cast %u to f64 : tensor<2xui8> -> tensor<2xf64>
  %b = tessel.constant dense<[true, false]> : tensor<2xi1>
  %h = tessel.cast %b to f16 : tensor<2xi1> -> tensor<2xf16>
  return %f, %d, %h : tensor<3xf32>, tensor<2xf64>, tensor<2xf16>
}

// -----

// Float sources are left to the compiled code.
// CHECK-LABEL: func.func @float_cast_kept
// CHECK: tessel.cast
func.func @float_cast_kept() -> tensor<2xi32> {
  %a = tessel.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %i = tessel.cast %a to i32 : tensor<2xf32> -> tensor<2xi32>
  return %i : tensor<2xi32>
}
