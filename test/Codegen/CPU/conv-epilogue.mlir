// RUN: tessel-opt %s --split-input-file --tessel-form-fused-regions --tessel-convert-tessel-to-linalg --tessel-fuse-elementwise --tessel-vectorize-convolutions="vector-width=8" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-form-fused-regions --tessel-convert-tessel-to-linalg --tessel-fuse-elementwise --tessel-vectorize-convolutions="vector-width=8 fuse-epilogue=false" | FileCheck %s --check-prefix=APART
// RUN: tessel-opt %s --split-input-file --tessel-form-fused-regions --tessel-convert-tessel-to-linalg --tessel-fuse-elementwise --tessel-vectorize-convolutions="vector-width=8" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS

// conv (bias) -> relu (weights computed at run time: tiles over columns,
// 4 wide here): the accumulators start from the bias (no
// broadcast generic is left), and the relu runs on them before the store:
// no structured op is left at all, and the function lists one kernel with
// the locations of the conv and the relu.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-KERNELS: Function=conv_bias_relu | kind=convolution
// CHECK-KERNELS-NOT: Function=conv_bias_relu |
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
// CHECK-KERNELS: Function=conv_residual | kind=convolution
// CHECK-KERNELS: Function=conv_residual | kind=convolution
// CHECK-KERNELS-NOT: Function=conv_residual |
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

// Depthwise, stride 2, bias and relu, 12 output columns with 8 lanes: no
// whole or half vector divides the row, so the tiles are 8 wide, the
// second one overlapping the first from column 4 (the accumulators start
// from the bias: a column computed twice is written twice alike). Each tap
// reads 16 input columns and keeps the even ones. Without the bias in the
// kernel (APART) the output is accumulated into, and the row is one tile
// of 12.
// CHECK-LABEL: func.func @depthwise_overlap
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         vector.transfer_read %{{.*}} : tensor<1x4x9x25xf32>, vector<16xf32>
// CHECK:         vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK:         vector.transfer_write %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[C4]]] {{.*}} : vector<8xf32>, tensor<1x4x4x12xf32>
// CHECK-NOT:     vector<12xf32>
// APART-LABEL: func.func @depthwise_overlap
// APART:         vector.fma {{.*}} : vector<12xf32>
func.func @depthwise_overlap(%x: tensor<1x4x9x25xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x12xf32> {
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
      : (tensor<1x4x9x25xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x12xf32>
  %r = tessel.relu %y : tensor<1x4x4x12xf32>
  return %r : tensor<1x4x4x12xf32>
}

// -----

// Constant weights, 8 filters (one vector), padded: the tiles are 8
// columns of a row. The 8 accumulators (vectors along the filters) go
// through the relu, are transposed in registers (3 rounds of 4 pairs of
// shuffles) and stored as one vector of 8 columns per filter, not lane by
// lane along the filters: the tile's 8 rows are one write of [filters x
// columns] into the output's (f, ow) plane at the tile's row.
// CHECK-DAG:   #[[$ROWS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @row_stores
// CHECK:         scf.for
// CHECK-COUNT-8:   arith.maximumf {{.*}} : vector<8xf32>
// CHECK-COUNT-24:  vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK-NOT:       vector.shuffle
// CHECK-COUNT-8:   vector.insert {{.*}} : vector<8xf32> into vector<8x8xf32>
// CHECK:           vector.transfer_write {{.*}} {in_bounds = [true, true], permutation_map = #[[$ROWS]]} : vector<8x8xf32>, tensor<1x8x6x8xf32>
// CHECK-NOT:       vector<8xf32>, tensor<1x8x6x8xf32>
func.func @row_stores(%x: tensor<1x2x6x8xf32>) -> tensor<1x8x6x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x2x3x3xf32>
  %b = arith.constant dense<1.0> : tensor<8xf32>
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x6x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x8xf32>
  %r = tessel.relu %y : tensor<1x8x6x8xf32>
  return %r : tensor<1x8x6x8xf32>
}

// -----

// 16 filters (two vectors) at the 12 positions of a 3x4 output: the tiles
// are 6 consecutive positions (12 accumulators), row-major, crossing rows
// (4 columns). With the bias in the accumulators the output is only
// written, so it is carried as [1, 16, 12], where a tile's positions are
// contiguous: per filter vector, a transpose (6 rows padded to 8); the
// tile's 16 rows of 6 positions are one write at oh * 4 + ow; the result is
// expanded back.
// CHECK-LABEL: func.func @plane_stores
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x16x3x4xf32> into tensor<1x16x12xf32>
// CHECK:         scf.for
// CHECK-COUNT-48:  vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK-COUNT-16:  vector.insert {{.*}} : vector<6xf32> into vector<16x6xf32>
// CHECK:           vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<16x6xf32>, tensor<1x16x12xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] {{.*}} : tensor<1x16x12xf32> into tensor<1x16x3x4xf32>
// CHECK-NOT:     permutation_map
func.func @plane_stores(%x: tensor<1x3x3x4xf32>) -> tensor<1x16x3x4xf32> {
  %w = arith.constant dense<0.5> : tensor<16x3x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<16xf32>
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x3x3x4xf32>, tensor<16x3x1x1xf32>, tensor<16xf32>) -> tensor<1x16x3x4xf32>
  %r = tessel.relu %y : tensor<1x16x3x4xf32>
  return %r : tensor<1x16x3x4xf32>
}

