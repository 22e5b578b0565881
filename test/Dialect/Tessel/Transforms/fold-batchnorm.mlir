// RUN: tessel-opt %s --split-input-file --tessel-fold-batchnorm --canonicalize | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-fold-batchnorm --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// k = scale / sqrt(var + eps) = [4 / 2, 3 / 3] = [2, 1];
// W' = W * k = [2, 2]; b' = (b - mean) * k + beta = [(0.5 - 0.5) * 2 + 1,
// (-1 - 1) * 1 + 0] = [1, -2].
// CHECK-LABEL: func.func @conv_with_bias
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<2.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tessel.conv %arg0, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT:     tessel.batch_norm
// CHECK:         return %[[Y]]
// LOC-LABEL: func.func @conv_with_bias
// LOC:         tessel.conv {{.*}} loc(#[[FUSED:.*]])
// LOC:       #[[FUSED]] = loc(fused[#{{.*}}, #{{.*}}])
func.func @conv_with_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tessel.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = tessel.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc("conv1")
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc("bn1")
  return %z : tensor<1x2x3x3xf32>
}

// -----

// Without a bias: b' = -mean * k + beta = [-0.5 * 2 + 1, -1 * 1 + 0].
// CHECK-LABEL: func.func @conv_without_bias
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<[0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:         tessel.conv %arg0, %{{.*}}, %[[B]]
// CHECK-NOT:     tessel.batch_norm
func.func @conv_without_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = tessel.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %z : tensor<1x2x3x3xf32>
}

// -----

// The conv's result has a second user: folding would need both convs.
// CHECK-LABEL: func.func @shared_producer
// CHECK:         tessel.conv
// CHECK:         tessel.batch_norm
func.func @shared_producer(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = tessel.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y, %z : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Statistics that are graph inputs are not constants.
// CHECK-LABEL: func.func @non_constant_batchnorm
// CHECK:         tessel.conv
// CHECK:         tessel.batch_norm
func.func @non_constant_batchnorm(%x: tensor<1x2x3x3xf32>, %m: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %w = tessel.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %z : tensor<1x2x3x3xf32>
}

// -----

// Weights computed at run time (a graph input) cannot be rewritten.
// CHECK-LABEL: func.func @non_constant_weights
// CHECK:         tessel.conv
// CHECK:         tessel.batch_norm
func.func @non_constant_weights(%x: tensor<1x2x3x3xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %z : tensor<1x2x3x3xf32>
}

// -----

// A batch norm of a graph input has no producer to fold into.
// CHECK-LABEL: func.func @no_producer
// CHECK:         tessel.batch_norm
func.func @no_producer(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %z = tessel.batch_norm %x, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %z : tensor<1x2x3x3xf32>
}

// -----

// Gemm with trans_b: B is [N, K], row n scaled by k[n] = [2, 1]; the bias
// is (beta * C - mean) * k + bn_beta = [(0.5 * 2 - 0.5) * 2 + 1,
// (0.5 * -2 - 1) * 1 + 0] = [2, -2], and beta becomes 1.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<{{\[}}[2.000000e+00, 4.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[C:.*]] = tessel.constant dense<[2.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:         tessel.gemm %arg0, %[[B]], %[[C]] {trans_b = true}
// CHECK-NOT:     tessel.batch_norm
func.func @gemm(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %b = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = tessel.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %s = tessel.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %beta = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %m = tessel.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %v = tessel.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %y = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.5 : f32, trans_b = true}
      : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z = tessel.batch_norm %y, %s, %beta, %m, %v {epsilon = 1.0 : f32}
      : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}
