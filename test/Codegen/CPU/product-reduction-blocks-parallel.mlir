// RUN: tessel-opt %s \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8 fuse-epilogue l2-cache-bytes=524288}))" \
// RUN:   | FileCheck %s

// A product whose cache blocks split the reduction: ConvNeXt-T's second MLP
// layer, [196, 1536] x [1536, 384] + bias (its tessel-vectorize-contractions
// input), with Zen 3's 512 KiB L2: two blocks of 768, run in sequence,
// outermost. Inside them the loop over blocks of 28 rows is the parallel
// one (each iteration adds the block into its own rows). Before, no loop
// was marked (the fused epilogue's loops, which run once, cleared the
// product tile's marks) and the kernel ran on one thread: with 2 threads
// that layer took 2.98 ms, now 2.19 (Zen 3).
// CHECK-LABEL: func.func @mlp_out
// CHECK:         scf.for %{{.*}} = %c0 to %c1536 step %c768
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c196 step %c28
// CHECK:           } {tessel.parallel}
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NOT:     tessel.parallel
// CHECK:         return
func.func @mlp_out(%arg0: tensor<1x14x14x1536xf32>) -> (tensor<1x384x14x14xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant dense<0.25> : tensor<384xf32>
  %cst_1 = arith.constant dense<0.5> : tensor<1536x384xf32>
  %0 = tensor.empty() : tensor<1x14x14x384xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x14x14x384xf32>) -> tensor<1x14x14x384xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %cst_1 : tensor<1x14x14x1536xf32>, tensor<1536x384xf32>) outs(%1 : tensor<1x14x14x384xf32>) attrs =  {tessel.fusion_group = 0 : i64} {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %6 = arith.mulf %in, %in_2 : f32
    %7 = arith.addf %out, %6 : f32
    linalg.yield %7 : f32
  } -> tensor<1x14x14x384xf32>
  %3 = tensor.empty() : tensor<1x14x14x384xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %cst_0 : tensor<1x14x14x384xf32>, tensor<384xf32>) outs(%3 : tensor<1x14x14x384xf32>) attrs =  {tessel.fusion_group = 0 : i64} {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %6 = arith.addf %in, %in_2 : f32
    linalg.yield %6 : f32
  } -> tensor<1x14x14x384xf32>
  %5 = tensor.empty() : tensor<1x384x14x14xf32>
  %transposed = linalg.transpose ins(%4 : tensor<1x14x14x384xf32>) outs(%5 : tensor<1x384x14x14xf32>) permutation = [0, 3, 1, 2]  {tessel.fusion_group = 1 : i64}
  return %transposed : tensor<1x384x14x14xf32>
}

