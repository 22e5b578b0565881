// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-convolutions{vector-width=8}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-convolutions{vector-width=16}))" \
// RUN:   | FileCheck %s --check-prefix=WIDE
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-convolutions{vector-width=16 accumulators=24}))" \
// RUN:   | FileCheck %s --check-prefix=WIDE24

// A 3x3 convolution, stride 1: 4 filters, 2 channels, 6x8 output. The tile
// is 8 columns (one vector), 4 filters x 3 rows = 12 accumulators, carried
// through the channel loop; the 9 taps are unrolled: per tap 4 weight
// broadcasts, 3 row reads, 12 FMAs.

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @conv3x3
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %[[C1]] step %[[C1]]
// CHECK:           scf.for %[[F:.*]] = %{{.*}} to %[[C4]] step %[[C4]]
// CHECK:             scf.for %[[OH:.*]] = %{{.*}} to %[[C6]] step %[[C3]]
// CHECK:               scf.for %[[OW:.*]] = %{{.*}} to %[[C8]] step %[[C8]]
// CHECK-COUNT-12:        vector.transfer_read %{{.*}} : tensor<1x4x6x8xf32>, vector<8xf32>
// CHECK:                 scf.for %[[C:.*]] = %{{.*}} to %[[C2]] step %[[C1]] iter_args
// CHECK-COUNT-4:           tensor.extract %{{.*}} : tensor<4x2x3x3xf32>
// CHECK:                   vector.transfer_read %{{.*}} : tensor<1x2x8x10xf32>, vector<8xf32>
// CHECK-COUNT-4:           vector.fma
// CHECK:                   vector.transfer_read %{{.*}} : tensor<1x2x8x10xf32>, vector<8xf32>
// CHECK-COUNT-4:           vector.fma
// CHECK:                   vector.transfer_read %{{.*}} : tensor<1x2x8x10xf32>, vector<8xf32>
// CHECK-COUNT-4:           vector.fma
// CHECK-COUNT-96:          vector.fma
// CHECK-NOT:               vector.fma
// CHECK:                   scf.yield
// CHECK-COUNT-12:        vector.transfer_write
// CHECK-NOT:     linalg.generic
func.func @conv3x3(%x: tensor<1x2x8x10xf32>, %w: tensor<4x2x3x3xf32>,
                   %init: tensor<1x4x6x8xf32>) -> tensor<1x4x6x8xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x8x10xf32>, tensor<4x2x3x3xf32>)
      outs(%init : tensor<1x4x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x6x8xf32>
  return %0 : tensor<1x4x6x8xf32>
}

// -----

// Stride 2, depthwise (4 groups of 1 channel and 1 filter): each input row
// segment is read as whole vectors (16 = 8 * 2 lanes, not 15) and its even
// lanes picked by a shuffle; the input channel is the filter's group. (The
// one tile's last taps would read past the 17-column row: it is an edge
// tile, its reads placed inside the row.)

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f + c, oh * 2 + kh, ow * 2 + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @depthwise_stride2
// CHECK:         %[[G:.*]] = arith.divui
// CHECK:         vector.transfer_read %{{.*}} : tensor<1x4x9x17xf32>, vector<16xf32>
// CHECK:         vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK:         vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.generic
func.func @depthwise_stride2(%x: tensor<1x4x9x17xf32>, %w: tensor<4x1x3x3xf32>,
                             %init: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x9x17xf32>, tensor<4x1x3x3xf32>)
      outs(%init : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// Left alone: f64, and a body that is not a multiply-accumulate.

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     vector.
func.func @left_alone(%x: tensor<1x1x3x3xf64>, %w: tensor<1x1x3x3xf64>, %init: tensor<1x1x1x1xf64>,
                      %y: tensor<1x1x3x3xf32>, %v: tensor<1x1x3x3xf32>, %i2: tensor<1x1x1x1xf32>)
    -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf32>) {
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x1x3x3xf64>, tensor<1x1x3x3xf64>) outs(%init : tensor<1x1x1x1xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<1x1x1x1xf64>
  %1 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%y, %v : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) outs(%i2 : tensor<1x1x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x1x1x1xf32>
  return %0, %1 : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf32>
}

// -----

