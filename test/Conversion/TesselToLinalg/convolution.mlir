// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// conv becomes tensor.pad (for pads) and one generic over
// (n, oc, oh, ow, c, kh, kw) whose input map applies strides and dilations;
// the accumulator is the bias broadcast along channels, or a zero fill.

// Pads are [top, left, bottom, right]: low [t, l], high [b, r] on H, W.
// CHECK-DAG: #[[$BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 3 + d6 * 2)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_strides_dilations_pads
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[WT:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 1, 2] high[0, 0, 0, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x9x11xf32>
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[$BIAS]], {{.+}}]{{.*}} ins(%[[B]] : tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %[[WT]] : tensor<1x3x9x11xf32>, tensor<4x3x3x3xf32>) outs(%[[ACC]] : tensor<1x4x4x3xf32>)
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: arith.addf %{{.+}}, %[[P]]
func.func @conv_strides_dilations_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x3xf32> {
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 2, 3>, pads = array<i64: 1, 2, 0, 1>, dilations = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// Grouped: filter oc reads input channel (oc floordiv OC/group) * C/group + c.
// No pads: no tensor.pad. No bias: a zero fill.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x5x5xf32>, %[[WT:.+]]: tensor<6x2x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[ACC:.+]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[$IN]],
// CHECK-SAME: ins(%[[X]], %[[WT]] : tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) outs(%[[ACC]] : tensor<1x6x3x3xf32>)
func.func @conv_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %0 = tessel.conv %x, %w {group = 2 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Depthwise (group = channels, one filter per group).
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: linalg.generic {indexing_maps = [#[[$IN]],
func.func @conv_depthwise(%x: tensor<1x3x4x4xf32>, %w: tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %0 = tessel.conv %x, %w {group = 3 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

// 3-D: one generic over (n, oc, od, oh, ow, c, kd, kh, kw); pads are all
// begins, then all ends.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 + d6, d3 * 2 + d7, d4 + d8 * 2)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8)>
// CHECK-LABEL: func.func @conv_3d
// CHECK: tensor.pad %{{.+}} low[0, 0, 1, 0, 0] high[0, 0, 0, 1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
func.func @conv_3d(%x: tensor<1x2x3x4x5xf32>, %w: tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x2x3xf32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 2, 1>, pads = array<i64: 1, 0, 0, 0, 1, 0>, dilations = array<i64: 1, 1, 2>} : (tensor<1x2x3x4x5xf32>, tensor<3x2x2x2x2xf32>) -> tensor<1x3x3x2x3xf32>
  return %0 : tensor<1x3x3x2x3xf32>
}

// -----

// conv_transpose: the weight [C, OC/g, K] becomes [OC, C/g, K] flipped; the
// input is spread by the stride into zeros (insert_slice with strides) at
// (K - 1) * dilation - pad, and a stride-1 convolution with the same
// dilation follows. 1-D, stride 2, pads 1/0, output_padding 1: extent
// (3 - 1) * 2 + 3 - 1 + 1 = 7, spread extent 7 + 2 = 9, first position 1.
// CHECK-DAG: #[[$FLIP:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, -d2 + 2)>
// CHECK-LABEL: func.func @conv_transpose_1d
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3xf32>, %[[W:.+]]: tensor<2x4x3xf32>)
// CHECK: %[[FLIPPED:.+]] = linalg.generic {indexing_maps = [#[[$FLIP]], {{.+}}]{{.*}} ins(%[[W]] : tensor<2x4x3xf32>) outs(%{{.+}} : tensor<4x2x3xf32>)
// CHECK: %[[ZEROS:.+]] = linalg.fill {{.*}} -> tensor<1x2x9xf32>
// CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 1] [1, 2, 3] [1, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%[[SPREAD]], %[[FLIPPED]] : tensor<1x2x9xf32>, tensor<4x2x3xf32>) outs(%{{.+}} : tensor<1x4x7xf32>)
func.func @conv_transpose_1d(%x: tensor<1x2x3xf32>, %w: tensor<2x4x3xf32>) -> tensor<1x4x7xf32> {
  %0 = tessel.conv_transpose %x, %w {strides = array<i64: 2>, pads = array<i64: 1, 0>, dilations = array<i64: 1>, output_padding = array<i64: 1>} : (tensor<1x2x3xf32>, tensor<2x4x3xf32>) -> tensor<1x4x7xf32>
  return %0 : tensor<1x4x7xf32>
}

// -----

// Grouped conv_transpose: filter o of the flipped weight reads input
// channel (o floordiv OCg) * Cg + c, output channel o mod OCg of the
// original. Pads larger than (K - 1) * dilation crop the input first.
// CHECK-DAG: #[[$FLIP:.+]] = affine_map<(d0, d1, d2) -> ((d0 floordiv 3) * 2 + d1, d0 mod 3, -d2 + 1)>
// CHECK-LABEL: func.func @conv_transpose_grouped_cropped
// CHECK: linalg.generic {indexing_maps = [#[[$FLIP]],
// CHECK: %[[CROP:.+]] = tensor.extract_slice %{{.+}}[0, 0, 2] [1, 4, 3] [1, 1, 1]
// CHECK: tensor.insert_slice %[[CROP]] into %{{.+}}[0, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<1x4x3xf32> into tensor<1x4x4xf32>
func.func @conv_transpose_grouped_cropped(%x: tensor<1x4x5xf32>, %w: tensor<4x3x2xf32>) -> tensor<1x6x3xf32> {
  %0 = tessel.conv_transpose %x, %w {group = 2 : i64, strides = array<i64: 1>, pads = array<i64: 3, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x4x5xf32>, tensor<4x3x2xf32>) -> tensor<1x6x3xf32>
  return %0 : tensor<1x6x3xf32>
}

// -----

// An integer convolution multiplies and adds with muli/addi.
// CHECK-LABEL: func.func @conv_i32
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
func.func @conv_i32(%x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

// A padded 1-D integer convolution pads with an integer zero.
// CHECK-LABEL: func.func @conv_i32_1d_padded
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: tensor.pad %{{.+}} low[0, 0, 1] high[0, 0, 1]
// CHECK: tensor.yield %[[ZERO]] : i32
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
func.func @conv_i32_1d_padded(%x: tensor<1x2x4xi32>, %w: tensor<3x2x3xi32>) -> tensor<1x3x4xi32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>} : (tensor<1x2x4xi32>, tensor<3x2x3xi32>) -> tensor<1x3x4xi32>
  return %0 : tensor<1x3x4xi32>
}

// -----

// float16 accumulates in f32 (the bias extended) and rounds once at the end.
// CHECK-LABEL: func.func @conv_f16_accumulates_in_f32
// CHECK: %[[ACC:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<2xf16>) outs(%{{.+}} : tensor<1x2x3xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x2x4xf16>, tensor<2x2x2xf16>) outs(%[[ACC]] : tensor<1x2x3xf32>)
// CHECK: %[[XW:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[WW:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[XW]], %[[WW]] : f32
// CHECK: arith.addf %{{.+}}, %[[P]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3xf32>) outs(%{{.+}} : tensor<1x2x3xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @conv_f16_accumulates_in_f32(%x: tensor<1x2x4xf16>, %w: tensor<2x2x2xf16>, %b: tensor<2xf16>) -> tensor<1x2x3xf16> {
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x2x4xf16>, tensor<2x2x2xf16>, tensor<2xf16>) -> tensor<1x2x3xf16>
  return %0 : tensor<1x2x3xf16>
}

// -----

// Channels last: the same loops (n, oc, oh, ow, c, kh, kw), the input and
// the output indexed [N, H, W, C]; the padding pads H and W; the bias
// broadcasts along the last dimension. The weights keep [OC, C, KH, KW].
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[$BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @conv_nhwc
// CHECK:       tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:       } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
// CHECK:       %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[$BIAS]], {{.+}}]{{.*}} ins(%arg2 : tensor<4xf32>) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK:       linalg.generic {indexing_maps = [#[[$IN]], #[[$W]], #[[$OUT]]]{{.*}} outs(%[[INIT]] : tensor<1x4x4x4xf32>)
func.func @conv_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}
