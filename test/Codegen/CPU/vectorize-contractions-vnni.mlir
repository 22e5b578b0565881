// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16 vnni=true}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" \
// RUN:   | FileCheck %s --check-prefix=NOVNNI

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// int8 x int8 -> int32 (after tessel-narrow-integer-products) on the i8
// VNNI micro-kernel: 4 reduction steps a tile, the right-hand side's 4 rows
// interleaved into one vector of 64 bytes per 16 columns, each row's 4
// bytes broadcast and made unsigned (xor 0x80), vpdpbusd, and 128 x the 4
// right-hand values subtracted again (one vpdpbusd per column vector).
// Without VNNI the product stays a loop nest.
// CHECK-LABEL: func.func @s8s8
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK-COUNT-3:   vector.interleave
// CHECK:           %[[CORR:.*]] = llvm.inline_asm "vpdpbusd $2, $1, $0", "=v,v,v,0" %{{.*}}, %{{.*}}, %{{.*}} : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
// CHECK:           arith.xori %{{.*}} : vector<4xi8>
// CHECK:           vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK:           %[[DOT:.*]] = llvm.inline_asm "vpdpbusd $2, $1, $0", "=v,v,v,0"
// CHECK:           arith.subi %[[DOT]], %[[CORR]] : vector<16xi32>
// CHECK-NOT:     linalg.generic
// NOVNNI-LABEL: func.func @s8s8
// NOVNNI:         linalg.generic
// NOVNNI-NOT:     inline_asm
func.func @s8s8(%a: tensor<4x64xi8>, %b: tensor<64x16xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xi8>, tensor<64x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// uint8 x int8 (onnxruntime's U8S8) is vpdpbusd's own form: no xor, no
// correction.
// CHECK-LABEL: func.func @u8s8
// CHECK-NOT:     arith.xori
// CHECK:         llvm.inline_asm "vpdpbusd $2, $1, $0"
// CHECK-NOT:     arith.subi
// CHECK:         return
func.func @u8s8(%a: tensor<4x64xi8>, %b: tensor<64x16xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xi8>, tensor<64x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// Left as loops: a reduction of 6 (no whole groups of 4), and an unsigned
// right-hand side (vpdpbusd multiplies by signed bytes).
// CHECK-LABEL: func.func @odd_reduction
// CHECK-NOT:     inline_asm
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @unsigned_rhs
// CHECK-NOT:     inline_asm
// CHECK:         return
func.func @odd_reduction(%a: tensor<4x6xi8>, %b: tensor<6x16xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x6xi8>, tensor<6x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}
func.func @unsigned_rhs(%a: tensor<4x64xi8>, %b: tensor<64x16xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xi8>, tensor<64x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extui %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// Constant weights are packed at compile time as [K/4, N, 4] (each column's
// 4 bytes of a step adjacent; the tile's runs fold to a [K/4, 4N] constant)
// and the left-hand side viewed as [M, K/4, 4]. The tile is the whole
// reduction: the kernel loops over the groups itself, accumulators carried
// in registers, and reads one run of 64 bytes per column vector and group.
// The packed constant (printed as hex bytes) starts with column 0's rows
// 0-3 (1, 2, 3, 4), then column 1's (5, 6, 7, 8).
// CHECK-LABEL: func.func @packed_weights
// CHECK:         %[[W:.*]] = arith.constant dense<"0x0102030405060708{{[0-9A-F]*}}"> : tensor<2x64xi8>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xi8> into tensor<4x2x4xi8>
// CHECK:         scf.for %[[G:.*]] = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-NOT:       vector.interleave
// CHECK:           vector.transfer_read %[[W]][%[[G]], %c0], {{.*}} : tensor<2x64xi8>, vector<64xi8>
// CHECK:           llvm.inline_asm "vpdpbusd $2, $1, $0"
// CHECK:           scf.yield
// CHECK-COUNT-4: vector.transfer_write
func.func @packed_weights(%a: tensor<4x8xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %b = arith.constant dense<[[1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                             [2, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                             [3, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                             [4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                             [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
                             [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
                             [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
                             [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16]]> : tensor<8x16xi8>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// int8 x packed int8: 128 x the right-hand values are summed in one more
// accumulator per column vector inside the loop and subtracted once after
// it, not at every group.
// CHECK-LABEL: func.func @packed_signed
// CHECK:         scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-NOT:       arith.subi
// CHECK:           arith.xori
// CHECK:           scf.yield
// CHECK:         %[[D0:.*]] = arith.subi %{{.*}}#0, %{{.*}}#2 : vector<16xi32>
// CHECK:         vector.transfer_write %[[D0]]
// CHECK:         arith.subi %{{.*}}#1, %{{.*}}#2 : vector<16xi32>
func.func @packed_signed(%a: tensor<2x8xi8>, %init: tensor<2x16xi32>) -> tensor<2x16xi32> {
  %b = arith.constant dense<3> : tensor<8x16xi8>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8xi8>, tensor<8x16xi8>) outs(%init : tensor<2x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x16xi32>
  return %c : tensor<2x16xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// A contraction of 8-bit values that is no multiply-add (`or` of `and`)
// is no vpdpbusd: it stays loops.
// CHECK-LABEL: func.func @or_of_and
// CHECK-NOT:     inline_asm
// CHECK:         arith.andi
// CHECK:         return
func.func @or_of_and(%a: tensor<4x64xi8>, %b: tensor<64x16xi8>, %init: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xi8>, tensor<64x16xi8>) outs(%init : tensor<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.andi %xe, %ye : i32
    %s = arith.ori %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x16xi32>
  return %c : tensor<4x16xi32>
}
