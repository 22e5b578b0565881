// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" \
// RUN:   | FileCheck %s

// A classifier's 1000 columns: no whole 16-lane vector divides them, so
// the column tiles are half vectors (8 lanes, a ymm register; 32 and 16 do
// not divide 1000 either), not the 50 columns that the largest divisor
// would give (LLVM
// splits a 50-wide vector into partial registers and reshuffles it every
// step of the reduction).

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @classifier_columns
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c1000 step %c8
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> (tensor<1000xf32>, vector<8xf32>)
// CHECK-NOT:     vector<50xf32>
func.func @classifier_columns(%x: tensor<1x64xf32>, %w: tensor<64x1000xf32>,
                              %init: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x64xf32>, tensor<64x1000xf32>) outs(%init : tensor<1x1000xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// -----

// 48 columns: 16-lane vectors divide them (3), so whole vectors stay.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @whole_vectors
// CHECK:         vector.contract {{.*}} into vector<{{[0-9]+}}x16xf32>
func.func @whole_vectors(%x: tensor<4x64xf32>, %w: tensor<64x48xf32>,
                         %init: tensor<4x48xf32>) -> tensor<4x48xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x64xf32>, tensor<64x48xf32>) outs(%init : tensor<4x48xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

// The same classifier with a constant matrix and a bias: the matrix is
// padded with zero columns to 1024 (16 tiles of 4 vectors), the bias
// broadcast to 1024 columns too and fused as the tiles' initial value, and
// the result is the first 1000 columns. Each tile carries 4 independent
// accumulators through the reduction instead of one 8-lane chain.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @classifier_padded
// CHECK-DAG:     arith.constant dense<{{.*}}> : tensor<64x1024xf32>
// CHECK-DAG:     arith.constant dense<{{.*}}> : tensor<1024xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c1024 step %c64
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c64 step %c1 {{.*}} -> ({{.*}}vector<1x64xf32>)
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [1, 1000] [1, 1] : tensor<1x1024xf32> to tensor<1x1000xf32>
// CHECK-NOT:     vector<8xf32>
func.func @classifier_padded(%x: tensor<1x64xf32>) -> tensor<1x1000xf32> {
  %w = arith.constant dense<0.5> : tensor<64x1000xf32>
  %bias = arith.constant dense<1.0> : tensor<1000xf32>
  %e = tensor.empty() : tensor<1x1000xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x1000xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x64xf32>, tensor<64x1000xf32>) outs(%init : tensor<1x1000xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}
