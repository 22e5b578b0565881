// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// conv2d becomes tensor.pad (for pads) and one generic over
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
  %0 = tessel.conv2d %x, %w, %b {strides = array<i64: 2, 3>, pads = array<i64: 1, 2, 0, 1>, dilations = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x3xf32>
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
  %0 = tessel.conv2d %x, %w {group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Depthwise (group = channels, one filter per group).
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: linalg.generic {indexing_maps = [#[[$IN]],
func.func @conv_depthwise(%x: tensor<1x3x4x4xf32>, %w: tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %0 = tessel.conv2d %x, %w {group = 3 : i64} : (tensor<1x3x4x4xf32>, tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

// An integer convolution multiplies and adds with muli/addi.
// CHECK-LABEL: func.func @conv_i32
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
func.func @conv_i32(%x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32> {
  %0 = tessel.conv2d %x, %w : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}
