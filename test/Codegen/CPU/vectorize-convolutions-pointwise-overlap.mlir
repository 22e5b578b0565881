// RUN: tessel-opt %s --pass-pipeline="builtin.module(func.func(tessel-convert-tessel-to-linalg),canonicalize,func.func(tessel-vectorize-convolutions{vector-width=8 accumulators=12}))" | FileCheck %s --enable-var-scope

// A 1x1 convolution on a 7x7 map (49 positions, no multiple of a vector:
// it runs over filters) with AVX2's 16 registers. Its positions share no
// input, so a tile's broadcasts are used as they are read: 2 vectors x 6
// positions (12 accumulators, 2 weight vectors, 2 broadcasts) fit, the
// last tile starting at 49 - 6 = 43 and overlapping the one before.
// Counting one live broadcast per position, 2 x 6 took 20 registers and
// the plan fell back to the 7 positions that divide 49 (7 accumulators).
// CHECK-LABEL: func.func @pointwise_7x7
// CHECK:         scf.for %{{.+}} = %c0 to %c48 step %c6
// CHECK:           scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:           vector.transfer_write %{{.+}} : vector<16x6xf32>, tensor<1x16x49xf32>
// CHECK:         arith.divui %c43, %c7
func.func @pointwise_7x7(%x: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = tessel.constant dense<0.5> : tensor<16x16x1x1xf32>
  %b = tessel.constant dense<1.0> : tensor<16xf32>
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x7x7xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}
