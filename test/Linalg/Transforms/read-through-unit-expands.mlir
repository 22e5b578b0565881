// RUN: tessel-opt %s --split-input-file --tessel-read-through-unit-expands | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#rowb = affine_map<(d0, d1) -> (d0, 0)>

// A row mean, expanded to 16x1, read broadcast by the subtraction: the
// subtraction reads the mean itself.
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_mean
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<16x32xf32>, tensor<16xf32>)
func.func @row_mean(%x: tensor<16x32xf32>, %mean: tensor<16xf32>) -> tensor<16x32xf32> {
  %m = tensor.expand_shape %mean [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %d = linalg.generic {indexing_maps = [#id, #rowb, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<16x32xf32>, tensor<16x1xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An elementwise op over the 16x1 tensor itself (epsilon and square root)
// reads the 16 values through its unit loop.
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$ROW2:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @unit_loop
// CHECK:         linalg.generic {indexing_maps = [#[[$ROW2]], #[[$ID2]]]
// CHECK-SAME:      ins(%arg0 : tensor<16xf32>) outs(%{{.*}} : tensor<16x1xf32>)
func.func @unit_loop(%var: tensor<16xf32>) -> tensor<16x1xf32> {
  %v = tensor.expand_shape %var [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %e = tensor.empty() : tensor<16x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<16x1xf32>) outs(%e : tensor<16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  return %s : tensor<16x1xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// A product's result stays read through its expand (the product's epilogue
// fusion absorbs the expand); an expand that splits a dimension is no
// unit-dimension expand.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[P:.*]] = tensor.expand_shape
// CHECK:         %[[S:.*]] = tensor.expand_shape
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<1x4x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<2x2x8xf32>)
func.func @kept(%a: tensor<4x3xf32>, %b: tensor<3x8xf32>, %c: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> (tensor<1x4x8xf32>, tensor<2x2x8xf32>) {
  %p = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x3xf32>, tensor<3x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %pe = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf32> into tensor<1x4x8xf32>
  %ce = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x8xf32>
  %e1 = tensor.empty() : tensor<1x4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%pe : tensor<1x4x8xf32>) outs(%e1 : tensor<1x4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8xf32>
  %e2 = tensor.empty() : tensor<2x2x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ce : tensor<2x2x8xf32>) outs(%e2 : tensor<2x2x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  return %r1, %r2 : tensor<1x4x8xf32>, tensor<2x2x8xf32>
}
