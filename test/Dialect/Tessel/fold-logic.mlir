// RUN: tessel-opt %s --canonicalize --split-input-file | FileCheck %s

// Comparisons and where on small constants fold: torch exports
// `x.expand(n, -1, -1)` with its shape computed by Where(Equal(...)).

// The shape ViT's class token is expanded with (torch 1.13's export).
// CHECK-LABEL: func.func @expand_shape
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<[1, 1, 768]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]]
func.func @expand_shape() -> tensor<3xi64> {
  %ones = tessel.constant dense<1> : tensor<3xi64>
  %minus = tessel.constant dense<-1> : tensor<i64>
  %m = tessel.mul %ones, %minus : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %wanted = tessel.constant dense<[1, -1, -1]> : tensor<3xi64>
  %keep = tessel.equal %wanted, %m : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %sizes = tessel.constant dense<[1, 1, 768]> : tensor<3xi64>
  %shape = tessel.where %keep, %sizes, %wanted : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %shape : tensor<3xi64>
}

// -----

// Signed and unsigned integers compare by their signedness, with
// broadcasting.
// CHECK-LABEL: func.func @integer_compares
// CHECK-DAG: %[[LT:.+]] = tessel.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[GE:.+]] = tessel.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[EQ:.+]] = tessel.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-NOT: tessel.less
// CHECK-NOT: tessel.greater
// CHECK: return %[[LT]], %[[GE]], %[[LT]], %[[GE]], %[[EQ]]
func.func @integer_compares() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = tessel.constant dense<[-1, 2, 5]> : tensor<3xi8>
  %b = tessel.constant dense<2> : tensor<i8>
  %ua = tessel.constant dense<[255, 2, 1]> : tensor<3xui8>
  %ub = tessel.constant dense<2> : tensor<ui8>
  // -1 < 2 signed.
  %lt = tessel.less %a, %b : (tensor<3xi8>, tensor<i8>) -> tensor<3xi1>
  %ge = tessel.greater_or_equal %a, %b : (tensor<3xi8>, tensor<i8>) -> tensor<3xi1>
  // 255 > 2 unsigned.
  %ugt = tessel.greater %ua, %ub : (tensor<3xui8>, tensor<ui8>) -> tensor<3xi1>
  %ult = tessel.less_or_equal %ua, %ub : (tensor<3xui8>, tensor<ui8>) -> tensor<3xi1>
  %eq = tessel.equal %a, %b : (tensor<3xi8>, tensor<i8>) -> tensor<3xi1>
  return %lt, %ge, %ugt, %ult, %eq : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Floats compare ordered: NaN is neither equal, less nor greater.
// CHECK-LABEL: func.func @float_compares
// CHECK-DAG: tessel.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: tessel.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-NOT: tessel.less
// CHECK-NOT: tessel.equal
func.func @float_compares() -> (tensor<3xi1>, tensor<3xi1>) {
  %a = tessel.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %b = tessel.constant dense<2.0> : tensor<f32>
  %eq = tessel.equal %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %lt = tessel.less %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  return %eq, %lt : tensor<3xi1>, tensor<3xi1>
}

// -----

// A splat condition picks a side that is not constant; a condition that is
// not constant, or a side that broadcasts, folds nothing.
// CHECK-LABEL: func.func @where_splat
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4xf32>, %[[C:.+]]: tensor<4xi1>, %[[S:.+]]: tensor<f32>)
// CHECK: %[[W1:.+]] = tessel.where %[[C]], %[[X]], %[[Y]]
// CHECK: %[[W2:.+]] = tessel.where %{{.+}}, %[[S]], %[[X]]
// CHECK: return %[[X]], %[[Y]], %[[W1]], %[[W2]]
func.func @where_splat(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xi1>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = tessel.constant dense<true> : tensor<4xi1>
  %f = tessel.constant dense<false> : tensor<i1>
  %a = tessel.where %t, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = tessel.where %f, %x, %y : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tessel.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = tessel.where %t, %s, %x : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Constant sides with a broadcast condition fold element by element.
// CHECK-LABEL: func.func @where_constants
// CHECK-NEXT: %[[C:.+]] = tessel.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @where_constants() -> tensor<2x2xf32> {
  %c = tessel.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %x = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tessel.constant dense<3.0> : tensor<f32>
  %w = tessel.where %c, %x, %y : (tensor<2x1xi1>, tensor<2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %w : tensor<2x2xf32>
}
