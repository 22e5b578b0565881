// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" | FileCheck %s

// A product [8, 64] x [64, 256] with a constant matrix of 64 KiB (more than
// L1 holds) runs on the matrix packed at compile time into 4 panels
// [4][64][64] of one register tile's columns (4 x 16), so that each tile
// streams its panel contiguously instead of rows 1 KiB apart. The output
// [8, 4, 64] is the result [8, 256] viewed as panels; the consumer is
// rebuilt on them, its broadcast bias viewed as [4, 64] and its residual
// as [8, 4, 64], and runs in the tiles. The panel loop is the parallel one;
// 4-row tiles inside it stream the same panel.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @rows_panels
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<4x64x64xf32>
// CHECK-DAG:     %[[BIAS:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [4, 64] : tensor<256xf32> into tensor<4x64xf32>
// CHECK-DAG:     %[[RES:.*]] = tensor.expand_shape %arg2 {{\[\[}}0], [1, 2]] output_shape [8, 4, 64] : tensor<8x256xf32> into tensor<8x4x64xf32>
// CHECK:         %[[OUT:.*]] = scf.for %[[P:.*]] = %c0 to %c4 step %c1
// CHECK:           scf.for %[[M:.*]] = %c0 to %c8 step %c4
// CHECK:             scf.for %[[K:.*]] = %c0 to %c64 step %c1
// CHECK:               vector.transfer_read %[[W]][%[[P]], %[[K]], %c0]{{.*}} : tensor<4x64x64xf32>, vector<4x1x64x1xf32>
// CHECK:             vector.transfer_read %[[BIAS]][%[[P]], %c0]{{.*}} : tensor<4x64xf32>, vector<4x1x64xf32>
// CHECK:             vector.transfer_read %[[RES]][%[[M]], %[[P]], %c0]{{.*}} : tensor<8x4x64xf32>, vector<4x1x64xf32>
// CHECK:             arith.maximumf {{.*}} : vector<4x1x64xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<4x1x64xf32>, tensor<8x4x64xf32>
// CHECK:         } {tessel.parallel}
// CHECK:         tensor.collapse_shape %[[OUT]] {{\[\[}}0], [1, 2]] : tensor<8x4x64xf32> into tensor<8x256xf32>
// CHECK-NOT:     linalg.generic
func.func @rows_panels(%x: tensor<8x64xf32>, %bias: tensor<256xf32>, %res: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %w = arith.constant dense<0.5> : tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x64xf32>, tensor<64x256xf32>) outs(%init : tensor<8x256xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x256xf32>
  %e2 = tensor.empty() : tensor<8x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias, %res : tensor<8x256xf32>, tensor<256xf32>, tensor<8x256xf32>) outs(%e2 : tensor<8x256xf32>) {
  ^bb0(%v: f32, %b: f32, %q: f32, %o: f32):
    %t = arith.addf %v, %b : f32
    %u = arith.addf %t, %q : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %u, %z : f32
    linalg.yield %y : f32
  } -> tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}

// -----

// A constant matrix of 32 KiB or less is read from L1 whatever its layout:
// a product with more than one row reads it as it is (no panels).

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @small_matrix_unpacked
// CHECK-NOT:     tensor<2x64x64xf32>
// CHECK:         arith.constant dense<5.000000e-01> : tensor<64x128xf32>
// CHECK:         vector.transfer_read {{.*}} : tensor<64x128xf32>, vector<1x64xf32>
// CHECK-NOT:     linalg.generic
func.func @small_matrix_unpacked(%x: tensor<8x64xf32>) -> tensor<8x128xf32> {
  %w = arith.constant dense<0.5> : tensor<64x128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x128xf32>) -> tensor<8x128xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x64xf32>, tensor<64x128xf32>) outs(%init : tensor<8x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}
