// The register tile's rows come from the cost model (estimateTileStepCycles,
// tessel/Codegen/CPU/TargetInfo.h), read with the core's throughput. A
// [128, 512] x [512, 784] product (a 28 x 28 plane's pointwise convolution,
// NCHW) has columns that only one-vector tiles divide (784 = 49 x 16):
// - on a core with two FMA units of latency 4 (an Intel server core, the
//   pass's defaults), 4 rows leave the units half idle, and the tile takes
//   16 rows (16 accumulators);
// - on one with a single FMA unit (Zen 4's 512-bit FMA), 4 accumulators
//   just cover the latency, which leaves no cycle for the step's loads
//   (estimateTileStepCycles counts the latency plus one): 16 rows as well.
// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16}))" \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16 fmas-per-cycle=1 loads-per-cycle=2}))" \
// RUN:   | FileCheck %s --check-prefix=ONE
// Products whose widest tile already fills the accumulators (4 vectors x 4
// rows) are the same on both.
// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=16 accumulators=16 fmas-per-cycle=1 loads-per-cycle=2}))" \
// RUN:   | FileCheck %s --check-prefix=WIDE

// TWO-LABEL: func.func @plane_784
// TWO:         scf.for %{{.*}} = %c0 to %c784 step %c16
// TWO:           scf.for %{{.*}} = %c0 to %c128 step %c16
// TWO:             vector.contract {{.*}} vector<16x1xf32>, vector<1x16xf32> into vector<16x16xf32>
// ONE-LABEL: func.func @plane_784
// ONE:         scf.for %{{.*}} = %c0 to %c784 step %c16
// ONE:           scf.for %{{.*}} = %c0 to %c128 step %c16
// ONE:             vector.contract {{.*}} vector<16x1xf32>, vector<1x16xf32> into vector<16x16xf32>
func.func @plane_784(%w: tensor<128x512xf32>, %x: tensor<512x784xf32>, %init: tensor<128x784xf32>) -> tensor<128x784xf32> {
  %0 = linalg.matmul ins(%w, %x : tensor<128x512xf32>, tensor<512x784xf32>)
      outs(%init : tensor<128x784xf32>) -> tensor<128x784xf32>
  return %0 : tensor<128x784xf32>
}

// WIDE-LABEL: func.func @plane_3136
// WIDE:         vector.contract {{.*}} into vector<4x64xf32>
func.func @plane_3136(%w: tensor<64x256xf32>, %x: tensor<256x3136xf32>, %init: tensor<64x3136xf32>) -> tensor<64x3136xf32> {
  %0 = linalg.matmul ins(%w, %x : tensor<64x256xf32>, tensor<256x3136xf32>)
      outs(%init : tensor<64x3136xf32>) -> tensor<64x3136xf32>
  return %0 : tensor<64x3136xf32>
}
