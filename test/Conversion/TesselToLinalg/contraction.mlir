// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// MatMul and Gemm become one reduction generic over (batch..., m, n, k) that
// accumulates into a zero fill (MatMul, Gemm without C) or into beta * C.

// A rank-2 operand is shared by every batch: its map drops the batch loop.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME: (%[[A:.+]]: tensor<8x2x3xf32>, %[[B:.+]]: tensor<3x4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<8x2x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<8x2x3xf32>, tensor<3x4xf32>) outs(%[[ACC]] : tensor<8x2x4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[OUTV:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[OUTV]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @matmul_batched(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<8x2x4xf32> {
  %0 = tessel.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
  return %0 : tensor<8x2x4xf32>
}

// -----

// Batch dims broadcast both ways: a size-1 batch dim reads index 0.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d4, d3)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.+}} : tensor<4x5x2x6xf32>)
func.func @matmul_broadcast(%a: tensor<1x5x2x3xf32>, %b: tensor<4x1x3x6xf32>) -> tensor<4x5x2x6xf32> {
  %0 = tessel.matmul %a, %b : (tensor<1x5x2x3xf32>, tensor<4x1x3x6xf32>) -> tensor<4x5x2x6xf32>
  return %0 : tensor<4x5x2x6xf32>
}

// -----

// trans_a/trans_b swap the operand maps; the accumulator starts as
// beta * C broadcast to [M, N]; the product is scaled by alpha.
// CHECK-DAG: #[[$CMAP:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$AT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_alpha_beta
// CHECK-SAME: (%[[A:.+]]: tensor<3x2xf32>, %[[B:.+]]: tensor<4x3xf32>, %[[CV:.+]]: tensor<4xf32>)
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[$CMAP]], #[[$ID2]]], {{.*}} ins(%[[CV]] : tensor<4xf32>)
// CHECK: %[[BETA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: arith.mulf %{{.+}}, %[[BETA]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[$AT]], #[[$BT]], #[[$MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<3x2xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: %[[ALPHA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[P]], %[[ALPHA]] : f32
// CHECK: arith.addf %{{.+}}, %[[SCALED]] : f32
func.func @gemm_trans_alpha_beta(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = tessel.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// With the default alpha = beta = 1, C is copied as is and nothing scales.
// CHECK-DAG: #[[$CCOL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @gemm_defaults
// CHECK: linalg.generic {indexing_maps = [#[[$CCOL]], {{.+}}]
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], {{.+}}]
// CHECK-NOT: arith.constant
// CHECK: return
func.func @gemm_defaults(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = tessel.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// beta = 0 ignores C: the accumulator is a zero fill.
// CHECK-LABEL: func.func @gemm_beta_zero
// CHECK-SAME: %[[CV:[^:]+]]: tensor<2x4xf32>)
// CHECK-NOT: %[[CV]]
// CHECK: linalg.fill
// CHECK-NOT: %[[CV]]
// CHECK: return
func.func @gemm_beta_zero(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tessel.gemm %a, %b, %c {beta = 0.0 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Einsum: one generic whose loops are the output letters (parallel) then
// the summed letters (reduction); each operand reads its letters' loops.
// CHECK-DAG: #[[$EX:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$EY:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$EZ:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @einsum_batch_matmul
// CHECK: %[[ACC:.+]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[$EX]], #[[$EY]], #[[$EZ]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[ACC]] : tensor<5x2x4xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @einsum_batch_matmul(%x: tensor<5x2x3xf32>, %y: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = tessel.einsum %x, %y {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// A letter repeated within a term reads the diagonal; a single operand is
// accumulated as it is (no multiplication), integers with addi.
// CHECK-DAG: #[[$DIAG:.+]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-DAG: #[[$DOUT:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[$DIAG]], #[[$DOUT]]], iterator_types = ["parallel", "parallel"]}
// CHECK: ^bb0(%[[V:.+]]: i32, %[[A:.+]]: i32):
// CHECK-NEXT: %[[S:.+]] = arith.addi %[[A]], %[[V]] : i32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @einsum_diagonal(%x: tensor<3x5x5xi32>) -> tensor<3x5xi32> {
  %0 = tessel.einsum %x {equation = "Aii->Ai"} : (tensor<3x5x5xi32>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// A size-1 dimension under a larger letter broadcasts: it reads index 0.
// CHECK-DAG: #[[$EB:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @einsum_broadcast
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$EB]], #{{.+}}], iterator_types = ["parallel", "reduction"]}
func.func @einsum_broadcast(%x: tensor<4x3xf32>, %y: tensor<1x3xf32>) -> tensor<4xf32> {
  %0 = tessel.einsum %x, %y {equation = "ij,ij->i"} : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// bf16 (and f16) sum in f32, each operand extended, and round once at the
// end: a bf16 accumulator loses the sum's low bits at every step (and an
// AVX2 target has no bf16 reduction instruction).
// CHECK-LABEL: func.func @einsum_sum_bf16
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic
// CHECK-SAME: outs(%[[ACC]] : tensor<3xf32>)
// CHECK: ^bb0(%[[V:.+]]: bf16, %[[A:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[A]], %[[W]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<3xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @einsum_sum_bf16(%x: tensor<3x4xbf16>) -> tensor<3xbf16> {
  %0 = tessel.einsum %x {equation = "ij->i"} : (tensor<3x4xbf16>) -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// Integer MatMul multiplies and adds with muli/addi.
// CHECK-LABEL: func.func @matmul_i32
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
func.func @matmul_i32(%a: tensor<4x3xi32>, %b: tensor<3x2xi32>) -> tensor<4x2xi32> {
  %0 = tessel.matmul %a, %b : (tensor<4x3xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
