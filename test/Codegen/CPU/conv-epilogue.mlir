// RUN: tessel-opt %s --split-input-file --tessel-convert-tessel-to-linalg --tessel-fuse-elementwise --tessel-vectorize-convolutions="vector-width=8" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-convert-tessel-to-linalg --tessel-fuse-elementwise --tessel-vectorize-convolutions="vector-width=8 fuse-neighbours=false" | FileCheck %s --check-prefix=APART

// conv (bias) -> relu (weights computed at run time: tiles over columns,
// 4 wide here): the accumulators start from the bias (no
// broadcast generic is left), and the relu runs on them before the store:
// no structured op is left at all, and the function lists one kernel with
// the locations of the conv and the relu.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME:    tessel.kernels = [{kind = "convolution", loc = {{.*}}}]
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:           tensor.extract %arg2[
// CHECK:           vector.fma
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:           vector.transfer_write
// CHECK-NOT:     linalg.generic
// APART-LABEL: func.func @conv_bias_relu
// APART:         linalg.generic
// APART:         arith.maximumf {{.*}} : f32
func.func @conv_bias_relu(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %r = tessel.relu %y : tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A residual add whose other operand (another conv) is computed after the
// conv: the first conv's loops go where the add was and read the other
// conv's result at each position; two kernels, no structured op left.
// CHECK-LABEL: func.func @conv_residual
// CHECK-SAME:    tessel.kernels = [{kind = "convolution", {{.*}}}, {kind = "convolution", {{.*}}}]
// CHECK-NOT:     linalg.generic
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT:     linalg.generic
func.func @conv_residual(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>, %w2: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %n = tessel.conv %x, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %r = tessel.add %y, %n : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// The conv's result has a second user: the relu stays a kernel of its own.
// CHECK-LABEL: func.func @shared_result
// CHECK:         scf.for
// CHECK:         linalg.generic
// CHECK:           arith.maximumf {{.*}} : f32
func.func @shared_result(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %r = tessel.relu %y : tensor<1x8x4x4xf32>
  return %y, %r : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
