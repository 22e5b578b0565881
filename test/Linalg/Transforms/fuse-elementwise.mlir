// RUN: tessel-opt %s --split-input-file --tessel-fuse-elementwise | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-fuse-elementwise --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// bias add (broadcast along rows) -> relu: one generic reading x and b.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
// LOC-LABEL: func.func @chain
// LOC:         } -> tensor<4x8xf32> loc(#[[FUSED:loc[0-9]+]])
// LOC-DAG:   #[[ADD:loc[0-9]*]] = loc("add")
// LOC-DAG:   #[[RELU:loc[0-9]*]] = loc("relu")
// LOC-DAG:   #[[FUSED]] = loc(fused[#[[ADD]], #[[RELU]]])
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32> loc("add")
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32> loc("relu")
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The producer has a second user: fusing would compute it twice.
// CHECK-LABEL: func.func @shared_producer
// CHECK-COUNT-2: linalg.generic
func.func @shared_producer(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#gid = affine_map<(i, j) -> (i, j)>
#gb = affine_map<(i, j) -> (j)>

// A producer that its one consumer reads twice (a bias add in front of
// GELU, which reads its input twice) fuses: nothing else needs it, and the
// fused body computes it for each read (the copies are left to CSE). Its
// inputs are read once each.
// CHECK-LABEL: func.func @read_twice
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16xf32>)
// CHECK:           arith.addf
// CHECK:           arith.addf
// CHECK:           math.erf
// CHECK:           arith.mulf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[G]]
func.func @read_twice(%x: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#gid, #gb, #gid], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#gid, #gid, #gid], iterator_types = ["parallel", "parallel"]}
      ins(%y, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %a2: f32, %o: f32):
    %e = math.erf %a : f32
    %m = arith.mulf %a2, %e : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A matrix product consumer: relu(x) would be recomputed once per column
// of the result, and the contraction would no longer be a plain one.
// CHECK-LABEL: func.func @reduction_consumer
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
func.func @reduction_consumer(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %acc: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%r, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%acc : tensor<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Ops of two fusion groups (two tessel.fused regions) stay two loop nests;
// ops of one group fuse, and the fused op keeps the group.
// CHECK-LABEL: func.func @fusion_groups
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} attrs = {tessel.fusion_group = 0 : i64}
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>) {{.*}} attrs = {tessel.fusion_group = 1 : i64}
// CHECK:           arith.negf
// CHECK:           math.absf
// CHECK-NOT:     linalg.generic
func.func @fusion_groups(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {tessel.fusion_group = 0 : i64} {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%i: f32, %o: f32):
    %r = arith.negf %i : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%i: f32, %o: f32):
    %r = math.absf %i : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
