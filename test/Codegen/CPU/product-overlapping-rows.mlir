// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8}))" \
// RUN:   | FileCheck %s --enable-var-scope

// 26 rows that 6 does not divide, the accumulators starting from a bias
// broadcast (the tile never reads the output): register tiles of 6 rows x
// 2 vectors (12 accumulators, where 2 rows, which divide 26, would leave 4),
// the last one clamped to row 20 and overlapping the one before it (rows
// 20-23 written twice, with the same values). Every tile is static.
#bias = affine_map<(i, j) -> (i)>
#id = affine_map<(i, j) -> (i, j)>
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK:       #[[$CLAMP:.+]] = affine_map<(d0) -> (20, d0)>
// CHECK-LABEL: func.func @bias_rows_overlap
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %c64 step %c16
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c26 step %c6
// CHECK:             %[[AT:.*]] = affine.min #[[$CLAMP]](%[[I]])
// CHECK:             vector.transfer_read %{{.*}}[%[[AT]]]{{.*}} : tensor<26xf32>, vector<6x16xf32>
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c32 step %c1 iter_args
// CHECK:               vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// CHECK:             arith.maximumf %{{.*}} : vector<6x16xf32>
// CHECK:             vector.transfer_write %{{.*}}[%[[AT]], %[[J]]]{{.*}} : vector<6x16xf32>, tensor<26x64xf32>
// CHECK-NOT:     tensor<?x
// CHECK-NOT:     linalg.generic
func.func @bias_rows_overlap(%w: tensor<26x32xf32>, %x: tensor<32x64xf32>,
                             %bias: tensor<26xf32>) -> tensor<26x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<26x64xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<26xf32>) outs(%e0 : tensor<26x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<26x64xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %x : tensor<26x32xf32>, tensor<32x64xf32>) outs(%init : tensor<26x64xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<26x64xf32>
  %e1 = tensor.empty() : tensor<26x64xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<26x64xf32>) outs(%e1 : tensor<26x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<26x64xf32>
  return %relu : tensor<26x64xf32>
}

// -----

// The same product accumulating into its argument: a tile reads the
// output, so a second tile over the same rows would add twice. The rows
// take a divisor (2: 26 is 2 x 13).
// CHECK-LABEL: func.func @accumulating_rows_divide
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c64 step %c16
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c26 step %c2
// CHECK-NOT:       affine.min
// CHECK:             vector.contract {{.*}} into vector<2x16xf32>
func.func @accumulating_rows_divide(%w: tensor<26x32xf32>, %x: tensor<32x64xf32>,
                                    %init: tensor<26x64xf32>) -> tensor<26x64xf32> {
  %0 = linalg.matmul ins(%w, %x : tensor<26x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<26x64xf32>) -> tensor<26x64xf32>
  return %0 : tensor<26x64xf32>
}

// -----

// One column tile (16 columns): the row loop would be the one split across
// threads, and two threads would write the shared rows; the rows divide.
// CHECK-LABEL: func.func @one_column_tile
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c26 step %c2
// CHECK-NOT:     affine.min
func.func @one_column_tile(%w: tensor<26x32xf32>, %x: tensor<32x16xf32>) -> tensor<26x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<26x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<26x16xf32>) -> tensor<26x16xf32>
  %0 = linalg.matmul ins(%w, %x : tensor<26x32xf32>, tensor<32x16xf32>)
      outs(%fill : tensor<26x16xf32>) -> tensor<26x16xf32>
  return %0 : tensor<26x16xf32>
}

// -----

// The bias-started product of the first case, whose consumer adds into its
// own output (an argument): a second tile over the shared rows would read
// what the first one wrote there. The rows take a divisor (2).
#biasA = affine_map<(i, j) -> (i)>
#idA = affine_map<(i, j) -> (i, j)>
#aA = affine_map<(i, j, k) -> (i, k)>
#bA = affine_map<(i, j, k) -> (k, j)>
#cA = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @epilogue_reads_output
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c64 step %c16
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c26 step %c2
// CHECK-NOT:       affine.min
// CHECK:             vector.contract {{.*}} into vector<2x16xf32>
// CHECK-NOT:     linalg.generic
func.func @epilogue_reads_output(%w: tensor<26x32xf32>, %x: tensor<32x64xf32>,
                                 %bias: tensor<26xf32>,
                                 %acc: tensor<26x64xf32>) -> tensor<26x64xf32> {
  %e0 = tensor.empty() : tensor<26x64xf32>
  %init = linalg.generic {indexing_maps = [#biasA, #idA], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<26xf32>) outs(%e0 : tensor<26x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<26x64xf32>
  %p = linalg.generic {indexing_maps = [#aA, #bA, #cA], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %x : tensor<26x32xf32>, tensor<32x64xf32>) outs(%init : tensor<26x64xf32>) {
  ^bb0(%l: f32, %r: f32, %a: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<26x64xf32>
  %sum = linalg.generic {indexing_maps = [#idA, #idA], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<26x64xf32>) outs(%acc : tensor<26x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<26x64xf32>
  return %sum : tensor<26x64xf32>
}
