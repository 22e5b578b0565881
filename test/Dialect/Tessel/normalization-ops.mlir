// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Every normalisation op parses, prints, and parses again to the same form.

// CHECK-LABEL: func.func @softmax_family
// CHECK-SAME: (%[[X:.+]]: tensor<2x10xf32>)
func.func @softmax_family(%x: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>) {
  // CHECK: tessel.log_softmax %[[X]] {axis = 1 : i64} : tensor<2x10xf32>
  %0 = tessel.log_softmax %x {axis = 1 : i64} : tensor<2x10xf32>
  // CHECK: tessel.hardmax %[[X]] {axis = 0 : i64} : tensor<2x10xf32>
  %1 = tessel.hardmax %x {axis = 0 : i64} : tensor<2x10xf32>
  return %0, %1 : tensor<2x10xf32>, tensor<2x10xf32>
}

// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4x4xf32>, %[[C:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<4x4xf32>)
func.func @norms(%x: tensor<1x3x4x4xf32>, %c: tensor<3xf32>, %w: tensor<4x4xf32>) {
  // CHECK: tessel.batch_norm %[[X]], %[[C]], %[[C]], %[[C]], %[[C]] {epsilon = 1.000000e-03 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %0 = tessel.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-3 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: tessel.instance_norm %[[X]], %[[C]], %[[C]] : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %1 = tessel.instance_norm %x, %c, %c : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: tessel.layer_norm %[[X]], %[[W]], %[[W]] {axis = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  %2:3 = tessel.layer_norm %x, %w, %w {axis = 2 : i64} : (tensor<1x3x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  // CHECK: tessel.layer_norm %[[X]], %[[W]] {axis = 2 : i64, epsilon = 1.000000e-03 : f32} : (tensor<1x3x4x4xf32>, tensor<4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  %3:3 = tessel.layer_norm %x, %w {axis = 2 : i64, epsilon = 1.0e-3 : f32} : (tensor<1x3x4x4xf32>, tensor<4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  return
}
