// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16 fuse-reductions=false}))" \
// RUN:   | FileCheck %s --check-prefix=OFF

// Global average pooling: a sum over 7x7 from a zero fill, then a division.
// The division is tiled by the sum's tiles (2 channels x the whole 7x7)
// and the fill and the sum run in its loop: one loop nest, one kernel with
// all three locations; the sum starts from 0 in registers and is divided
// before its one store.

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#red = affine_map<(n, c, h, w) -> (n, c)>
#id = affine_map<(n, c) -> (n, c)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME:    tessel.kernels = [{kind = "reduction", loc = #[[LOC:.*]]}]
// CHECK:         scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[X:.*]] = vector.transfer_read {{.*}} : tensor<1x512x7x7xf32>, vector<1x2x7x7xf32>
// CHECK:           %[[S:.*]] = vector.multi_reduction <add>, %[[X]], %{{.*}} [2, 3]
// CHECK:           %[[D:.*]] = arith.divf %[[S]], %{{.*}} : vector<1x2xf32>
// CHECK:           vector.transfer_write %[[D]]
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
// OFF-LABEL:   func.func @global_average_pool
// OFF-SAME:      tessel.kernels = [{kind = "fill", {{.*}}}, {kind = "reduction", {{.*}}}, {kind = "elementwise", {{.*}}}]
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
// CHECK-SAME:    tessel.kernels = [{kind = "fill", {{.*}}}, {kind = "reduction", {{.*}}}, {kind = "elementwise", {{.*}}}]
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

// A consumer that broadcasts the reduction (softmax's division by the row
// sum) reads it with a map that is not the identity: not fused, as the sum
// tile would be recomputed for every element of the row.

#x2 = affine_map<(i, j) -> (i, j)>
#r2 = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @broadcast_consumer
// CHECK-SAME:    tessel.kernels = [{kind = "fill", {{.*}}}, {kind = "reduction", {{.*}}}, {kind = "elementwise", {{.*}}}]
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