// Constant weights and filters that fill whole vectors: the tile runs over
// filters instead. 8 filters (one vector) x 3 output positions (a row of
// the 3x3 output: all 9, across its rows, would keep 8 input values that
// several taps read live beside 9 accumulators and the weight vector, more
// than AVX2's 16 registers); the weights are packed [F/8][C][KH][KW][8] at
// compile time, so each tap loads one contiguous weight vector and
// broadcasts one input value per position. The output is read along the
// filter dimension and its row written transposed in registers.

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-DAG:   #[[$FILTERS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @over_filters
// CHECK-DAG:     %[[PACKED:.*]] = arith.constant dense<{{\[\[\[\[\[}}0.000000e+00, 4.000000e+00, 8.000000e+00, 1.200000e+01, 1.600000e+01, 2.000000e+01, 2.400000e+01, 2.800000e+01], [1.000000e+00, 5.000000e+00{{.*}}> : tensor<1x1x2x2x8xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c9 step %c3
// CHECK-COUNT-3:   vector.transfer_read %{{.*}} {in_bounds = [true], permutation_map = #[[$FILTERS]]} : tensor<1x8x3x3xf32>, vector<8xf32>
// CHECK:           scf.for
// CHECK:             vector.transfer_read %[[PACKED]]{{.*}} : tensor<1x1x2x2x8xf32>, vector<8xf32>
// CHECK-COUNT-12:    tensor.extract %{{.*}} : tensor<1x1x4x4xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<8x3xf32>, tensor<1x8x3x3xf32>
func.func @over_filters(%x: tensor<1x1x4x4xf32>, %init: tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0], [2.0, 3.0]]], [[[4.0, 5.0], [6.0, 7.0]]],
                             [[[8.0, 9.0], [10.0, 11.0]]], [[[12.0, 13.0], [14.0, 15.0]]],
                             [[[16.0, 17.0], [18.0, 19.0]]], [[[20.0, 21.0], [22.0, 23.0]]],
                             [[[24.0, 25.0], [26.0, 27.0]]], [[[28.0, 29.0], [30.0, 31.0]]]]> : tensor<8x1x2x2xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x1x4x4xf32>, tensor<8x1x2x2xf32>)
      outs(%init : tensor<1x8x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// A 1x1, stride-1 convolution whose output planes fill 4-vector tiles
// (8x8 = 64 positions = 4 x 16 lanes) is the product [F, C] x [C, H*W] on
// collapsed views: it becomes a matmul generic for
// tessel-vectorize-contractions, vectorized along the contiguous planes.
// With 8 lanes (32 | 64) the same holds.

#in1 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w1 = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out1 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @pointwise
// CHECK-DAG:     %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x4x8x8xf32> into tensor<4x64xf32>
// CHECK-DAG:     %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<24x4x1x1xf32> into tensor<24x4xf32>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[W]], %[[X]] : tensor<24x4xf32>, tensor<4x64xf32>)
// CHECK:         tensor.expand_shape %[[P]] {{\[}}[0, 1], [2, 3]] {{.*}} : tensor<24x64xf32> into tensor<1x24x8x8xf32>
// CHECK-NOT:     vector.
// WIDE-LABEL:  func.func @pointwise
// WIDE:          linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<24x4xf32>, tensor<4x64xf32>)
func.func @pointwise(%x: tensor<1x4x8x8xf32>, %w: tensor<24x4x1x1xf32>, %init: tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32> {
  %0 = linalg.generic {indexing_maps = [#in1, #w1, #out1],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x8x8xf32>, tensor<24x4x1x1xf32>)
      outs(%init : tensor<1x24x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x24x8x8xf32>
  return %0 : tensor<1x24x8x8xf32>
}

// -----

// A plane of one vector (4x4 = 16 positions) is a product too: the product's
// tile planner takes one-vector columns and as many rows as pay
// (vectorize-contractions-rows-cost.mlir). Over filters, a 28 x 28 plane's
// [256, 512] x [512, 784] ran in 2.79 ms, as a product 1.73 ms (Xeon EMR).

#in2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @pointwise_plane_of_one_vector
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x16xf32>)
// WIDE-LABEL:  func.func @pointwise_plane_of_one_vector
// WIDE:          linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x16xf32>)
// WIDE-NOT:      vector.fma
func.func @pointwise_plane_of_one_vector(%x: tensor<1x8x4x4xf32>, %w: tensor<32x8x1x1xf32>, %init: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %0 = linalg.generic {indexing_maps = [#in2, #w2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x8x4x4xf32>, tensor<32x8x1x1xf32>)
      outs(%init : tensor<1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}

// -----

// Two images: the product keeps them apart, [2, 32, 16] = w[32, 8] x
// in[2, 8, 16], each image's plane a product that reads the same weights
// (over filters, MobileNetV2's 1x1 layers at batch 8 ran 1.2-2.3x their
// batch-1 time per image; as products 0.55-1.06x, Xeon EMR).

#in2b = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w2b = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out2b = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @pointwise_two_images
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<2x8x16xf32>) outs(%{{.*}} : tensor<2x32x16xf32>)
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]]
// CHECK-SAME:      tensor<2x32x16xf32> into tensor<2x32x4x4xf32>
// WIDE-LABEL:  func.func @pointwise_two_images
// WIDE:          ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<2x8x16xf32>) outs(%{{.*}} : tensor<2x32x16xf32>)
func.func @pointwise_two_images(%x: tensor<2x8x4x4xf32>, %w: tensor<32x8x1x1xf32>, %init: tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32> {
  %0 = linalg.generic {indexing_maps = [#in2b, #w2b, #out2b],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x8x4x4xf32>, tensor<32x8x1x1xf32>)
      outs(%init : tensor<2x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x32x4x4xf32>
  return %0 : tensor<2x32x4x4xf32>
}

// -----

// A 1x1 convolution at stride 2 reads one position in four: those positions
// are copied (a generic of the output's plane, reading [n, c, 2 oh, 2 ow]),
// and the convolution runs at stride 1 on the copy, here as a product
// (its 4x4 plane is one 16-lane vector). Over filters, each filter tile
// read the strided input again: ResNet-50's 256 -> 512 shortcut (56 x 56 ->
// 28 x 28) 3.70 -> 2.16 ms (Xeon EMR, 1 thread).

#in3 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#w3 = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out3 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// (The split's maps print before its function.)
// WIDE:        #[[$SUB:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// WIDE-LABEL:  func.func @pointwise_stride2
// WIDE:          %[[E:.*]] = tensor.empty() : tensor<1x8x4x4xf32>
// WIDE:          %[[C:.*]] = linalg.generic {indexing_maps = [#[[$SUB]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x8x8x8xf32>) outs(%[[E]] : tensor<1x8x4x4xf32>)
// WIDE:          tensor.collapse_shape %[[C]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x4x4xf32> into tensor<8x16xf32>
// WIDE:          linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x16xf32>)
// WIDE-NOT:      vector.fma
func.func @pointwise_stride2(%x: tensor<1x8x8x8xf32>, %w: tensor<32x8x1x1xf32>, %init: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %0 = linalg.generic {indexing_maps = [#in3, #w3, #out3],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x8x8x8xf32>, tensor<32x8x1x1xf32>)
      outs(%init : tensor<1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}

// -----

// 72 filters (4.5 vectors of 16: a classifier's 1000 is 62.5) become two
// convolutions on slices of the output: 64 filters on whole vectors and the
// last 8 on a half vector, instead of every tile on half vectors (SqueezeNet's
// 1000-filter classifier, 13 x 13: 3.16 -> 1.70 ms, Xeon EMR). With 8 lanes
// (9 whole vectors) nothing is split.

#in4 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w4 = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out4 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @filter_remainder
// CHECK-NOT:     tensor.extract_slice %{{.*}}[0, 64, 0, 0]
// CHECK:         return
// WIDE-LABEL:  func.func @filter_remainder
// WIDE-DAG:      arith.constant dense<{{.*}}> : tensor<4x4x1x1x16xf32>
// WIDE-DAG:      arith.constant dense<{{.*}}> : tensor<1x4x1x1x8xf32>
// WIDE-DAG:      %[[HEAD:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 64, 3, 3] [1, 1, 1, 1] : tensor<1x72x3x3xf32> to tensor<1x64x3x3xf32>
// WIDE-DAG:      %[[TAIL:.*]] = tensor.extract_slice %{{.*}}[0, 64, 0, 0] [1, 8, 3, 3] [1, 1, 1, 1] : tensor<1x72x3x3xf32> to tensor<1x8x3x3xf32>
// WIDE:          tensor.insert_slice %{{.*}} into %{{.*}}[0, 64, 0, 0] [1, 8, 3, 3] [1, 1, 1, 1] : tensor<1x8x3x3xf32> into tensor<1x72x3x3xf32>
func.func @filter_remainder(%x: tensor<1x4x3x3xf32>, %init: tensor<1x72x3x3xf32>) -> tensor<1x72x3x3xf32> {
  %w = arith.constant dense<0.5> : tensor<72x4x1x1xf32>
  %0 = linalg.generic {indexing_maps = [#in4, #w4, #out4],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x3x3xf32>, tensor<72x4x1x1xf32>)
      outs(%init : tensor<1x72x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x72x3x3xf32>
  return %0 : tensor<1x72x3x3xf32>
}

// -----

// 24 filters do not fill 16-lane vectors: with AVX-512 widths the filter
// tile uses half vectors (3 x 8 filters) rather than vectors over output
// columns. The 3x3 plane (9 positions) is too small for the product form.

#in2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out2 = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @half_vectors
// WIDE-LABEL:  func.func @half_vectors
// WIDE:          arith.constant {{.*}} : tensor<1x2x1x1x24xf32>
// WIDE:          vector.transfer_read {{.*}} : tensor<1x2x1x1x24xf32>, vector<8xf32>
// WIDE-NOT:      vector<16xf32>
func.func @half_vectors(%x: tensor<1x2x3x3xf32>, %init: tensor<1x24x3x3xf32>) -> tensor<1x24x3x3xf32> {
  %w = arith.constant dense<1.0> : tensor<24x2x1x1xf32>
  %0 = linalg.generic {indexing_maps = [#in2, #w2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x3x3xf32>, tensor<24x2x1x1xf32>)
      outs(%init : tensor<1x24x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x24x3x3xf32>
  return %0 : tensor<1x24x3x3xf32>
}

// -----

// A zero-padded 3x3 convolution over filters (constant weights): the kernel
// reads the unpadded 16x32 input and the pad goes away. Tiles are 8 columns
// of one output row. In each row, the column tiles whose taps read the
// padding are emitted on their own without those taps: the tile at column
// 0 (its first column's left tap left out), the tiles at 8 and 16 in a
// loop, the tile at 24 (its last column's right tap left out). Rows 1..14
// run in a loop with all 3 tap rows unrolled: per channel 3 x 23 FMAs at
// an edge tile, 3 x 24 inside, nothing masked. Rows 0 and 15 (more than 14
// rows: not on their own) share one loop, edge row i at row i (i < 1) or
// 14 + i, over the range of tap rows that read inside, clamped to [0, 3).

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @padded_over_filters
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: tensor<1x2x16x32xf32>
// CHECK-NOT:     tensor.pad
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C15:.*]] = arith.constant 15 : index
// CHECK-DAG:     %[[C24:.*]] = arith.constant 24 : index
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:         arith.select
// CHECK:             scf.for %[[OH:.*]] = %[[C1]] to %[[C15]] step %[[C1]]
// CHECK:               scf.for {{.*}} iter_args
// CHECK:                 tensor.extract %[[X]]
// CHECK-COUNT-69:        vector.fma
// CHECK-NOT:             vector.fma
// CHECK:                 scf.yield
// CHECK:               scf.for %{{.*}} = %[[C8]] to %[[C24]] step %[[C8]]
// CHECK:                 scf.for {{.*}} iter_args
// CHECK-COUNT-72:          vector.fma
// CHECK-NOT:               vector.fma
// CHECK:                   scf.yield
// CHECK:               scf.for {{.*}} iter_args
// CHECK-COUNT-69:        vector.fma
// CHECK-NOT:             vector.fma
// CHECK:                 scf.yield
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %[[C2]] step %[[C1]]
// CHECK:               %[[TOP:.*]] = arith.cmpi ult, %[[I]], %[[C1]]
// CHECK:               %[[ROW:.*]] = arith.select %[[TOP]], %[[I]], %{{.*}} : index
// CHECK:               %[[LO:.*]] = arith.maxsi
// CHECK:               %[[HI:.*]] = arith.minsi
// CHECK:               scf.for {{.*}} iter_args
// CHECK:                 scf.for %[[KH:.*]] = %[[LO]] to %[[HI]] step %[[C1]] iter_args
// CHECK-COUNT-23:          vector.fma
// CHECK-NOT:               vector.fma
// CHECK:                   scf.yield
// CHECK:               scf.for %{{.*}} = %[[C8]] to %[[C24]] step %[[C8]]
// CHECK-NOT:     linalg.generic
func.func @padded_over_filters(%x: tensor<1x2x16x32xf32>,
                               %init: tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %w = arith.constant dense<0.5> : tensor<8x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x16x32xf32> to tensor<1x2x18x34xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x2x18x34xf32>, tensor<8x2x3x3xf32>)
      outs(%init : tensor<1x8x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16x32xf32>
  return %0 : tensor<1x8x16x32xf32>
}

// -----

// Few output rows (5): the first and last rows, whose top and bottom tap
// rows read the padding, are emitted on their own with 2 tap rows unrolled;
// rows 1..3 run in a loop with all 3 unrolled. Both column tiles (0 and 8)
// are edge tiles, each without one tap column of one position: 2 x 23 FMAs
// per channel in an edge row, 3 x 23 inside.

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @padded_few_rows
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     arith.select
// CHECK:         scf.for {{.*}} iter_args
// CHECK-COUNT-46:  vector.fma
// CHECK-NOT:       vector.fma
// CHECK:           scf.yield
// CHECK:         scf.for {{.*}} iter_args
// CHECK-COUNT-46:  vector.fma
// CHECK-NOT:       vector.fma
// CHECK:           scf.yield
// CHECK:         scf.for %{{.*}} = %c1{{.*}} to %c4{{.*}} step %c1
// CHECK:           scf.for {{.*}} iter_args
// CHECK-COUNT-69:    vector.fma
// CHECK-NOT:         vector.fma
// CHECK:             scf.yield
// CHECK:         scf.for {{.*}} iter_args
// CHECK-COUNT-46:  vector.fma
// CHECK-NOT:     linalg.generic
func.func @padded_few_rows(%x: tensor<1x2x5x16xf32>,
                           %init: tensor<1x8x5x16xf32>) -> tensor<1x8x5x16xf32> {
  %w = arith.constant dense<0.5> : tensor<8x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x5x16xf32> to tensor<1x2x7x18xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x2x7x18xf32>, tensor<8x2x3x3xf32>)
      outs(%init : tensor<1x8x5x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x5x16xf32>
  return %0 : tensor<1x8x5x16xf32>
}

// -----

// A padding by 1 (not 0) is read through its copy, like before.

// CHECK-LABEL: func.func @padded_by_one
// CHECK:         tensor.pad
// CHECK:         tensor.extract %{{.*}} : tensor<1x2x14x10xf32>
func.func @padded_by_one(%x: tensor<1x2x12x8xf32>,
                         %init: tensor<1x8x12x8xf32>) -> tensor<1x8x12x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x2x3x3xf32>
  %one = arith.constant 1.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x2x12x8xf32> to tensor<1x2x14x10xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
                                        affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x2x14x10xf32>, tensor<8x2x3x3xf32>)
      outs(%init : tensor<1x8x12x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x12x8xf32>
  return %0 : tensor<1x8x12x8xf32>
}

// -----

// A zero-padded depthwise convolution (tiles over columns) reads the
// unpadded 24x40 input: tiles are 8 columns x 12 rows. A tap row that reads
// the padding in one of the two row tiles (the first row's top tap, the
// last row's bottom tap) reads a clamped row and selects 0 in the other;
// the first and last column tiles are emitted on their own, their segments
// read inside the row and the padded lane shuffled in from a zero vector;
// the columns 8..31 run in a loop.

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f + c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @depthwise_padded
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: tensor<1x4x24x40xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         scf.for %[[OH:.*]] = %{{.*}} to %{{.*}} step %c12
// CHECK:           vector.transfer_read %[[X]]{{.*}} : tensor<1x4x24x40xf32>, vector<8xf32>
// CHECK:           vector.shuffle %{{.*}}, %{{.*}} [8, 0, 1, 2, 3, 4, 5, 6] : vector<8xf32>, vector<8xf32>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:           scf.for %{{.*}} = %c8{{.*}} to %c32{{.*}} step %c8
// CHECK-NOT:         vector.shuffle
// CHECK:             scf.yield
// CHECK:           vector.shuffle %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8] : vector<8xf32>, vector<8xf32>
// CHECK-NOT:     linalg.generic
func.func @depthwise_padded(%x: tensor<1x4x24x40xf32>, %w: tensor<4x1x3x3xf32>,
                            %init: tensor<1x4x24x40xf32>) -> tensor<1x4x24x40xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x24x40xf32> to tensor<1x4x26x42xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x4x26x42xf32>, tensor<4x1x3x3xf32>)
      outs(%init : tensor<1x4x24x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x24x40xf32>
  return %0 : tensor<1x4x24x40xf32>
}

// -----

// A zero padding of x + shift[c] (the shift a folded input normaliser
// leaves, read at (n, c, 0, 0) as tessel-convert-tessel-to-linalg writes
// it): the filter tiles read x unpadded and add the channel's shift to each
// value they read (the taps in the padding are left out, not zeroed); the
// shift's loop nest goes away with the padding.

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (n, c, 0, 0)>
#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @shifted_padded_over_filters
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: tensor<1x2x16x16xf32>
// CHECK-DAG:     %[[SHIFTS:.*]] = arith.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         scf.for %[[C:[a-z0-9]+]] = %{{.*}} to %c2 step
// CHECK:           %[[IC:.*]] = arith.addi %{{.*}}, %[[C]]
// CHECK:           %[[SHIFT:.*]] = tensor.extract %[[SHIFTS]][%[[IC]]]
// CHECK:           scf.for
// CHECK:             %[[V:.*]] = tensor.extract %[[X]]
// CHECK:             %[[S:.*]] = arith.addf %[[V]], %[[SHIFT]]
// CHECK:             vector.broadcast %[[S]]
// CHECK-NOT:     linalg.generic
func.func @shifted_padded_over_filters(%x: tensor<1x2x16x16xf32>,
                                       %init: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %shift = arith.constant dense<[[[[-1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %w = arith.constant dense<0.5> : tensor<8x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x16x16xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #channel, #id],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %shift : tensor<1x2x16x16xf32>, tensor<1x2x1x1xf32>)
      outs(%e : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x16x16xf32>
  %padded = tensor.pad %shifted low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x16x16xf32> to tensor<1x2x18x18xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x2x18x18xf32>, tensor<8x2x3x3xf32>)
      outs(%init : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// Tiles over columns do not read through a shift: the shift stays its own
// loop nest and the tiles read the padded tensor.

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (0, c, 0, 0)>
#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f + c, oh + kh, ow + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL: func.func @shifted_depthwise_kept
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         %[[P:.*]] = tensor.pad
// CHECK:         vector.transfer_read %[[P]]
func.func @shifted_depthwise_kept(%x: tensor<1x4x24x40xf32>, %w: tensor<4x1x3x3xf32>,
                                  %init: tensor<1x4x24x40xf32>) -> tensor<1x4x24x40xf32> {
  %shift = arith.constant dense<[[[[-1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x24x40xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #channel, #id],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %shift : tensor<1x4x24x40xf32>, tensor<1x4x1x1xf32>)
      outs(%e : tensor<1x4x24x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x24x40xf32>
  %padded = tensor.pad %shifted low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x24x40xf32> to tensor<1x4x26x42xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x4x26x42xf32>, tensor<4x1x3x3xf32>)
      outs(%init : tensor<1x4x24x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x24x40xf32>
  return %0 : tensor<1x4x24x40xf32>
}

// -----

// A stem (3 channels -> 32 filters, stride 2, padded) with AVX-512's 24
// accumulators: 2 vectors of filters x 8 columns and 1 vector x 16 columns
// both fill 16. Among equals the tile would take the 16 columns, each
// filter's row segment stored as one whole vector; but at stride 2 its
// unrolled taps keep 16 shared input values live beside 16 accumulators
// and a weight vector, 33 of AVX-512's 32 registers, so it takes 2 x 8
// (26 live). (AVX2's 1 x 8 at stride 2, 17 of 16, ran MobileNetV2's stem
// 1.27x slower than the 2 x 4 it now takes, on Zen 3.)

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL:  func.func @stem_whole_vector_rows
// WIDE-LABEL:   func.func @stem_whole_vector_rows
// WIDE24-LABEL: func.func @stem_whole_vector_rows
// WIDE24:         arith.constant dense<5.000000e-01> : tensor<1x3x3x3x32xf32>
// WIDE24:         scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %c32
// WIDE24:           vector.transfer_write {{.*}} : vector<32x8xf32>, tensor<1x32x8x32xf32>
// WIDE24:           scf.for %{{.*}} = %c8 to %c32 step %c8
// WIDE24:             vector.transfer_write {{.*}} : vector<32x8xf32>, tensor<1x32x8x32xf32>
func.func @stem_whole_vector_rows(%x: tensor<1x3x16x64xf32>,
                                  %init: tensor<1x32x8x32xf32>) -> tensor<1x32x8x32xf32> {
  %w = arith.constant dense<0.5> : tensor<32x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x16x64xf32> to tensor<1x3x18x66xf32>
  %0 = linalg.generic {indexing_maps = [#in, #w, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x3x18x66xf32>, tensor<32x3x3x3xf32>)
      outs(%init : tensor<1x32x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x8x32xf32>
  return %0 : tensor<1x32x8x32xf32>
}

// -----

// A window of more than 64 taps (a 12x12 patch embedding) loops over its
// tap rows; its windows share no input (stride 12), so it loops over its
// tap columns too: per channel, tap row and tap column, one input read for
// each of the tile's 4 positions (4 reads, not 576).

#inP = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 12 + kh, ow * 12 + kw)>
#wP = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#outP = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// CHECK-LABEL:  func.func @large_window
// WIDE-LABEL:   func.func @large_window
// WIDE24-LABEL: func.func @large_window
// CHECK:         %[[C12:.*]] = arith.constant 12 : index
// CHECK:         scf.for
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[C12]] step
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[C12]] step
// CHECK-COUNT-4:       tensor.extract %{{.*}} : tensor<1x1x24x24xf32>
// CHECK-NOT:           tensor.extract
// CHECK:               scf.yield
// CHECK-NEXT:        } {loop_annotation =
func.func @large_window(%x: tensor<1x1x24x24xf32>, %init: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
  %w = arith.constant dense<0.5> : tensor<8x1x12x12xf32>
  %0 = linalg.generic {indexing_maps = [#inP, #wP, #outP],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x1x24x24xf32>, tensor<8x1x12x12xf32>)
      outs(%init : tensor<1x8x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x2x2xf32>
  return %0 : tensor<1x8x2x2xf32>
}

// -----

// Two images: where a block's weights (16 filters x 3 x 3 taps per
// channel) outnumber an image's input plane (9 x 9), the kernel walks the
// images inside each block of filters, the block's weights read once for
// both (ResNet-18's 512 filters at 7 x 7, batch 8: 0.84-0.88x the time,
// Xeon EMR); over a 30 x 30 plane, the images stay outside.

#inB = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#wB = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#outB = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
// WIDE-LABEL:  func.func @images_inside_filter_blocks
// WIDE-DAG:      %[[C64:.*]] = arith.constant 64 : index
// WIDE-DAG:      %[[C2:.*]] = arith.constant 2 : index
// WIDE:          scf.for %{{.*}} = %{{.*}} to %[[C64]] step
// WIDE-NEXT:       scf.for %{{.*}} = %{{.*}} to %[[C2]] step
func.func @images_inside_filter_blocks(%x: tensor<2x16x9x9xf32>, %init: tensor<2x64x7x7xf32>) -> tensor<2x64x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<64x16x3x3xf32>
  %0 = linalg.generic {indexing_maps = [#inB, #wB, #outB],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x16x9x9xf32>, tensor<64x16x3x3xf32>)
      outs(%init : tensor<2x64x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x64x7x7xf32>
  return %0 : tensor<2x64x7x7xf32>
}

// (Its 2 blocks of 32 filters, too few to share among threads evenly, run
// in 4 groups of positions each: the inner loop runs over blocks x groups.)
// WIDE-LABEL:  func.func @images_outside_filter_blocks
// WIDE-DAG:      %[[C8:.*]] = arith.constant 8 : index
// WIDE-DAG:      %[[C2:.*]] = arith.constant 2 : index
// WIDE:          scf.for %{{.*}} = %{{.*}} to %[[C2]] step
// WIDE-NEXT:       scf.for %[[I:.*]] = %{{.*}} to %[[C8]] step
// WIDE-NEXT:         arith.divui %[[I]], %c4
func.func @images_outside_filter_blocks(%x: tensor<2x16x30x30xf32>, %init: tensor<2x64x28x28xf32>) -> tensor<2x64x28x28xf32> {
  %w = arith.constant dense<0.5> : tensor<64x16x3x3xf32>
  %0 = linalg.generic {indexing_maps = [#inB, #wB, #outB],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x16x30x30xf32>, tensor<64x16x3x3xf32>)
      outs(%init : tensor<2x64x28x28xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x64x28x28xf32>
  return %0 : tensor<2x64x28x28xf32>
}
