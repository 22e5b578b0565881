// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg | FileCheck %s

// softmax along axis 1 of a 3-D tensor: max-reduce, exp(x - max),
// sum-reduce, divide; the reductions drop the axis and the two elementwise
// generics read them broadcast along it.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax_middle_axis
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[MAXINIT]] : tensor<2x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3x4xf32>, tensor<2x4xf32>)
// CHECK: %[[D:.+]] = arith.subf
// CHECK: math.exp %[[D]]
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[EXP]] : tensor<2x3x4xf32>) outs(%[[SUMINIT]] : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$ID]]], {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x3x4xf32>, tensor<2x4xf32>)
// CHECK: arith.divf
// CHECK: return %[[R]]
func.func @softmax_middle_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tessel.softmax %x {axis = 1 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
