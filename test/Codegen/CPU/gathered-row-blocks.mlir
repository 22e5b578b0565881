// RUN: tessel-opt %s --tessel-vectorize-convolutions="vector-width=16" | FileCheck %s
// RUN: tessel-opt %s --tessel-vectorize-convolutions="vector-width=16 block-gathered-rows=false" | FileCheck %s --check-prefix=WHOLE

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#filter = affine_map<(d0, d1, d2, d3) -> (d3)>
#column = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>

// A 3x3 convolution of u8 x i8 values over 16 channels, 16 x 16 outputs,
// 32 filters: a product [256, 144] x [144, 32] of its gathered windows. It
// runs in blocks of 128 rows (the most, in 16s, that divide 256 and hold
// at most 256 KiB of windows; not all 256 in one), in a loop marked
// parallel: each block gathers its own 128 windows (the position of each
// row taken apart: n, oh, ow), then its initialiser (the zero-point
// correction, writing a block of its own), product and requantization
// run on the block. No window is gathered outside the loop.
// CHECK-LABEL: func.func @blocks
// CHECK-NOT:     tensor<256x144xi8>
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}) -> (tensor<256x32xi8>)
// CHECK:           tensor.empty() : tensor<128x144xi8>
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[Q:.*]] = arith.addi %[[ROW]], %[[I]] : index
// CHECK:             arith.divui %[[Q]], %{{.*}} : index
// CHECK:             vector.transfer_read {{.*}} : tensor<18x288xi8>, vector<48xi8>
// CHECK:           %[[INIT:.*]] = tensor.empty() : tensor<128x32xi32>
// CHECK:           linalg.generic {{.*}} outs(%[[INIT]] : tensor<128x32xi32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<128x144xi8>, tensor<144x32xi8>) outs(%{{.*}} : tensor<128x32xi32>)
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<128x32xi8>)
// CHECK:           tensor.insert_slice %{{.*}} into %{{.*}}[%[[ROW]], 0] [128, 32] [1, 1]
// CHECK:         } {tessel.parallel}
// WHOLE-LABEL: func.func @blocks
// WHOLE:         tensor.empty() : tensor<256x144xi8>
// WHOLE:         ins(%{{.*}}, %{{.*}} : tensor<256x144xi8>, tensor<144x32xi8>)
// WHOLE-NOT:     tessel.parallel
func.func @blocks(%x: tensor<1x18x18x16xi8>, %scale: tensor<1x1x1x32xf32>) -> tensor<1x16x16x32xi8> {
  %c0 = arith.constant 0 : i32
  %sums = arith.constant dense<7> : tensor<32xi32>
  %w = arith.constant dense<3> : tensor<32x16x3x3xi8>
  %e = tensor.empty() : tensor<1x16x16x32xi32>
  %init = linalg.generic {indexing_maps = [#filter, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sums : tensor<32xi32>) outs(%e : tensor<1x16x16x32xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%s: i32, %o: i32):
    %v = arith.subi %c0, %s : i32
    linalg.yield %v : i32
  } -> tensor<1x16x16x32xi32>
  %acc = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x18x18x16xi8>, tensor<32x16x3x3xi8>) outs(%init : tensor<1x16x16x32xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extui %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x16x16x32xi32>
  %qe = tensor.empty() : tensor<1x16x16x32xi8>
  %q = linalg.generic {indexing_maps = [#id, #column, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %scale : tensor<1x16x16x32xi32>, tensor<1x1x1x32xf32>) outs(%qe : tensor<1x16x16x32xi8>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%a: i32, %s: f32, %o: i8):
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %r = math.roundeven %m : f32
    %i = arith.fptoui %r : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x16x16x32xi8>
  return %q : tensor<1x16x16x32xi8>
}
