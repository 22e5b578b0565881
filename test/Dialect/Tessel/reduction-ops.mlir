// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Every reduction op parses, prints, and parses again to the same form;
// keepdims defaults to true and is printed only when false.

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<2x3xi32>)
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) {
  // CHECK: tessel.reduce_sum %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = tessel.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: tessel.reduce_mean %[[X]] {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = tessel.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: tessel.reduce_max %[[X]] {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = tessel.reduce_max %x {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: tessel.reduce_min %[[I]] {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %3 = tessel.reduce_min %i {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  // CHECK: tessel.reduce_prod %[[I]] {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi32>) -> tensor<3xi32>
  %4 = tessel.reduce_prod %i {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi32>) -> tensor<3xi32>
  // CHECK: tessel.reduce_l1 %[[X]] {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %5 = tessel.reduce_l1 %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: tessel.reduce_l2 %[[X]] {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %6 = tessel.reduce_l2 %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: tessel.reduce_log_sum %[[X]] {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %7 = tessel.reduce_log_sum %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: tessel.reduce_log_sum_exp %[[X]] {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %8 = tessel.reduce_log_sum_exp %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: tessel.reduce_sum_square %[[X]] {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %9 = tessel.reduce_sum_square %x {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @arg_reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @arg_reductions(%x: tensor<2x3xf32>) {
  // CHECK: tessel.arg_max %[[X]] {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %0 = tessel.arg_max %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  // CHECK: tessel.arg_min %[[X]] {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<3xi64>
  %1 = tessel.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<3xi64>
  return
}
