// mode=simulate (--accuracy-budget's search build): each product moved
// gets a mask input, precision_mask_<k>, named after its nodes and
// multiply-adds, that selects its f16 result (mask 1) or its f32 one (0),
// both computed. keep=<node> keeps a product f32 in either mode.
// RUN: tessel-opt %s --tessel-low-precision-products="element=f16 mode=simulate keep=mm2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIMULATE
// SIMULATE-LABEL: func.func @simulate
// SIMULATE-SAME:    (%[[X:.*]]: tensor<4x64xf32>, %[[M:.*]]: tensor<1xf32> {tessel.multiply_adds = 4096 : i64, tessel.name = "precision_mask_0", tessel.nodes = ["mm1"]})
// SIMULATE-DAG:     %[[F32:.*]] = tessel.matmul %[[X]], %{{.*}} : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
// SIMULATE-DAG:     %[[P:.*]] = tessel.matmul %{{.*}}, %{{.*}} : (tensor<4x64xf16>, tensor<64x16xf16>) -> tensor<4x16xf16>
// SIMULATE-DAG:     %[[LOW:.*]] = tessel.cast %[[P]] to f32
// SIMULATE-DAG:     %[[ON:.*]] = tessel.greater %[[M]], %{{.*}} : (tensor<1xf32>, tensor<f32>) -> tensor<1xi1>
// SIMULATE-DAG:     %[[Y:.*]] = tessel.where %[[ON]], %[[LOW]], %[[F32]]
// SIMULATE-DAG:     %[[Z:.*]] = tessel.matmul %[[X]], %{{.*}} : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
// SIMULATE:         return %[[Y]], %[[Z]]
// RUN: tessel-opt %s --tessel-low-precision-products="element=f16 keep=mm2" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// KEEP: remark: {{.*}}[Analysis] full-precision-product | Category:tessel | Function=simulate | reason="kept in FP32 (--keep-fp32, or the accuracy budget's choice)"
// RUN: not tessel-opt %s --tessel-low-precision-products="element=f16 keep=relu" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADKEEP
// BADKEEP: error: --keep-fp32 names 'relu', which is no product's node (a Conv, MatMul or Gemm)
func.func @simulate(%x: tensor<4x64xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = tessel.constant dense<0.5> : tensor<64x16xf32>
  %y = tessel.matmul %x, %w : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32> loc(fused<"MatMul">["mm1"])
  %v = tessel.constant dense<0.25> : tensor<64x16xf32>
  %z = tessel.matmul %x, %v : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32> loc(fused<"MatMul">["mm2"])
  return %y, %z : tensor<4x16xf32>, tensor<4x16xf32>
}
