// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8 fuse-epilogue=false}))" \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8 fuse-epilogue=false}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF-KERNELS

// A product starting from a bias broadcast, consumed by a ReLU: the ReLU is
// tiled by the product's 6x16 register tiles (columns outer; the last of
// the 64 rows' tiles starts at row 58, overlapping the one before it), the
// bias broadcast and the product fused into its loops; per tile the bias is
// read, the reduction runs in registers, the ReLU applies and the tile is
// stored once. One kernel with the three locations.

#bias = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-KERNELS: Function=matmul_bias_relu | kind=contraction
// CHECK-KERNELS-NOT: Function=matmul_bias_relu |
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c6
// CHECK:             %[[AT:.*]] = affine.min #{{.*}}(%[[I]])
// CHECK:             vector.transfer_read %{{.*}}[%[[J]]]{{.*}} : tensor<128xf32>, vector<6x16xf32>
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c32 step %c1 iter_args
// CHECK:               vector.contract
// CHECK:             arith.maximumf %{{.*}} : vector<6x16xf32>
// CHECK:             vector.transfer_write %{{.*}}[%[[AT]], %[[J]]]{{.*}} : vector<6x16xf32>, tensor<64x128xf32>
// CHECK-NOT:     linalg.generic
// OFF-LABEL:   func.func @matmul_bias_relu
// OFF-KERNELS: Function=matmul_bias_relu | kind=contraction
// OFF-KERNELS-NOT: Function=matmul_bias_relu |
// OFF-COUNT-2:   linalg.generic
func.func @matmul_bias_relu(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>,
                            %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x128xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<128xf32>) outs(%e0 : tensor<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<64x128xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%init : tensor<64x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %relu : tensor<64x128xf32>
}

// -----

// A consumer that also reads the product through a broadcast (or a product
// with a second user) is no epilogue: the product stays on its own.

