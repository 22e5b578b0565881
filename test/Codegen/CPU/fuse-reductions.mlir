// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16 fuse-reductions=false}))" \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16 fuse-reductions=false}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF-KERNELS

// Global average pooling: a sum over 7x7 from a zero fill, then a division.
// The division is tiled by the sum's tiles (2 channels x the whole 7x7)
// and the fill and the sum run in its loop: one loop nest, one kernel with
// all three locations; the sum starts from 0 in registers and is divided
// before its one store.

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#red = affine_map<(n, c, h, w) -> (n, c)>
#id = affine_map<(n, c) -> (n, c)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK-KERNELS: Function=global_average_pool | kind=reduction
// CHECK-KERNELS-NOT: Function=global_average_pool |
// CHECK:         scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[X:.*]] = vector.transfer_read {{.*}} : tensor<1x512x7x7xf32>, vector<1x2x7x7xf32>
// CHECK:           %[[S:.*]] = vector.multi_reduction <add>, %[[X]], %{{.*}} [2, 3]
// CHECK:           %[[D:.*]] = arith.divf %[[S]], %{{.*}} : vector<1x2xf32>
// CHECK:           vector.transfer_write %[[D]]
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
// OFF-LABEL:   func.func @global_average_pool
// OFF-KERNELS: Function=global_average_pool | kind=fill
// OFF-KERNELS: Function=global_average_pool | kind=reduction
// OFF-KERNELS: Function=global_average_pool | kind=elementwise
// OFF-KERNELS-NOT: Function=global_average_pool |
func.func @global_average_pool(%x: tensor<1x512x7x7xf32>) -> tensor<1x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %e0 = tensor.empty() : tensor<1x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x512xf32>) -> tensor<1x512xf32>
  %sum = linalg.generic {indexing_maps = [#in, #red],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<1x512x7x7xf32>) outs(%fill : tensor<1x512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %e1 = tensor.empty() : tensor<1x512xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x512xf32>) outs(%e1 : tensor<1x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x512xf32>
  return %mean : tensor<1x512xf32>
}

// -----

// A sum with a second user stays a kernel of its own: the consumer would
// otherwise need it computed twice.

#in1 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#red1 = affine_map<(n, c, h, w) -> (n, c)>
#id1 = affine_map<(n, c) -> (n, c)>
// CHECK-LABEL: func.func @shared_sum
// CHECK-KERNELS: Function=shared_sum | kind=fill
// CHECK-KERNELS: Function=shared_sum | kind=reduction
// CHECK-KERNELS: Function=shared_sum | kind=elementwise
// CHECK-KERNELS-NOT: Function=shared_sum |
func.func @shared_sum(%x: tensor<1x512x7x7xf32>) -> (tensor<1x512xf32>, tensor<1x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %e0 = tensor.empty() : tensor<1x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x512xf32>) -> tensor<1x512xf32>
  %sum = linalg.generic {indexing_maps = [#in1, #red1],
      iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<1x512x7x7xf32>) outs(%fill : tensor<1x512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %e1 = tensor.empty() : tensor<1x512xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x512xf32>) outs(%e1 : tensor<1x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x512xf32>
  return %mean, %sum : tensor<1x512xf32>, tensor<1x512xf32>
}

// -----

// A consumer that broadcasts the reduction (a division by the row sum) is
// a row group: it is tiled by rows (1 x the whole 128) and the fill and the
// sum run in the row's loop, one kernel; the row is read once for the sum
// and once for the division, both from the same tile.

#x2 = affine_map<(i, j) -> (i, j)>
#r2 = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @broadcast_consumer
// CHECK-KERNELS: Function=broadcast_consumer | kind=reduction
// CHECK-KERNELS-NOT: Function=broadcast_consumer |
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %c64 step %c1 iter_args
// CHECK:           vector.transfer_read %{{.*}}[%[[I]], %{{.*}}]{{.*}} : tensor<64x128xf32>, vector<1x128xf32>
// CHECK:           %[[S:.*]] = vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x128xf32> to vector<1xf32>
// CHECK:           %[[B:.*]] = vector.broadcast %[[S]]
// CHECK:           arith.divf %{{.*}}, %{{.*}} : vector<1x128xf32>
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
// OFF-LABEL:   func.func @broadcast_consumer
// OFF-KERNELS: Function=broadcast_consumer | kind=fill
// OFF-KERNELS: Function=broadcast_consumer | kind=reduction
// OFF-KERNELS: Function=broadcast_consumer | kind=elementwise
// OFF-KERNELS-NOT: Function=broadcast_consumer |
func.func @broadcast_consumer(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#x2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%fill : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %div = linalg.generic {indexing_maps = [#x2, #r2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x128xf32>, tensor<64xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<64x128xf32>
  return %div : tensor<64x128xf32>
}

// -----

// Softmax along the rows of 4x128: max from -inf, exp(x - max), sum from 0,
// division. The division is the row group's consumer; the max, the exp
// (read by the sum and by the division), the sum and both fills run in its
// row loop: one kernel naming the whole chain.

#sx = affine_map<(i, j) -> (i, j)>
#sr = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @softmax_rows
// CHECK-KERNELS: Function=softmax_rows | kind=reduction
// CHECK-KERNELS-NOT: Function=softmax_rows |
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c4 step %c1 iter_args
// CHECK:           vector.multi_reduction <maximumf>
// CHECK:           math.exp
// CHECK:           vector.multi_reduction <add>
// CHECK:           arith.divf
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
// OFF-LABEL:   func.func @softmax_rows
// OFF-KERNELS: Function=softmax_rows | kind=fill
// OFF-KERNELS: Function=softmax_rows | kind=reduction
// OFF-KERNELS: Function=softmax_rows | kind=elementwise
// OFF-KERNELS: Function=softmax_rows | kind=fill
// OFF-KERNELS: Function=softmax_rows | kind=reduction
// OFF-KERNELS: Function=softmax_rows | kind=elementwise
// OFF-KERNELS-NOT: Function=softmax_rows |
func.func @softmax_rows(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#sx, #sr], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x128xf32>) outs(%f0 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x128xf32>
  %exp = linalg.generic {indexing_maps = [#sx, #sr, #sx], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x128xf32>, tensor<4xf32>) outs(%e1 : tensor<4x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x128xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#sx, #sr], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x128xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4x128xf32>
  %div = linalg.generic {indexing_maps = [#sx, #sr, #sx], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x128xf32>, tensor<4xf32>) outs(%e3 : tensor<4x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x128xf32>
  return %div : tensor<4x128xf32>
}

// -----

// Not a row group: a sum over the 64 rows (a column sum, whose tiles would
// be strided columns), and rows longer than 4 x 8 vectors (512 elements
// with 16 lanes: too long for one tile). Both stay three kernels.

#cx = affine_map<(i, j) -> (i, j)>
#cr = affine_map<(i, j) -> (j)>
#lr = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @column_sum
// CHECK-KERNELS: Function=column_sum | kind=fill
// CHECK-KERNELS: Function=column_sum | kind=reduction
// CHECK-KERNELS: Function=column_sum | kind=elementwise
// CHECK-KERNELS-NOT: Function=column_sum |
// CHECK-LABEL: func.func @long_rows
// CHECK-KERNELS: Function=long_rows | kind=fill
// CHECK-KERNELS: Function=long_rows | kind=reduction
// CHECK-KERNELS: Function=long_rows | kind=elementwise
// CHECK-KERNELS-NOT: Function=long_rows |
func.func @column_sum(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#cx, #cr], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%fill : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %div = linalg.generic {indexing_maps = [#cx, #cr, #cx], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<64x128xf32>
  return %div : tensor<64x128xf32>
}

func.func @long_rows(%x: tensor<4x4096xf32>) -> tensor<4x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#cx, #lr], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4096xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x4096xf32>
  %div = linalg.generic {indexing_maps = [#cx, #lr, #cx], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x4096xf32>, tensor<4xf32>) outs(%e1 : tensor<4x4096xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x4096xf32>
  return %div : tensor<4x4096xf32>
}
