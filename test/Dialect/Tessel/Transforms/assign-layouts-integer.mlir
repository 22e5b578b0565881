// RUN: tessel-opt %s --split-input-file --tessel-assign-layouts="vector-width=16 integer-only=true" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-assign-layouts="vector-width=16 integer-only=true" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// With `integer-only` (the model's layout kept elsewhere), a module with
// convolutions of 8-bit values goes channels last (their kernel is a
// product of gathered windows), the f32 pooling and convolution between
// and after them too. Each transpose into channels last of an integer
// convolution's input is of the 8-bit values, before they widen to i32;
// the requantized output of one layer and the next layer's input meet
// there, so no transpose is left between the layers: one at the input (of
// u8), one at the output.
// REMARK: remark: [Analysis] layout-conversions | Category:tessel | edges=2, inside=0
// CHECK-LABEL: func.func @quantized_layers
// CHECK:         %[[T:.*]] = tessel.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x8x8xui8>) -> tensor<1x8x8x16xui8>
// CHECK:         %[[W1:.*]] = tessel.cast %[[T]] to i32
// CHECK:         %[[X1:.*]] = tessel.sub %[[W1]]
// CHECK:         tessel.conv %[[X1]], %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x8x8x16xi32>, tensor<16x16x3x3xi32>) -> tensor<1x8x8x16xi32>
// A one-element constant broadcasts alike in either layout: it stays a
// scalar (not a [1, 1, 1, 1] tensor the kernels would read through a
// broadcast).
// CHECK:         tessel.mul %{{.*}}, %{{.*}} : (tensor<1x8x8x16xf32>, tensor<f32>) -> tensor<1x8x8x16xf32>
// CHECK-NOT:     tessel.transpose
// CHECK:         tessel.max_pool %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NOT:     tessel.transpose
// CHECK:         tessel.conv %{{.*}}, %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x4x4x16xi32>, tensor<16x16x1x1xi32>) -> tensor<1x4x4x16xi32>
// CHECK-NOT:     tessel.transpose
// CHECK:         %[[C:.*]] = tessel.conv %{{.*}}, %{{.*}} {{{.*}}layout = #tessel.layout<nhwc>{{.*}}} : (tensor<1x4x4x16xf32>, tensor<16x16x1x1xf32>) -> tensor<1x4x4x16xf32>
// CHECK:         tessel.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
func.func @quantized_layers(%x: tensor<1x16x8x8xui8>) -> tensor<1x16x4x4xf32> {
  %w1 = tessel.constant dense<1> : tensor<16x16x3x3xi8>
  %w2 = tessel.constant dense<2> : tensor<16x16x1x1xi8>
  %w3 = tessel.constant dense<0.5> : tensor<16x16x1x1xf32>
  %zp = tessel.constant dense<128> : tensor<i32>
  %zpf = tessel.constant dense<128.0> : tensor<f32>
  %s = tessel.constant dense<0.25> : tensor<f32>
  %xi = tessel.cast %x to i32 : tensor<1x16x8x8xui8> -> tensor<1x16x8x8xi32>
  %xc = tessel.sub %xi, %zp : (tensor<1x16x8x8xi32>, tensor<i32>) -> tensor<1x16x8x8xi32>
  %w1i = tessel.cast %w1 to i32 : tensor<16x16x3x3xi8> -> tensor<16x16x3x3xi32>
  %c1 = tessel.conv %xc, %w1i {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xi32>, tensor<16x16x3x3xi32>) -> tensor<1x16x8x8xi32>
  %f1 = tessel.cast %c1 to f32 : tensor<1x16x8x8xi32> -> tensor<1x16x8x8xf32>
  %r1 = tessel.mul %f1, %s : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %q1f = tessel.round %r1 : tensor<1x16x8x8xf32>
  %q1 = tessel.cast %q1f to ui8 : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xui8>
  %d1 = tessel.cast %q1 to f32 : tensor<1x16x8x8xui8> -> tensor<1x16x8x8xf32>
  %d1s = tessel.mul %d1, %s : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %p = tessel.max_pool %d1s {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  %pr = tessel.div %p, %s : (tensor<1x16x4x4xf32>, tensor<f32>) -> tensor<1x16x4x4xf32>
  %q2 = tessel.cast %pr to ui8 : tensor<1x16x4x4xf32> -> tensor<1x16x4x4xui8>
  %x2 = tessel.cast %q2 to i32 : tensor<1x16x4x4xui8> -> tensor<1x16x4x4xi32>
  %w2i = tessel.cast %w2 to i32 : tensor<16x16x1x1xi8> -> tensor<16x16x1x1xi32>
  %c2 = tessel.conv %x2, %w2i {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x4x4xi32>, tensor<16x16x1x1xi32>) -> tensor<1x16x4x4xi32>
  %f2 = tessel.cast %c2 to f32 : tensor<1x16x4x4xi32> -> tensor<1x16x4x4xf32>
  %q3 = tessel.cast %f2 to ui8 : tensor<1x16x4x4xf32> -> tensor<1x16x4x4xui8>
  %d3 = tessel.cast %q3 to f32 : tensor<1x16x4x4xui8> -> tensor<1x16x4x4xf32>
  %c3 = tessel.conv %d3, %w3 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  return %c3 : tensor<1x16x4x4xf32>
}

// -----

// Without an integer convolution nothing moves, and no layouts are
// reported.
// REMARK-NOT: layout-conversions
// CHECK-LABEL: func.func @float_only
// CHECK-NOT:     tessel.transpose
func.func @float_only(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x16x1x1xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}