#id2 = affine_map<(i, j) -> (i, j)>
#a2 = affine_map<(i, j, k) -> (i, k)>
#b2 = affine_map<(i, j, k) -> (k, j)>
#c2 = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @shared_product
// CHECK:         scf.for
// CHECK:         linalg.generic
func.func @shared_product(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>,
                          %init: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%init : tensor<64x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %relu, %p : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// With cache blocks that keep the whole reduction (K = 1024 <= KC), the
// blocks only split the row loop: the fill runs in the register tiles (the
// accumulators start from its value; no zeroed output for them to load),
// and the right-hand side's column of 16 is still copied into a contiguous
// buffer once per column, outside the row loop.

// CHECK-LABEL: func.func @blocked_fill
// CHECK-KERNELS: Function=blocked_fill | kind=contraction
// CHECK-KERNELS-NOT: Function=blocked_fill |
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<6x16xf32>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %c1024{{.*}} step %c16
// CHECK:           %[[PACKED:.*]] = linalg.copy {tessel.in_kernel} ins(%{{.*}} : tensor<1024x16xf32>)
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c1024{{.*}} step %c6
// CHECK:             vector.transfer_write %[[ZERO]]
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c1024 step %c1
// CHECK:               vector.transfer_read %[[PACKED]]
// CHECK:               vector.contract
// CHECK:           } {tessel.parallel}
// CHECK-NOT:     linalg.fill
func.func @blocked_fill(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %p = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %p : tensor<1024x1024xf32>
}

// -----

// Cache blocks that split the reduction (K = 2048 > KC = 1024): each
// output tile is loaded and stored once per block of the reduction, so the
// fill is fused per block of columns (whole rows): its 256x16 tile would be
// one huge vector, so it is left, marked as part of this kernel, for
// tessel-vectorize-generics to tile into registers.

// CHECK-LABEL: func.func @blocked_fill_split_reduction
// CHECK-KERNELS: Function=blocked_fill_split_reduction | kind=contraction
// CHECK-KERNELS-NOT: Function=blocked_fill_split_reduction |
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c256{{.*}} step %c16
// CHECK:           linalg.fill {tessel.in_kernel} {{.*}} -> tensor<256x16xf32>
// CHECK:           scf.for {{.*}} to %c2048 step %c1024
// CHECK:             vector.contract
// CHECK-NOT:     linalg.fill
func.func @blocked_fill_split_reduction(%a: tensor<256x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.matmul ins(%a, %b : tensor<256x2048xf32>, tensor<2048x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// A product over 2 MiB whose cache blocks keep the whole reduction, with a
// bias broadcast and a ReLU (a large Gemm's epilogue): bias, reduction and
// ReLU all run on the 6x16 register tile (the last at row 506), which is
// stored once.

#biasB = affine_map<(i, j) -> (j)>
#idB = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @blocked_bias_relu
// CHECK-KERNELS: Function=blocked_bias_relu | kind=contraction
// CHECK-KERNELS-NOT: Function=blocked_bias_relu |
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %c1024{{.*}} step %c16
// CHECK:           linalg.copy {tessel.in_kernel} ins(%{{.*}} : tensor<1024x16xf32>)
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c512{{.*}} step %c6
// CHECK:             %[[AT:.*]] = affine.min #{{.*}}(%[[I]])
// CHECK:             vector.transfer_read %{{.*}}[%[[J]]]{{.*}} : tensor<1024xf32>, vector<6x16xf32>
// CHECK:             scf.for %{{.*}} = %{{.*}} to %c1024 step %c1
// CHECK:               vector.contract
// CHECK:             arith.maximumf %{{.*}} : vector<6x16xf32>
// CHECK:             vector.transfer_write %{{.*}}[%[[AT]], %[[J]]]{{.*}} : vector<6x16xf32>, tensor<512x1024xf32>
// CHECK-NOT:     linalg.generic
func.func @blocked_bias_relu(%x: tensor<512x1024xf32>, %w: tensor<1024x1024xf32>,
                             %bias: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<512x1024xf32>
  %init = linalg.generic {indexing_maps = [#biasB, #idB], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<1024xf32>) outs(%e0 : tensor<512x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<512x1024xf32>
  %p = linalg.matmul ins(%x, %w : tensor<512x1024xf32>, tensor<1024x1024xf32>) outs(%init : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %e1 = tensor.empty() : tensor<512x1024xf32>
  %relu = linalg.generic {indexing_maps = [#idB, #idB], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<512x1024xf32>) outs(%e1 : tensor<512x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  return %relu : tensor<512x1024xf32>
}

// -----

// A batch-1 product [1, 64, 32] x [32, 128] (torch's MatMul on a
// [batch, seq, d] activation) with a fill and a bias add: the product drops
// its unit batch loop, and its fill and bias add drop the same loop, so no
// reshape stands between them: one kernel, tiled over the 64 rows, and the
// result expanded back to [1, 64, 128] once at the end.

#bias3 = affine_map<(b, i, j) -> (j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#a3 = affine_map<(b, i, j, k) -> (b, i, k)>
#w3 = affine_map<(b, i, j, k) -> (k, j)>
#c3 = affine_map<(b, i, j, k) -> (b, i, j)>
// CHECK-LABEL: func.func @unit_batch_matmul_bias
// CHECK-KERNELS: Function=unit_batch_matmul_bias | kind=contraction
// CHECK-KERNELS-NOT: Function=unit_batch_matmul_bias |
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %c128 step %c16
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c64 step %c6
// CHECK:             vector.contract
// CHECK:             arith.addf %{{.*}} : vector<6x16xf32>
// CHECK:             vector.transfer_write %{{.*}} : vector<6x16xf32>, tensor<64x128xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [1, 64, 128]
// CHECK:         return %[[E]]
// CHECK-NOT:     linalg.
// OFF-LABEL:   func.func @unit_batch_matmul_bias
// OFF-COUNT-2:   linalg.
func.func @unit_batch_matmul_bias(%x: tensor<1x64x32xf32>, %w: tensor<32x128xf32>,
                                  %bias: tensor<128xf32>) -> tensor<1x64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x128xf32>) -> tensor<1x64x128xf32>
  %p = linalg.generic {indexing_maps = [#a3, #w3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x64x32xf32>, tensor<32x128xf32>) outs(%init : tensor<1x64x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x128xf32>
  %out = linalg.generic {indexing_maps = [#id3, #bias3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %bias : tensor<1x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x64x128xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %r = arith.addf %v, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x64x128xf32>
  return %out : tensor<1x64x128xf32>
}

// -----

// A [64, 128] product reshaped to [1, 64, 128] (unit dimensions added
// only) before a residual add: the add drops its unit loop and reads the
// product directly, so it runs in the product's register tiles.

#id4 = affine_map<(b, i, j) -> (b, i, j)>
#a4 = affine_map<(i, j, k) -> (i, k)>
#w4 = affine_map<(i, j, k) -> (k, j)>
#c4 = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: func.func @expanded_product_residual
// CHECK-KERNELS: Function=expanded_product_residual | kind=contraction
// CHECK-KERNELS-NOT: Function=expanded_product_residual |
// CHECK:         %[[R:.*]] = scf.for
// CHECK:             vector.contract
// CHECK:             arith.addf %{{.*}} : vector<4x16xf32>
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [1, 64, 128]
// CHECK-NOT:     linalg.
func.func @expanded_product_residual(%x: tensor<64x32xf32>, %w: tensor<32x128xf32>,
                                     %init: tensor<64x128xf32>,
                                     %res: tensor<1x64x128xf32>) -> tensor<1x64x128xf32> {
  %p = linalg.generic {indexing_maps = [#a4, #w4, #c4], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf32>, tensor<32x128xf32>) outs(%init : tensor<64x128xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %ex = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 64, 128] : tensor<64x128xf32> into tensor<1x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x128xf32>
  %out = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %res : tensor<1x64x128xf32>, tensor<1x64x128xf32>) outs(%e1 : tensor<1x64x128xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %s = arith.addf %v, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x64x128xf32>
  return %out : tensor<1x64x128xf32>
}
