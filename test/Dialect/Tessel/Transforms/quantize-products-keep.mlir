// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=apply scales=0.5,0.25 zero-points=3,128 keep=mm2" \
// RUN:   | FileCheck %s --check-prefix=KEEP
// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=apply scales=0.5,0.25 zero-points=3,128 keep=mm1,mm2" \
// RUN:   | FileCheck %s --check-prefix=KEEPBOTH
// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=apply scales=0.5,0.25 zero-points=3,128 keep=mm2" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=simulate scales=0.5,0.25 zero-points=3,128" \
// RUN:   | FileCheck %s --check-prefix=SIM

// Two products read %r, a third reads %in2. Keeping mm2 in f32: mm2 reads
// %r itself and keeps f32 weights, mm1 and the add still read %r
// quantized, mm3 is quantized as before.
// KEEP-LABEL: func.func @keep
// KEEP:         %[[W:.*]] = tessel.constant dense<1.000000e+00> : tensor<4x2xf32>
// KEEP:         %[[R:.*]] = tessel.relu
// KEEP:         tessel.cast %{{.*}} to ui8
// KEEP:         %[[X:.*]] = tessel.mul %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<f32>)
// KEEP:         tessel.add %[[X]], %[[X]]
// KEEP:         tessel.constant dense<127> : tensor<4x2xi8>
// KEEP:         tessel.matmul %[[X]], %{{.*}} :
// KEEP-NEXT:    tessel.matmul %[[R]], %[[W]] :
// KEEP-NEXT:    tessel.constant dense<127> : tensor<4x2xi8>
// Keeping both readers of %r: it is not quantized at all.
// KEEPBOTH-LABEL: func.func @keep
// KEEPBOTH:         %[[W:.*]] = tessel.constant dense<1.000000e+00> : tensor<4x2xf32>
// KEEPBOTH-NEXT:    %[[R:.*]] = tessel.relu
// KEEPBOTH-NEXT:    tessel.add %[[R]], %[[R]]
// KEEPBOTH-NEXT:    tessel.matmul %[[R]], %[[W]] :
// KEEPBOTH-NEXT:    tessel.matmul %[[R]], %[[W]] :
// KEEPBOTH-NEXT:    tessel.constant dense<127> : tensor<4x2xi8>
// REMARK: remark: loc(fused<"MatMul">["mm2"]): [Analysis] full-precision-product | Category:tessel | Function=keep | reason="kept in FP32 (--keep-fp32, or the accuracy budget's choice)"
// REMARK-NOT: full-precision-product
func.func @keep(%in: tensor<1x4xf32>, %in2: tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x4xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = tessel.constant dense<1.0> : tensor<4x2xf32>
  %r = tessel.relu %in : tensor<1x4xf32>
  %a = tessel.add %r, %r : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = tessel.matmul %r, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> loc(fused<"MatMul">["mm1"])
  %y1 = tessel.matmul %r, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> loc(fused<"MatMul">["mm2"])
  %y2 = tessel.matmul %in2, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> loc(fused<"MatMul">["mm3"])
  return %y, %a, %y1, %y2 : tensor<1x2xf32>, tensor<1x4xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

// mode=simulate: one mask argument per product, with its nodes and
// multiply-adds; each product reads its activation blended by its mask,
// the add by the largest mask of %r's products, and each product's result
// gets its mask times the product with the weights' quantization error
// (1 - 127/127 * ... = 0 here: all weights are their channel's maximum).
// SIM-LABEL: func.func @keep
// SIM-SAME:    %[[M0:[a-z0-9]+]]: tensor<1xf32> {tessel.multiply_adds = 8 : i64, tessel.name = "precision_mask_0", tessel.nodes = ["mm1"]}
// SIM-SAME:    %[[M1:[a-z0-9]+]]: tensor<1xf32> {tessel.multiply_adds = 8 : i64, tessel.name = "precision_mask_1", tessel.nodes = ["mm2"]}
// SIM-SAME:    %[[M2:[a-z0-9]+]]: tensor<1xf32> {tessel.multiply_adds = 8 : i64, tessel.name = "precision_mask_2", tessel.nodes = ["mm3"]}
// SIM:         %[[R:.*]] = tessel.relu
// SIM:         %[[Q:.*]] = tessel.mul %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<f32>)
// SIM:         %[[D:.*]] = tessel.sub %[[Q]], %[[R]]
// SIM:         %[[S0:.*]] = tessel.mul %[[D]], %[[M0]]
// SIM:         %[[X0:.*]] = tessel.add %[[R]], %[[S0]]
// SIM:         %[[S1:.*]] = tessel.mul %[[D]], %[[M1]]
// SIM:         %[[X1:.*]] = tessel.add %[[R]], %[[S1]]
// SIM:         %[[ANY:.*]] = tessel.max %[[M0]], %[[M1]]
// SIM:         %[[SA:.*]] = tessel.mul %[[D]], %[[ANY]]
// SIM:         %[[XA:.*]] = tessel.add %[[R]], %[[SA]]
// SIM:         tessel.add %[[XA]], %[[XA]]
// SIM:         %[[Y0:.*]] = tessel.matmul %[[X0]], %{{.*}}
// SIM:         %[[C0:.*]] = tessel.matmul %[[X0]], %{{.*}}
// SIM:         %[[T0:.*]] = tessel.mul %[[C0]], %[[M0]]
// SIM:         %[[O0:.*]] = tessel.add %[[Y0]], %[[T0]]
// SIM:         tessel.matmul %[[X1]]
// SIM:         return %[[O0]],