// -----

// Stride 2 over unpadded rows of 15 columns for 8 outputs: no 16-column
// read fits in the row, so each tap reads the 15 columns it needs (a
// 16-column read would start at column -1).
// CHECK-LABEL: func.func @strided_tight_row
// CHECK:         vector.transfer_read %{{.*}} : tensor<1x4x5x15xf32>, vector<15xf32>
// CHECK:         vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK-NOT:     vector<16xf32>
func.func @strided_tight_row(%x: tensor<1x4x5x15xf32>, %w: tensor<4x1x1x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x3x8xf32> {
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
      : (tensor<1x4x5x15xf32>, tensor<4x1x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x8xf32>
  %r = tessel.relu %y : tensor<1x4x3x8xf32>
  return %r : tensor<1x4x3x8xf32>
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

// -----

// A pointwise convolution that becomes a product keeps its neighbours on
// the product's [F, H*W] views: the bias broadcast is rebuilt there (from
// the 1-D bias, along the filters) as the product's initial output, and the
// activation runs on the [F, H*W] result, so tessel-vectorize-contractions
// fuses both into the product's tiles. One expand_shape at the end.

#in_pw = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w_pw = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out_pw = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
#bias_pw = affine_map<(n, f, h, w) -> (f)>
#id_pw = affine_map<(n, f, h, w) -> (n, f, h, w)>
// CHECK-LABEL: func.func @pointwise_bias_relu6
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<4x64xf32>) outs(%[[INIT]] : tensor<16x64xf32>)
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<16x64xf32>)
// CHECK:           arith.minimumf
// CHECK:         tensor.expand_shape %[[A]]
// CHECK-NOT:     linalg.generic
func.func @pointwise_bias_relu6(%x: tensor<1x4x8x8xf32>, %w: tensor<16x4x1x1xf32>,
                                %bias: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x16x8x8xf32>
  %init = linalg.generic {indexing_maps = [#bias_pw, #id_pw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<16xf32>) outs(%e0 : tensor<1x16x8x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x16x8x8xf32>
  %conv = linalg.generic {indexing_maps = [#in_pw, #w_pw, #out_pw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x8x8xf32>, tensor<16x4x1x1xf32>)
      outs(%init : tensor<1x16x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  %e1 = tensor.empty() : tensor<1x16x8x8xf32>
  %act = linalg.generic {indexing_maps = [#id_pw, #id_pw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x16x8x8xf32>) outs(%e1 : tensor<1x16x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %lo = arith.maximumf %v, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x16x8x8xf32>
  return %act : tensor<1x16x8x8xf32>
}
