// RUN: tessel-opt %s --split-input-file --tessel-drop-zero-channels --canonicalize | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-drop-zero-channels="channel-multiple=2" --canonicalize | FileCheck %s --check-prefix=MULTIPLE
// RUN: tessel-opt %s --split-input-file --tessel-drop-zero-channels \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// Channel 1 of %p is zero (weights and bias): %p keeps channels 0 and 2,
// the relu follows, and %q reads input channels 0 and 2 only.
// REMARK:      remark: [Analysis] dropped-channels | Category:tessel | channels=1
// CHECK-LABEL: func.func @pruned
// CHECK-DAG:     %[[WP:.*]] = tessel.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}5.000000e+00]], {{\[\[}}6.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:     %[[BP:.*]] = tessel.constant dense<[1.000000e-01, 3.000000e-01]> : tensor<2xf32>
// CHECK-DAG:     %[[WQ:.*]] = tessel.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK:         %[[P:.*]] = tessel.conv %arg0, %[[WP]], %[[BP]] {{.*}} -> tensor<1x2x4x4xf32>
// CHECK:         %[[R:.*]] = tessel.relu %[[P]] : tensor<1x2x4x4xf32>
// CHECK:         tessel.conv %[[R]], %[[WQ]] {{.*}} : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
func.func @pruned(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %wp = tessel.constant dense<[[[[1.0]], [[2.0]]], [[[0.0]], [[0.0]]], [[[5.0]], [[6.0]]]]> : tensor<3x2x1x1xf32>
  %bp = tessel.constant dense<[0.1, 0.0, 0.3]> : tensor<3xf32>
  %wq = tessel.constant dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf32>
  %p = tessel.conv %x, %wp, %bp {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r = tessel.relu %p : tensor<1x3x4x4xf32>
  %q = tessel.conv %r, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %q : tensor<1x1x4x4xf32>
}

// -----

// A chain of pruned convs: channel 0 of %p and channel 1 of %q.
// REMARK:      remark: [Analysis] dropped-channels | Category:tessel | channels=2
// CHECK-LABEL: func.func @chain
// CHECK:         tessel.conv {{.*}} -> tensor<1x1x4x4xf32>
// CHECK:         tessel.clip
// CHECK:         tessel.conv {{.*}} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
// CHECK:         tessel.conv {{.*}} : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
func.func @chain(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %wp = tessel.constant dense<[[[[0.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %wq = tessel.constant dense<[[[[1.0]], [[3.0]]], [[[0.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %wr = tessel.constant dense<[[[[1.0]], [[4.0]]]]> : tensor<1x2x1x1xf32>
  %p = tessel.conv %x, %wp {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = tessel.clip %p {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x2x4x4xf32>
  %q = tessel.conv %c, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = tessel.conv %q, %wr {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}

// -----

// Not dropped: a non-zero bias (the channel is a constant, not 0), a
// residual add (the other operand's channel is not 0), a clip whose range
// excludes 0, a grouped producer.
// REMARK-NOT:  dropped-channels
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: -> tensor<1x2x4x4xf32>
func.func @kept(%x: tensor<1x2x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) {
  %w = tessel.constant dense<[[[[1.0]], [[2.0]]], [[[0.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %b = tessel.constant dense<[0.0, 0.5]> : tensor<2xf32>
  %wq = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %biased = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %q1 = tessel.conv %biased, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  %res = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %sum = tessel.add %res, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %shifted = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %clipped = tessel.clip %shifted {min = 0.5 : f64} : tensor<1x2x4x4xf32>
  %q2 = tessel.conv %clipped, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  %sum2 = tessel.add %q1, %q2 : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %wg = tessel.constant dense<[[[[0.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %grouped = tessel.conv %x, %wg {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %q3 = tessel.conv %grouped, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %sum2, %sum, %q3 : tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// With channel-multiple=2, 4 channels of which 3 are zero lose only 2, so
// that 2 stay (a multiple of 2); channel 3, the last zero one, stays.
// Without a multiple, all 3 go.
// REMARK:      remark: [Analysis] dropped-channels | Category:tessel | channels=3
// MULTIPLE-LABEL: func.func @multiple
// MULTIPLE:         tessel.conv {{.*}} -> tensor<1x2x4x4xf32>
// MULTIPLE:         tessel.conv {{.*}} : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x4x4xf32>
func.func @multiple(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %wp = tessel.constant dense<[[[[0.0]]], [[[2.0]]], [[[0.0]]], [[[0.0]]]]> : tensor<4x1x1x1xf32>
  %wq = tessel.constant dense<[[[[1.0]], [[3.0]], [[5.0]], [[7.0]]]]> : tensor<1x4x1x1xf32>
  %p = tessel.conv %x, %wp {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x4x4xf32>
  %q = tessel.conv %p, %wq {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x1x4x4xf32>
  return %q : tensor<1x1x4x4xf32>
}
