// RUN: tessel-opt %s --split-input-file --tessel-assign-layouts="vector-width=4" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-assign-layouts="vector-width=4" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// A residual block: both convolutions, the activation, the scaled residual
// add, the pooling and the global average run channels last; the only
// conversion left reads the graph input (the last transpose only moves unit
// dimensions and becomes a reshape). The per-channel scale [4, 1, 1] is
// transposed at compile time.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=1, inside=0
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @block
// CHECK-DAG:     %[[S:.*]] = tessel.constant dense<{{\[\[\[\[}}2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK:         %[[T:.*]] = tessel.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK:         %[[C1:.*]] = tessel.conv %[[T]], %{{.*}}, %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK:         %[[R:.*]] = tessel.relu %[[C1]] : tensor<1x8x8x4xf32>
// CHECK:         %[[C2:.*]] = tessel.conv %[[R]], %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x8x8x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x8x8x4xf32>
// CHECK:         %[[M:.*]] = tessel.mul %[[C2]], %[[S]] : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK:         %[[A:.*]] = tessel.add %[[M]], %[[R]] : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK:         %[[P:.*]] = tessel.max_pool %[[A]] {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         %[[G:.*]] = tessel.global_average_pool %[[P]] {layout = #tessel.layout<nhwc>} : (tensor<1x4x4x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK:         %[[F:.*]] = tessel.reshape %[[G]] {shape = array<i64: 1, 4>} : (tensor<1x1x1x4xf32>) -> tensor<1x4xf32>
// CHECK:         return %[[F]]
// CHECK-NOT:     tessel.transpose
func.func @block(%x: tensor<1x3x8x8xf32>) -> tensor<1x4xf32> {
  %w = tessel.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = tessel.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w2 = tessel.constant dense<0.25> : tensor<4x4x3x3xf32>
  %s = tessel.constant dense<[[[2.0]], [[3.0]], [[4.0]], [[5.0]]]> : tensor<4x1x1xf32>
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = tessel.relu %y : tensor<1x4x8x8xf32>
  %z = tessel.conv %r, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %m = tessel.mul %z, %s : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %a = tessel.add %m, %r : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tessel.max_pool %a {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %g = tessel.global_average_pool %p : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  %f = tessel.reshape %g {shape = array<i64: 1, 4>} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  return %f : tensor<1x4xf32>
}

// -----

// A feature map the model returns converts back at the output; a concat of
// two channels-last branches runs on the permuted axis (channels: 1 -> 3),
// and average pooling runs channels last too.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=2, inside=0
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @branches
// CHECK:         %[[T:.*]] = tessel.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-DAG:     %[[A:.*]] = tessel.conv %[[T]], {{.*}}layout = #tessel.layout<nhwc>
// CHECK-DAG:     %[[B:.*]] = tessel.avg_pool %[[T]] {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         %[[C:.*]] = tessel.concat %[[A]], %[[B]] {axis = 3 : i64} : (tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x7xf32>
// CHECK:         %[[S:.*]] = tessel.sigmoid %[[C]] : tensor<1x4x4x7xf32>
// CHECK:         %[[O:.*]] = tessel.transpose %[[S]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x7xf32>) -> tensor<1x7x4x4xf32>
// CHECK:         return %[[O]]
func.func @branches(%x: tensor<1x4x4x4xf32>) -> tensor<1x7x4x4xf32> {
  %w = tessel.constant dense<0.5> : tensor<3x4x1x1xf32>
  %a = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<3x4x1x1xf32>) -> tensor<1x3x4x4xf32>
  %b = tessel.avg_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = tessel.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x7x4x4xf32>
  %s = tessel.sigmoid %c : tensor<1x7x4x4xf32>
  return %s : tensor<1x7x4x4xf32>
}

// -----

// Negative cases. A reshape of the whole feature map needs NCHW order: the
// transpose stays in front of it (one conversion inside). An add with a
// run-time operand that is not transposed keeps its layout.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=1, inside=2
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @blocked
// CHECK:         %[[C:.*]] = tessel.conv {{.*}}layout = #tessel.layout<nhwc>
// CHECK:         %[[T:.*]] = tessel.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         tessel.add %[[T]], %arg1 : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
// CHECK:         %[[C2:.*]] = tessel.conv {{.*}}layout = #tessel.layout<nhwc>
// CHECK:         %[[T2:.*]] = tessel.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         tessel.reshape %[[T2]] {shape = array<i64: 1, 18>}
func.func @blocked(%x: tensor<1x2x3x3xf32>, %y: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x18xf32>) {
  %w = tessel.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %a = tessel.add %c, %y : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w2 = tessel.constant dense<0.25> : tensor<2x2x1x1xf32>
  %c2 = tessel.conv %x, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %f = tessel.reshape %c2 {shape = array<i64: 1, 18>} : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
  return %a, %f : tensor<1x2x3x3xf32>, tensor<1x18xf32>
}

// -----

// Ops the CPU kernels would run as scalar loops channels last keep NCHW:
// 6 filters (not a multiple of 4) with a 3x3 kernel, run-time weights (3x3
// and pointwise), an integer convolution, max pooling over 6 channels. A
// pointwise convolution (a product) of the same 6 filters runs channels
// last.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=2, inside=0
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @no_kernel
// CHECK:         tessel.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK:         tessel.conv %arg0, %arg1 {dilations = array<i64: 1, 1>, pads
// CHECK:         tessel.conv %arg2, %{{.*}} {dilations = array<i64: 1, 1>, pads
// CHECK:         tessel.conv %arg0, %arg3 {dilations = array<i64: 1, 1>, pads
// CHECK:         tessel.max_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads
// CHECK:         %[[T:.*]] = tessel.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK:         %[[P:.*]] = tessel.conv %[[T]], %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>
// CHECK:         tessel.transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>}
func.func @no_kernel(%x: tensor<1x4x4x4xf32>, %wr: tensor<4x4x3x3xf32>, %xi: tensor<1x4x4x4xi32>, %wr1: tensor<4x4x1x1xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi32>, tensor<1x6x2x2xf32>, tensor<1x4x4x4xf32>) {
  %w = tessel.constant dense<0.5> : tensor<6x4x3x3xf32>
  %wi = tessel.constant dense<2> : tensor<4x4x1x1xi32>
  %w1 = tessel.constant dense<0.5> : tensor<6x4x1x1xf32>
  %a = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  %b = tessel.conv %x, %wr {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %c = tessel.conv %xi, %wi {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xi32>, tensor<4x4x1x1xi32>) -> tensor<1x4x4x4xi32>
  %e = tessel.conv %x, %wr1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %p = tessel.max_pool %a {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x6x4x4xf32>) -> tensor<1x6x2x2xf32>
  %d = tessel.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<6x4x1x1xf32>) -> tensor<1x6x4x4xf32>
  return %d, %b, %c, %p, %e : tensor<1x6x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi32>, tensor<1x6x2x2xf32>, tensor<1x4x4x4xf32>
}

// -----

// 1-D and 3-D convolutions keep their layout.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=0, inside=0
// CHECK-LABEL: module {
// CHECK-LABEL: func.func @conv1d
// CHECK-NOT:     tessel.transpose
// CHECK-NOT:     layout
func.func @conv1d(%x: tensor<1x2x8xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x6xf32> {
  %c = tessel.conv %x, %w {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<3x2x3xf32>) -> tensor<1x3x6xf32>
  return %c : tensor<1x3x6xf32>
}
