// RUN: tessel-opt %s --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=16 accumulators=24}))" | FileCheck %s
// RUN: tessel-opt %s --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=16 accumulators=24 fuse-epilogue=false}))" | FileCheck %s --check-prefix=NOFUSE

// A 3x3 convolution's 13x13 = 169 output positions: the largest tile that
// divides them is 13 positions (13 accumulators). The accumulators start
// from the bias, so a tile may compute positions twice: 15 positions
// (15 of the 16 accumulators counted useful, 180 positions computed for
// 169: more useful work per step than 13 of 16) tile the first 165 in a
// loop, and one more tile starts at 169 - 15 = 154, overlapping the
// previous one. Each tile is stored into the output viewed as
// [1, 16, 169], 15 positions per filter.
// CHECK-LABEL: func.func @overlapping_last_tile
// CHECK:         %[[PLANE:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<1x16x13x13xf32> into tensor<1x16x169xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c165 step %c15
// CHECK:           vector.transfer_write {{.*}} : vector<16x15xf32>, tensor<1x16x169xf32>
// CHECK:         %[[ROW:.*]] = arith.divui %c154, %c13
// CHECK:         %[[COL:.*]] = arith.remui %c154, %c13
// CHECK:         %[[ROWSTART:.*]] = arith.muli %[[ROW]], %c13
// CHECK:         %[[AT:.*]] = arith.addi %[[ROWSTART]], %[[COL]]
// CHECK:         vector.transfer_write %{{.*}}[%{{.*}}, %{{.*}}, %[[AT]]] {{.*}} : vector<16x15xf32>, tensor<1x16x169xf32>
// CHECK:         tensor.expand_shape
// CHECK-NOT:     linalg.generic

// Without the bias fused, the accumulators start from the output's
// values, which a position computed twice would add twice: the tiles
// divide the positions (13 of them).
// NOFUSE-LABEL: func.func @overlapping_last_tile
// NOFUSE:         scf.for %{{.*}} = %c0 to %c169 step %c13
// NOFUSE-NOT:     %c154
func.func @overlapping_last_tile(%x: tensor<1x3x15x15xf32>) -> tensor<1x16x13x13xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x3x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x15x15xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x13x13xf32>
  return %0 : tensor<1x16x13x13xf32>
}
