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

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// With more columns than a tile's (here 128 of 64), the tile reads the
// packed weights stored panel by panel, [N/64, K/4, 64 * 4]: its whole
// reduction is one contiguous run (in [K/4, N, 4], a tile's bytes of one
// group sit N * 4 apart). Panel 0 starts with column 0's 4 bytes
// (-100..-97), then column 1's (-92..-89); the column loop picks its panel.
// CHECK-LABEL: func.func @panels
// CHECK:         %[[P:.*]] = arith.constant dense<"0x9C9D9E9FA4A5A6A7{{[0-9A-F]*}}"> : tensor<2x2x256xi8>
// CHECK:         scf.for %[[N:.*]] = %c0 to %c128 step %c64
// CHECK:           %[[I:.*]] = arith.divui %[[N]], %c64 : index
// CHECK:           tensor.extract_slice %[[P]][%[[I]], 0, 0] [1, 2, 256] [1, 1, 1] : tensor<2x2x256xi8> to tensor<1x2x256xi8>
// CHECK:           scf.for
// CHECK-COUNT-4:     vector.transfer_read %{{.*}} : tensor<2x256xi8>, vector<64xi8>
func.func @panels(%a: tensor<4x8xi8>, %init: tensor<4x128xi32>) -> tensor<4x128xi32> {
  %b = arith.constant dense<[[-100, -92, -84, -76, -68, -60, -52, -44, -36, -28, -20, -12, -4, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, -100, -92, -84, -76, -68, -60, -52, -44, -36, -28, -20, -12, -4, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, -100, -92, -84, -76, -68, -60, -52, -44, -36, -28, -20, -12, -4, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, -100, -92, -84, -76, -68, -60, -52, -44, -36, -28, -20, -12, -4, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, -100, -92, -84, -76, -68, -60, -52, -44, -36, -28, -20, -12, -4, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, -100, -92, -84],
                             [-99, -91, -83, -75, -67, -59, -51, -43, -35, -27, -19, -11, -3, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, -99, -91, -83, -75, -67, -59, -51, -43, -35, -27, -19, -11, -3, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, -99, -91, -83, -75, -67, -59, -51, -43, -35, -27, -19, -11, -3, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, -99, -91, -83, -75, -67, -59, -51, -43, -35, -27, -19, -11, -3, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, -99, -91, -83, -75, -67, -59, -51, -43, -35, -27, -19, -11, -3, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, -99, -91, -83],
                             [-98, -90, -82, -74, -66, -58, -50, -42, -34, -26, -18, -10, -2, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, -98, -90, -82, -74, -66, -58, -50, -42, -34, -26, -18, -10, -2, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, -98, -90, -82, -74, -66, -58, -50, -42, -34, -26, -18, -10, -2, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, -98, -90, -82, -74, -66, -58, -50, -42, -34, -26, -18, -10, -2, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, -98, -90, -82, -74, -66, -58, -50, -42, -34, -26, -18, -10, -2, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, -98, -90, -82],
                             [-97, -89, -81, -73, -65, -57, -49, -41, -33, -25, -17, -9, -1, 7, 15, 23, 31, 39, 47, 55, 63, 71, 79, 87, 95, -97, -89, -81, -73, -65, -57, -49, -41, -33, -25, -17, -9, -1, 7, 15, 23, 31, 39, 47, 55, 63, 71, 79, 87, 95, -97, -89, -81, -73, -65, -57, -49, -41, -33, -25, -17, -9, -1, 7, 15, 23, 31, 39, 47, 55, 63, 71, 79, 87, 95, -97, -89, -81, -73, -65, -57, -49, -41, -33, -25, -17, -9, -1, 7, 15, 23, 31, 39, 47, 55, 63, 71, 79, 87, 95, -97, -89, -81, -73, -65, -57, -49, -41, -33, -25, -17, -9, -1, 7, 15, 23, 31, 39, 47, 55, 63, 71, 79, 87, 95, -97, -89, -81],
                             [-96, -88, -80, -72, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, -96, -88, -80, -72, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, -96, -88, -80, -72, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, -96, -88, -80, -72, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, -96, -88, -80, -72, -64, -56, -48, -40, -32, -24, -16, -8, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, -96, -88, -80],
                             [-95, -87, -79, -71, -63, -55, -47, -39, -31, -23, -15, -7, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, -95, -87, -79, -71, -63, -55, -47, -39, -31, -23, -15, -7, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, -95, -87, -79, -71, -63, -55, -47, -39, -31, -23, -15, -7, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, -95, -87, -79, -71, -63, -55, -47, -39, -31, -23, -15, -7, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, -95, -87, -79, -71, -63, -55, -47, -39, -31, -23, -15, -7, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, -95, -87, -79],
                             [-94, -86, -78, -70, -62, -54, -46, -38, -30, -22, -14, -6, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, -94, -86, -78, -70, -62, -54, -46, -38, -30, -22, -14, -6, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, -94, -86, -78, -70, -62, -54, -46, -38, -30, -22, -14, -6, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, -94, -86, -78, -70, -62, -54, -46, -38, -30, -22, -14, -6, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, -94, -86, -78, -70, -62, -54, -46, -38, -30, -22, -14, -6, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, -94, -86, -78],
                             [-93, -85, -77, -69, -61, -53, -45, -37, -29, -21, -13, -5, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, -93, -85, -77, -69, -61, -53, -45, -37, -29, -21, -13, -5, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, -93, -85, -77, -69, -61, -53, -45, -37, -29, -21, -13, -5, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, -93, -85, -77, -69, -61, -53, -45, -37, -29, -21, -13, -5, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, -93, -85, -77, -69, -61, -53, -45, -37, -29, -21, -13, -5, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, -93, -85, -77]]> : tensor<8x128xi8>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xi8>, tensor<8x128xi8>) outs(%init : tensor<4x128xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x128xi32>
  return %c : tensor<4x128xi32>
}
