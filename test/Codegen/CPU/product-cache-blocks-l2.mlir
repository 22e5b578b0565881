// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8}))" \
// RUN:   | FileCheck %s --check-prefix=ONE-MIB
// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8 l2-cache-bytes=524288}))" \
// RUN:   | FileCheck %s --check-prefix=HALF-MIB

// The L2 decides which products run in cache blocks: operands over twice
// the core's L2 (at most 2 MiB) do. [240, 512] x [512, 512] takes 1.5 MiB:
// unblocked with a 1 MiB L2 (Zen 4, the default), where the 6 x 16
// register tiles walk all 240 rows of a 16-column strip; blocked with Zen
// 3's 512 KiB, where the strip's right-hand side block is copied and the
// rows run in blocks of 120.

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
// ONE-MIB-LABEL: func.func @product
// ONE-MIB-NOT:     linalg.copy
// ONE-MIB-NOT:     arith.constant 120 : index
// ONE-MIB:         scf.for {{.*}} step %c1 {{.*}} -> (tensor<240x512xf32>, vector<6x16xf32>)
// ONE-MIB-NOT:     linalg.copy

// HALF-MIB-LABEL: func.func @product
// HALF-MIB-DAG:     %[[C16:.*]] = arith.constant 16 : index
// HALF-MIB-DAG:     %[[C120:.*]] = arith.constant 120 : index
// HALF-MIB:         scf.for %[[J:.*]] = {{.*}} step %[[C16]]
// HALF-MIB:           linalg.copy {tessel.in_kernel} ins(%{{.*}} : tensor<512x16xf32>)
// HALF-MIB:           scf.for {{.*}} step %[[C120]]
func.func @product(%a: tensor<240x512xf32>, %b: tensor<512x512xf32>,
                   %c: tensor<240x512xf32>) -> tensor<240x512xf32> {
  %0 = linalg.generic {indexing_maps = [#mA, #mB, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<240x512xf32>, tensor<512x512xf32>) outs(%c : tensor<240x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<240x512xf32>
  return %0 : tensor<240x512xf32>
}
