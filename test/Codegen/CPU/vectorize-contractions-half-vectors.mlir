// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS

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

// 100 columns (an attention's scores over 100 keys): neither whole nor
// half vectors divide them, so the tiles take quarter vectors (4 lanes, an
// xmm register), not 50-wide ones (16x slower on this product).

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @quarter_vectors
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c100 step %c4
// CHECK:           vector.contract {{.*}} into vector<10x4xf32>
// CHECK-NOT:     vector<50xf32>
func.func @quarter_vectors(%x: tensor<100x32xf32>, %w: tensor<32x100xf32>,
                           %init: tensor<100x100xf32>) -> tensor<100x100xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<100x32xf32>, tensor<32x100xf32>) outs(%init : tensor<100x100xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<100x100xf32>
  return %0 : tensor<100x100xf32>
}

// -----

// The same classifier with a constant matrix and a bias: the matrix is
// packed at compile time into 16 panels [16][64][64] of 4 vectors' worth of
// columns (zero columns pad the last), each read contiguously by its tile;
// the bias is broadcast onto the panels [1, 16, 64] and fused as the
// tiles' initial value; the result is the first 1000 columns of the
// panels collapsed to a row. Each tile carries 4 vectors of independent
// accumulators through the reduction instead of one 8-lane chain.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @classifier_padded
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<16x64x64xf32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<16x64xf32>
// CHECK:         scf.for %[[P:.*]] = %{{.*}} to %c16 step %c1 iter_args(%{{.*}}) -> (tensor<1x16x64xf32>)
// CHECK:           vector.transfer_read %[[B]][%[[P]], %c0]
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %c64 step %c1 {{.*}} -> ({{.*}}vector<1x1x64xf32>)
// CHECK:             vector.transfer_read %[[W]][%[[P]], %[[K]], %c0]
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<1x16x64xf32> into tensor<1x1024xf32>
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

// -----

// An MLP layer [1, 64] x [64, 128] + bias, then relu: 2 panels, none
// padded, so the relu is rebuilt on the panels and runs in the tiles (one
// kernel, nothing left structured); the row is the panels collapsed.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @layer_relu_panels
// CHECK-KERNELS: Function=layer_relu_panels | kind=contraction
// CHECK-KERNELS-NOT: Function=layer_relu_panels |
// CHECK-DAG:     arith.constant dense<{{.*}}> : tensor<2x64x64xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2 step %c1
// CHECK:           scf.for
// CHECK:           arith.maximumf {{.*}} : vector<1x1x64xf32>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<1x2x64xf32> into tensor<1x128xf32>
// CHECK-NOT:     linalg.generic
func.func @layer_relu_panels(%x: tensor<1x64xf32>) -> tensor<1x128xf32> {
  %w = arith.constant dense<0.5> : tensor<64x128xf32>
  %bias = arith.constant dense<-1.0> : tensor<128xf32>
  %e = tensor.empty() : tensor<1x128xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<128xf32>) outs(%e : tensor<1x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x128xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x64xf32>, tensor<64x128xf32>) outs(%init : tensor<1x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128xf32>
  %e2 = tensor.empty() : tensor<1x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<1x128xf32>) outs(%e2 : tensor<1x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %v, %z : f32
    linalg.yield %y : f32
  } -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}

// -----

// The consumer reads a broadcast bias ([128] along the columns): it is
// rebuilt on the panels all the same, the bias viewed as [2, 64] and read
// along the panel and its columns; its add runs in the tiles.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: func.func @broadcast_consumer_panels
// CHECK:         arith.constant dense<5.000000e-01> : tensor<2x64x64xf32>
// CHECK:         %[[BIAS:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [2, 64] : tensor<128xf32> into tensor<2x64xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:           vector.transfer_read %[[BIAS]][%{{.*}}, %{{.*}}]{{.*}} : tensor<2x64xf32>, vector<1x1x64xf32>
// CHECK:           arith.addf {{.*}} : vector<1x1x64xf32>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<1x2x64xf32> into tensor<1x128xf32>
// CHECK-NOT:     linalg.generic
func.func @broadcast_consumer_panels(%x: tensor<1x64xf32>, %bias: tensor<128xf32>) -> tensor<1x128xf32> {
  %w = arith.constant dense<0.5> : tensor<64x128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128xf32>) -> tensor<1x128xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x64xf32>, tensor<64x128xf32>) outs(%init : tensor<1x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128xf32>
  %e2 = tensor.empty() : tensor<1x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<1x128xf32>, tensor<128xf32>) outs(%e2 : tensor<1x128xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %y = arith.addf %v, %bb : f32
    linalg.yield %y : f32
  } -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}
