// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16 vnni=true fuse-epilogue=true}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16 vnni=true fuse-epilogue=true}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// A QDQ layer after tessel-integer-products and
// tessel-narrow-integer-products: the zero point's correction initialises
// the i32 sums, the VNNI kernel accumulates, and the epilogue requantizes
// the sums (i32 -> f32, scale, round, clamp) to the u8 it stores. All one
// kernel: the prologue and the epilogue run on the register tiles.
// REMARK: remark: [Passed] kernel | Category:tessel | Function=requantized | kind=contraction
// REMARK-NOT: Function=requantized
// REMARK: remark: [Passed] kernel | Category:tessel | Function=unit_batch | kind=contraction
// CHECK-LABEL: func.func @requantized
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:           arith.subi {{.*}} : vector<{{.*}}xi32>
// CHECK:           vpdpbusd
// CHECK:           arith.sitofp {{.*}} : vector<{{.*}}xi32> to vector<{{.*}}xf32>
// CHECK:           arith.fptoui {{.*}} : vector<{{.*}}xf32> to vector<{{.*}}xi8>
// CHECK-NOT:     linalg.generic
func.func @requantized(%a: tensor<64x128xi8>, %w: tensor<128x64xi8>, %corr: tensor<64xi32>, %s: tensor<64xf32>) -> tensor<64x64xi8> {
  %e = tensor.empty() : tensor<64x64xi32>
  %i = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%corr : tensor<64xi32>) outs(%e : tensor<64x64xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%y: i32, %o: i32):
    %z = arith.constant 0 : i32
    %d = arith.subi %z, %y : i32
    linalg.yield %d : i32
  } -> tensor<64x64xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<64x128xi8>, tensor<128x64xi8>) outs(%i : tensor<64x64xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %q = arith.addi %o, %p : i32
    linalg.yield %q : i32
  } -> tensor<64x64xi32>
  %eq = tensor.empty() : tensor<64x64xi8>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %s : tensor<64x64xi32>, tensor<64xf32>) outs(%eq : tensor<64x64xi8>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%x: i32, %y: f32, %o: i8):
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %xf = arith.sitofp %x : i32 to f32
    %m = arith.mulf %xf, %y : f32
    %n = math.roundeven %m : f32
    %l = arith.maximumf %n, %lo : f32
    %h = arith.minimumf %l, %hi : f32
    %u = arith.fptoui %h : f32 to i8
    linalg.yield %u : i8
  } -> tensor<64x64xi8>
  return %r : tensor<64x64xi8>
}

// -----

#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (k, n)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>

// A transformer's projection ([1, seq, features] x [features, out]): the
// unit batch loop is dropped as for f32 products, and the VNNI kernel
// runs it.
// CHECK-LABEL: func.func @unit_batch
// CHECK-NOT:     linalg.generic
// CHECK:         vpdpbusd
func.func @unit_batch(%a: tensor<1x32x64xi8>, %w: tensor<64x64xi8>, %init: tensor<1x32x64xi32>) -> tensor<1x32x64xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : tensor<1x32x64xi8>, tensor<64x64xi8>) outs(%init : tensor<1x32x64xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %q = arith.addi %o, %p : i32
    linalg.yield %q : i32
  } -> tensor<1x32x64xi32>
  return %c : tensor<1x32x64xi32>
}
