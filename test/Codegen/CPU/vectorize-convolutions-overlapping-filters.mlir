// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8 accumulators=12}))" | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8 accumulators=12 fuse-epilogue=false}))" | FileCheck %s --check-prefix=UNFUSED --enable-var-scope

// 248 filters are 31 vectors of 8 (AVX2), which blocks of 2 do not divide.
// Starting from the bias, the tiles take 2 vectors x 6 positions anyway
// (12 accumulators; 1 x 12 would load a broadcast per multiply-add): the
// weights are packed in 16 blocks of 16 filters, the last one holding
// filters 232..247; the 15 whole blocks run in a loop, and the last block
// after it, from filter 232, overlapping the one before (filters 232..239
// are computed and written twice, alike). Packed block 15 = ceil(232 / 16).
// CHECK-LABEL: func.func @classifier
// CHECK-DAG:     %[[PACKED:.+]] = arith.constant dense<5.000000e-01> : tensor<16x16x1x1x16xf32>
// CHECK-DAG:     %[[BIAS:.+]] = arith.constant dense<1.000000e+00> : tensor<248xf32>
// CHECK:         scf.for %[[F0:.+]] = %c0 to %c240 step %c16
// CHECK:           arith.ceildivui %[[F0]], %c16
// CHECK:           vector.transfer_read %[[BIAS]][%[[F0]]]
// CHECK:           scf.for %{{.+}} = %c0 to %c168 step %c6
// CHECK:             scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:       arith.ceildivui %c232, %c16
// CHECK:       vector.transfer_read %[[BIAS]][%c232]
// CHECK:       scf.for %{{.+}} = %c0 to %c168 step %c6
// CHECK:         vector.transfer_read %[[PACKED]]
// The accumulators that start from the output's values (the bias added
// separately) would read filters the block before wrote: whole blocks of
// one vector, 1 x 12.
// UNFUSED-LABEL: func.func @classifier
// UNFUSED:         arith.constant dense<5.000000e-01> : tensor<31x16x1x1x8xf32>
// UNFUSED:         scf.for %{{.+}} = %c0 to %c248 step %c8
// UNFUSED-NOT:     arith.ceildivui
func.func @classifier(%x: tensor<1x16x13x13xf32>) -> tensor<1x248x13x13xf32> {
  %w = tessel.constant dense<0.5> : tensor<248x16x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<248xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x13x13xf32>, tensor<248x16x1x1xf32>, tensor<248xf32>) -> tensor<1x248x13x13xf32>
  return %0 : tensor<1x248x13x13xf32>
}

// -----

// Two groups of 31 vectors: a block of 2 vectors would straddle the groups'
// boundary; the blocks stay one vector.
// CHECK-LABEL: func.func @grouped
// CHECK:         arith.constant dense<5.000000e-01> : tensor<62x16x1x1x8xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c496 step %c8
// CHECK-NOT:     arith.ceildivui
func.func @grouped(%x: tensor<1x32x13x13xf32>) -> tensor<1x496x13x13xf32> {
  %w = tessel.constant dense<0.5> : tensor<496x16x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<496xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x32x13x13xf32>, tensor<496x16x1x1xf32>, tensor<496xf32>) -> tensor<1x496x13x13xf32>
  return %0 : tensor<1x496x13x13xf32>
}

// -----

// 64 filters in blocks of 3 vectors (24) on a padded 27x27 map: the two
// whole blocks, too few to share among threads evenly, are split into 4
// groups of rows each, the loop over blocks x groups (8) the parallel one
// (group 2 of a block: rows 13 to 20, its loop over inner rows clamped to
// [1, 26)); the last block (from filter 40, packed block ceil(40 / 24) =
// 2) runs after them with its inner rows split across threads instead of
// on the calling thread alone.
// CHECK-LABEL: func.func @last_block_rows_parallel
// CHECK:         scf.for %[[I:.+]] = %c0 to %c8 step %c1
// CHECK:           arith.divui %[[I]], %c4
// CHECK:           %[[GROUP:.+]] = arith.remui %[[I]], %c4
// CHECK:           %[[FROM:.+]] = arith.muli %[[GROUP]], %c27
// CHECK:           %[[FIRST:.+]] = arith.divui %[[FROM]], %c4
// CHECK:           %[[LOWER:.+]] = arith.maxui %[[FIRST]], %c1
// CHECK:           %[[UPPER:.+]] = arith.minui %{{.+}}, %c26
// CHECK:           scf.for %{{.+}} = %[[LOWER]] to %[[UPPER]] step %c1
// CHECK:         } {tessel.parallel}
// CHECK:         arith.ceildivui %c40, %c24
// CHECK:         scf.for %{{.+}} = %c1 to %c26 step %c1
// CHECK:         } {tessel.parallel}
// CHECK-NEXT:    scf.for %{{.+}} = %c0 to %c2 step %c1
func.func @last_block_rows_parallel(%x: tensor<1x16x27x27xf32>) -> tensor<1x64x27x27xf32> {
  %w = tessel.constant dense<0.5> : tensor<64x16x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<64xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x27x27xf32>, tensor<64x16x3x3xf32>, tensor<64xf32>) -> tensor<1x64x27x27xf32>
  return %0 : tensor<1x64x27x27xf32>
}
