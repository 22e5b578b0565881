// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" | FileCheck %s

// A channels-last product [7, 7, 32] x [32, 64] (ONNX MatMul on an NHWC
// tensor, as ConvNeXt's blocks multiply): its two row loops, read
// consecutively by the input and the output, run as one loop of 49 rows,
// so the register tile takes 7 of the 49 (2 vectors of columns x 7 rows,
// 14 accumulators) instead of a divisor of 7 columns. The bias broadcast
// and the relu are collapsed the same way and run in the tiles (one
// kernel, no reshape between them and the product); the result is the
// [49, 64] rows viewed as [7, 7, 64].

#a = affine_map<(h, w, n, k) -> (h, w, k)>
#b = affine_map<(h, w, n, k) -> (k, n)>
#c = affine_map<(h, w, n, k) -> (h, w, n)>
#bias = affine_map<(h, w, n) -> (n)>
#id = affine_map<(h, w, n) -> (h, w, n)>
// CHECK-LABEL: func.func @rows_collapsed
// CHECK:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<7x7x32xf32> into tensor<49x32xf32>
// CHECK:         %[[OUT:.*]] = scf.for
// CHECK:           scf.for %[[R:.*]] = %c0 to %c49 step %c7
// CHECK:             scf.for
// CHECK:               vector.transfer_read %[[X]][%[[R]], %{{.*}}]{{.*}} : tensor<49x32xf32>, vector<7x1xf32>
// CHECK:               vector.contract {{.*}} : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// CHECK:             arith.maximumf {{.*}} : vector<7x32xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<7x32xf32>, tensor<49x64xf32>
// CHECK:         tensor.expand_shape %[[OUT]] {{\[\[}}0, 1], [2]] output_shape [7, 7, 64] : tensor<49x64xf32> into tensor<7x7x64xf32>
// CHECK-NOT:     linalg.generic
func.func @rows_collapsed(%x: tensor<7x7x32xf32>) -> tensor<7x7x64xf32> {
  %w = arith.constant dense<0.5> : tensor<32x64xf32>
  %bias = arith.constant dense<1.0> : tensor<64xf32>
  %e = tensor.empty() : tensor<7x7x64xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias : tensor<64xf32>) outs(%e : tensor<7x7x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<7x7x64xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<7x7x32xf32>, tensor<32x64xf32>) outs(%init : tensor<7x7x64xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<7x7x64xf32>
  %e2 = tensor.empty() : tensor<7x7x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%0 : tensor<7x7x64xf32>) outs(%e2 : tensor<7x7x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %v, %z : f32
    linalg.yield %y : f32
  } -> tensor<7x7x64xf32>
  return %r : tensor<7x7x64xf32>
}

// -----

// Rows the left-hand side reads in another order than the output (a
// transposed [w, h, k] input) stay two loops: 7 tiles of 1 x 7 rows.

#a = affine_map<(h, w, n, k) -> (w, h, k)>
#b = affine_map<(h, w, n, k) -> (k, n)>
#c = affine_map<(h, w, n, k) -> (h, w, n)>
// CHECK-LABEL: func.func @rows_transposed_kept
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         scf.for %{{.*}} = %c0 to %c7 step %c1
// CHECK:           vector.transfer_read %arg0{{.*}} : tensor<7x7x32xf32>, vector<1x7x32x1xf32>
// CHECK-NOT:     tensor.collapse_shape
func.func @rows_transposed_kept(%x: tensor<7x7x32xf32>) -> tensor<7x7x64xf32> {
  %w = arith.constant dense<0.5> : tensor<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x7x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<7x7x64xf32>) -> tensor<7x7x64xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<7x7x32xf32>, tensor<32x64xf32>) outs(%init : tensor<7x7x64xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<7x7x64xf32>
  return %0 : tensor<7x7x64xf32>
}
