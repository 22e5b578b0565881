// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8 accumulators=12}))" | FileCheck %s --enable-var-scope --check-prefixes=CHECK,AVX2
// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=16 accumulators=24}))" | FileCheck %s --enable-var-scope --check-prefixes=CHECK,AVX512

// A 1x1 convolution over 512 channels on a 7x7 map (over filters: 49
// positions fill no whole vector). A tile of 2 vectors of filters x 6
// positions would read a line of 16 weights and one or two input lines
// from the L2 per channel, for 12 multiply-adds: about 27 bytes a cycle.
// Each tile accumulates 128 channels at a time instead (24 KiB / (16 x 4 +
// 128) bytes per channel), into a scratch buffer [49, 2, 8]: one loop over
// the chunks runs every tile, the first chunk starting from the bias and
// the others from the tile's partial sums, and a last pass over the tiles
// stores the sums through the epilogue into the output. The tiles of 6
// positions cover 48; the 49th is a tile of its own (an overlapping tile
// would add a chunk twice to the positions it shares). Four blocks of
// filters are too few to share among threads evenly: each is split into 2
// groups of tiles, the loop over blocks x groups (8) the parallel one; the
// second group also runs the 49th position. With AVX-512, blocks of 32
// filters in 4 groups: chunks of 64, tiles of 10 positions and one of 9.
// CHECK-LABEL: func.func @chunks_7x7
// AVX2:            scf.for %[[I:.+]] = %c0 to %c8 step %c1
// AVX2:              arith.divui %[[I]], %c2
// AVX2:              %[[GROUP:.+]] = arith.remui %[[I]], %c2
// AVX2:              %[[SCRATCH:.+]] = tensor.empty() : tensor<49x2x8xf32>
// AVX2:              %[[SUMS:.+]] = scf.for %[[C0:.+]] = %c0 to %c512 step %c128 iter_args(%{{.+}} = %[[SCRATCH]])
// AVX2:                scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c6 iter_args(%[[PART:.+]] = %{{.+}})
// AVX2:                  %[[FIRST:.+]] = arith.cmpi eq, %[[C0]], %c0
// AVX2:                  scf.if %[[FIRST]]
// AVX2:                  vector.transfer_read %[[PART]]{{.+}} : tensor<49x2x8xf32>, vector<6x2x8xf32>
// AVX2:                  scf.for %{{.+}} = %[[C0]] to %{{.+}} step %c1
// AVX2:                  vector.transfer_write {{.+}} : vector<6x2x8xf32>, tensor<49x2x8xf32>
// AVX2:                %[[LAST:.+]] = arith.cmpi eq, %[[GROUP]], %c1
// AVX2:                scf.if %[[LAST]]
// AVX2:                  scf.for %{{.+}} = %[[C0]] to %{{.+}} step %c1 iter_args({{[^)]+}}) -> (vector<8xf32>, vector<8xf32>) {
// AVX2:                  vector.transfer_write {{.+}} : vector<1x2x8xf32>, tensor<49x2x8xf32>
// AVX2:              scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c6
// AVX2-NOT:            scf.for
// AVX2:                vector.transfer_read %[[SUMS]]{{.+}} : tensor<49x2x8xf32>, vector<6x2x8xf32>
// AVX2-NOT:            scf.for
// AVX2:                vector.transfer_write {{.+}} : vector<16x6xf32>, tensor<1x64x49xf32>
// AVX2:              scf.if %{{.+}}
// AVX2:                vector.transfer_read %[[SUMS]]{{.+}} : tensor<49x2x8xf32>, vector<1x2x8xf32>
// AVX2-NOT:            scf.for
// AVX2:                vector.transfer_write {{.+}} : vector<16x1xf32>, tensor<1x64x49xf32>
// AVX2:            } {tessel.parallel}
// AVX512:          scf.for %[[I:.+]] = %c0 to %c8 step %c1
// AVX512:            arith.remui %[[I]], %c4
// AVX512:            tensor.empty() : tensor<49x2x16xf32>
// AVX512:            scf.for %{{.+}} = %c0 to %c512 step %c64
// AVX512:              scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c10
// AVX512:              scf.if
// AVX512:                vector.transfer_write {{.+}} : vector<9x2x16xf32>, tensor<49x2x16xf32>
// AVX512:            vector.transfer_write {{.+}} : vector<32x10xf32>, tensor<1x64x49xf32>
// AVX512:            scf.if
// AVX512:              vector.transfer_write {{.+}} : vector<32x9xf32>, tensor<1x64x49xf32>
// AVX512:          } {tessel.parallel}
func.func @chunks_7x7(%x: tensor<1x512x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = tessel.constant dense<0.5> : tensor<64x512x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<64xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<64x512x1x1xf32>, tensor<64xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// A padded 3x3 convolution, 128 channels, 32 filters on 26-wide rows: tiles
// of 2 vectors x 4 columns (9 lines of 16 weights and 3 x 1.5 input lines
// per channel for 72 multiply-adds: 24 bytes a cycle) in chunks of 16
// channels (24 KiB / (9 x 64 + 3 x 128) bytes). Every row runs 6 whole
// tiles and one of the 2 columns left (instead of one that overlaps).
// CHECK-LABEL: func.func @chunks_3x3_rows
// AVX2:          tensor.empty() : tensor<676x2x8xf32>
// AVX2:          scf.for %{{.+}} = %c0 to %c128 step %c16
// AVX2:            vector.transfer_write {{.+}} : vector<4x2x8xf32>, tensor<676x2x8xf32>
// AVX2:            vector.transfer_write {{.+}} : vector<2x2x8xf32>, tensor<676x2x8xf32>
// AVX2:          vector.transfer_write {{.+}} : vector<16x4xf32>, tensor<1x32x26x26xf32>
// AVX2:          vector.transfer_write {{.+}}, %c24] {{.+}} : vector<16x2xf32>, tensor<1x32x26x26xf32>
// AVX2:          return
func.func @chunks_3x3_rows(%x: tensor<1x128x26x26xf32>) -> tensor<1x32x26x26xf32> {
  %w = tessel.constant dense<0.5> : tensor<32x128x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<32xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x128x26x26xf32>, tensor<32x128x3x3xf32>, tensor<32xf32>) -> tensor<1x32x26x26xf32>
  return %0 : tensor<1x32x26x26xf32>
}

