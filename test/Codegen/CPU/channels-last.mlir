// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-form-fused-regions,tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8},tessel-vectorize-contractions{vector-width=8},tessel-vectorize-windows{vector-width=8},tessel-vectorize-generics{vector-width=8}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-form-fused-regions,tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8},tessel-vectorize-contractions{vector-width=8},tessel-vectorize-windows{vector-width=8},tessel-vectorize-generics{vector-width=8}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS

// The CPU kernels of channels-last (NHWC) convolutions and pooling, from
// the tessel ops tessel-assign-layouts leaves.

// A padded 3x3 convolution over filters: each input element is read at
// [n, h, w, c] and broadcast; the accumulators (vectors of 8 filters, the
// bias first) are stored straight into [n, oh, ow, f:f+8] (contiguous: no
// transposes), after the fused ReLU: a tile's 8 columns x 8 filters are one
// write.
// CHECK-LABEL: func.func @conv_nhwc
// CHECK:         tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x6x8x2xf32>
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:         vector.fma
// CHECK:         arith.maximumf %{{.*}} : vector<8xf32>
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<8x8xf32>, tensor<1x6x8x8xf32>
// CHECK-NOT:     linalg.generic
func.func @conv_nhwc(%x: tensor<1x6x8x2xf32>) -> tensor<1x6x8x8xf32> {
  %w = tessel.constant dense<0.5> : tensor<8x2x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<8xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x6x8x2xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x6x8x8xf32>
  %1 = tessel.relu %0 : tensor<1x6x8x8xf32>
  return %1 : tensor<1x6x8x8xf32>
}

// -----

// A padded depthwise convolution, stride 2: the tile runs over vectors of 8
// channels (filters of 8 groups), and each tap reads a vector of channels
// (not a broadcast). The first row and the first column tile, whose taps
// read the padding, are emitted on their own without those taps (nothing
// masked); the other tiles of a row run in a loop from column 6.
// CHECK-LABEL: func.func @depthwise_nhwc
// CHECK-NOT:     tensor.extract %arg0
// CHECK-NOT:     arith.select
// CHECK:         vector.transfer_read %arg0[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x24x24x16xf32>, vector<8xf32>
// CHECK:         vector.fma
// CHECK:         scf.for %{{.*}} = %c6{{.*}} to %c12{{.*}} step %c6
// CHECK:         vector.transfer_write %{{.*}} {in_bounds = [true, true]} : vector<6x16xf32>, tensor<1x12x12x16xf32>
// CHECK-NOT:     linalg.generic
func.func @depthwise_nhwc(%x: tensor<1x24x24x16xf32>) -> tensor<1x12x12x16xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x1x3x3xf32>
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 16 : i64, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x24x24x16xf32>, tensor<16x1x3x3xf32>) -> tensor<1x12x12x16xf32>
  return %0 : tensor<1x12x12x16xf32>
}

// -----

// A pointwise convolution is the product [N*H*W, C] x [C, F]: 49 rows (a
// 7x7 map) take register tiles of 7 rows x 1 vector (8 of 32 columns)
// rather than 1 row x 4 vectors (no row count up to 3 divides 49); the
// bias starts the accumulators.
// CHECK-LABEL: func.func @pointwise_nhwc
// CHECK:         tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : tensor<1x7x7x8xf32> into tensor<49x8xf32>
// CHECK:         vector.contract {{.*}} : vector<7x1xf32>, vector<1x8xf32> into vector<7x8xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 7, 7, 32] : tensor<49x32xf32> into tensor<1x7x7x32xf32>
func.func @pointwise_nhwc(%x: tensor<1x7x7x8xf32>) -> tensor<1x7x7x32xf32> {
  %w = tessel.constant dense<0.5> : tensor<32x8x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<32xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, layout = #tessel.layout<nhwc>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x7x7x8xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}

// -----

// Max pooling channels last: per output position, the taps' positions
// clamped into the unpadded input (a -inf padding), then per vector of
// channels one read per tap combined by maximumf; no padded copy.
// CHECK-LABEL: func.func @max_pool_nhwc
// CHECK-NOT:     tensor.pad
// CHECK:         scf.for
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-9: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK:         vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<8xf32>, tensor<1x4x4x16xf32>
func.func @max_pool_nhwc(%x: tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = tessel.max_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

// Global average pooling channels last sums over the outer H and W loops:
// tiles of the whole 7x7 window x one vector of channels, the division in
// the same loop nest (one kernel).
// CHECK-LABEL: func.func @global_average_pool_nhwc
// CHECK-KERNELS: Function=global_average_pool_nhwc | kind=reduction
// CHECK-NOT:     kind =
// CHECK:         vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1, 2] : vector<1x7x7x8xf32> to vector<1x8xf32>
// CHECK:         arith.divf %{{.*}} : vector<1x8xf32>
func.func @global_average_pool_nhwc(%x: tensor<1x7x7x32xf32>) -> tensor<1x1x1x32xf32> {
  %0 = tessel.global_average_pool %x {layout = #tessel.layout<nhwc>} : (tensor<1x7x7x32xf32>) -> tensor<1x1x1x32xf32>
  return %0 : tensor<1x1x1x32xf32>
}

// -----

// Channels last, tiles that fill the accumulators alike (8 of 12: 1 vector
// of filters x 8 columns, 2 x 4) keep the fewest filter vectors and
// columns: 2 x 4 (the weights packed 16 filters to a block). The outputs
// are stored along the filters either way; only NCHW prefers a whole
// vector of columns (vectorize-convolutions.mlir).
// CHECK-LABEL: func.func @conv_nhwc_tile_shape
// CHECK:         arith.constant dense<5.000000e-01> : tensor<1x2x3x3x16xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c16{{.*}} step %c16
// CHECK:           scf.for %{{.*}} = %c4{{.*}} to %c12{{.*}} step %c4
// CHECK-NOT:     linalg.generic
func.func @conv_nhwc_tile_shape(%x: tensor<1x4x16x2xf32>) -> tensor<1x4x16x16xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x2x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x16x2xf32>, tensor<16x2x3x3xf32>, tensor<16xf32>) -> tensor<1x4x16x16xf32>
  return %0 : tensor<1x4x16x16xf32>
}
