// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8 accumulators=12}))" | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=16 accumulators=24}))" | FileCheck %s --check-prefix=WIDE --enable-var-scope

// A 7x7, stride-2 convolution (a ResNet stem's shape, smaller) on AVX2's 16
// registers: unrolled, the input values that several taps read (a stride
// smaller than the window) would stay live across tap columns: 2 x 5
// positions x 8 filters take 10 accumulators, 2 weight vectors and 8
// broadcasts, 20 live vectors. So the inner tiles (columns 5..14: their
// taps all read inside the padded row) loop over the 7 tap columns, in a
// loop that LLVM is told not to unroll: per tap column, 2 weight vectors,
// and one broadcast per position used by two FMAs as it is read.
// CHECK-DAG:     #[[$UNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG:     #[[$KEEP:.+]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// CHECK-LABEL:   func.func @stem_avx2
// CHECK:           scf.for %{{.*}} = %c5 to %c15 step %c5
// CHECK:             scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:               scf.for %[[KW:.+]] = %c0 to %c7 step %c1 iter_args(
// CHECK-COUNT-2:         vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}, %c0, %[[KW]], %{{.*}}]
// CHECK-COUNT-5:         tensor.extract
// CHECK-NOT:             tensor.extract
// CHECK:                 scf.yield
// CHECK-NEXT:          } {loop_annotation = #[[$KEEP]]}
// The edge tiles (columns 0..4 and 15..19) leave out the taps in the
// padding: unrolled.

// With AVX-512's 32 registers, the unrolled taps fit (1 x 10 positions x
// 16 filters: 10 accumulators, 1 weight vector, 18 broadcasts, 29 live
// vectors): no loop.
// WIDE-LABEL:    func.func @stem_avx2
// WIDE-NOT:      {loop_annotation
func.func @stem_avx2(%x: tensor<1x3x40x40xf32>) -> tensor<1x16x20x20xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x3x7x7xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x40x40xf32>, tensor<16x3x7x7xf32>, tensor<16xf32>) -> tensor<1x16x20x20xf32>
  return %0 : tensor<1x16x20x20xf32>
}

// -----

// A 3x3 window unrolls its taps whatever they keep live: a loop of 3 tap
// columns ran slower.
// CHECK-LABEL:   func.func @narrow_window
// CHECK-NOT:       {loop_annotation
func.func @narrow_window(%x: tensor<1x16x20x20xf32>) -> tensor<1x16x20x20xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x16x3x3xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x20x20xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x20x20xf32>
  return %0 : tensor<1x16x20x20xf32>
}

// -----

// A patch embedding (16x16 windows, stride 16: no two windows share an
// input) loops over its tap columns whatever the registers: unrolled, the
// planner counts one live broadcast per position and would keep tiles of
// 3 positions; looped, each broadcast is used as it is read, and the tiles
// take 2 vectors x 6 positions (12 accumulators; the last of 16 positions'
// tiles overlaps the one before it).
// CHECK-LABEL:   func.func @patch_embedding
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK:             scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:               scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:                 scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:                   scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:                   } {loop_annotation = #[[$KEEP]]}
// With AVX-512's 32 registers too.
// WIDE-LABEL:    func.func @patch_embedding
// WIDE:          {loop_annotation =
func.func @patch_embedding(%x: tensor<1x3x64x64xf32>) -> tensor<1x32x4x4xf32> {
  %w = tessel.constant dense<0.5> : tensor<32x3x16x16xf32>
  %b = tessel.constant dense<1.0> : tensor<32xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 16, 16>} : (tensor<1x3x64x64xf32>, tensor<32x3x16x16xf32>, tensor<32xf32>) -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}
