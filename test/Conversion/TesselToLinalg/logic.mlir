// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Comparisons yield i1: ordered float predicates, signed integer ones.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<2x3xi1>)
// CHECK: arith.cmpf ole, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpi sgt, %{{.+}}, %{{.+}} : i64
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xi1>, tensor<4xi1>) {
  %0 = tessel.less_or_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = tessel.greater %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0, %1 : tensor<2x3xi1>, tensor<4xi1>
}

// -----

// Where reads three broadcast operands.
// CHECK-DAG: #[[$COND:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[$COND]], #[[$ROW]], #[[$ID]], #[[$ID]]]
// CHECK: ^bb0(%[[C:.+]]: i1, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: arith.select %[[C]], %[[X]], %[[Y]] : f32
func.func @where(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @logical
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tessel.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = tessel.or %0, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = tessel.xor %1, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %2 : tensor<4xi1>
}