// -----

// 96 channels fit the L1 with their block's weights and input lines: one
// pass over all of them, with no scratch buffer, and the last tile
// overlaps.
// CHECK-LABEL: func.func @few_channels
// CHECK-NOT:     tensor.empty() : tensor<49x
// AVX2:          scf.for %{{.+}} = %c0 to %c96 step %c1
// AVX2:          arith.divui %c43, %c7
// CHECK-NOT:     tensor.empty() : tensor<49x
// CHECK:         return
func.func @few_channels(%x: tensor<1x96x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = tessel.constant dense<0.5> : tensor<64x96x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<64xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x96x7x7xf32>, tensor<64x96x1x1xf32>, tensor<64xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// One block of filters splits its positions among the threads instead:
// no chunks.
// CHECK-LABEL: func.func @one_filter_block
// CHECK-NOT:     tensor.empty() : tensor<49x
// AVX2:          scf.for %{{.+}} = %c0 to %c512 step %c1
// CHECK-NOT:     tensor.empty() : tensor<49x
// CHECK:         return
func.func @one_filter_block(%x: tensor<1x512x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x512x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x512x7x7xf32>, tensor<16x512x1x1xf32>, tensor<16xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// -----

// ResNet-50's 3x3 layers at 14 x 14, 256 -> 256, in channel chunks, with an
// overlapping last block of filters (from 232 with AVX2's blocks of 24,
// from 208 with AVX-512's 48). That block runs after the whole ones, in 8
// groups of rows, the loop over the groups the parallel one: each group
// runs every chunk over its own rows (split inside each chunk's pass
// instead, the partial sums moved from core to core at every chunk). With
// AVX-512 the 5 whole blocks are split into 2 groups each too (10
// iterations: 5 blocks on 2 threads ran 3 against 2).
// CHECK-LABEL: func.func @last_block_groups
// AVX2:          scf.for %{{.+}} = %c0 to %c240 step %c24
// AVX512:        scf.for %[[I:.+]] = %c0 to %c10 step %c1
// AVX512:          arith.remui %[[I]], %c2
// CHECK:         } {tessel.parallel}
// CHECK:         scf.for %[[G:.+]] = %c0 to %c8 step %c1
// AVX2:            arith.ceildivui %c232, %c24
// AVX512:          arith.ceildivui %c208, %c48
// CHECK-NOT:       tessel.parallel
// CHECK:           scf.for %[[C0:.+]] = %c0 to %c256 step
// CHECK-NOT:         tessel.parallel
// CHECK:             %[[TOP:.+]] = arith.cmpi eq, %[[G]], %c0
// CHECK:             scf.if %[[TOP]]
// CHECK-NOT:         tessel.parallel
// CHECK:             %[[BOTTOM:.+]] = arith.cmpi eq, %[[G]], %c7
// CHECK:             scf.if %[[BOTTOM]]
// CHECK-NOT:       tessel.parallel
// CHECK:         } {tessel.parallel}
// CHECK-NEXT:    scf.yield
func.func @last_block_groups(%x: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = tessel.constant dense<0.5> : tensor<256x256x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<256xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>, tensor<256xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}
