// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Pooling pads the input (-inf for max, 0 for average) and reduces each
// window in one generic; average pooling then divides by a constant table of
// window sizes, one per output position.

// ceil_mode lets the last window run past the input: 5 -> 3 outputs with
// kernel 2, stride 2 needs one extra row and column of -inf end padding.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x5x5xf32>)
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PADDED:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEGINF]]
// CHECK: } : tensor<1x1x5x5xf32> to tensor<1x1x6x6xf32>
// CHECK: %[[INIT:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.+]] = linalg.fill ins(%[[INIT]] : f32)
// CHECK: %[[WINDOW:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %[[WINDOW]] : tensor<1x1x6x6xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x1x3x3xf32>)
// CHECK: arith.maximumf
func.func @max_pool_ceil_mode(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tessel.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Dilation scales the window loops in the input map.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 * 2, d3 + d5 * 2)>
// CHECK-LABEL: func.func @max_pool_dilated
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {indexing_maps = [#[[$IN]],
func.func @max_pool_dilated(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tessel.max_pool %x {kernel = array<i64: 2, 2>, dilations = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// count_include_pad: every 3x3 window over the padded 3x3 input counts 9.
// CHECK-LABEL: func.func @avg_pool_count_include_pad
// CHECK: tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUMS:.+]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[DIV:.+]] = arith.constant dense<9.000000e+00> : tensor<3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUMS]], %[[DIV]] : tensor<1x1x3x3xf32>, tensor<3x3xf32>)
// CHECK: arith.divf
func.func @avg_pool_count_include_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tessel.avg_pool %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Without count_include_pad only real elements count: corners 2x2, edges
// 2x3, the centre 3x3.
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK: %[[SUMS:.+]] = linalg.generic
// CHECK: %[[DIV:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUMS]], %[[DIV]] :
func.func @avg_pool_exclude_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tessel.avg_pool %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// ceil_mode's extra window is clipped to the input even with
// count_include_pad (no explicit pads): 2, 2, then 1 per dimension.
// CHECK-LABEL: func.func @avg_pool_ceil_mode
// CHECK: tensor.pad %{{.+}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: arith.constant dense<{{\[}}[4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
func.func @avg_pool_ceil_mode(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tessel.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, count_include_pad = true, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Global average: sum H and W into [N, C], divide by H * W = 20, expand back.
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$NC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x5xf32>)
// CHECK: %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$NC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4x5xf32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[MEANS:.+]] = linalg.generic {{.*}} ins(%[[SUMS]] : tensor<2x3xf32>)
// CHECK: %[[N:.+]] = arith.constant 2.000000e+01 : f32
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MEANS]] {{\[}}[0], [1, 2, 3]] output_shape [2, 3, 1, 1] : tensor<2x3xf32> into tensor<2x3x1x1xf32>
// CHECK: return %[[R]]
func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = tessel.global_average_pool %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

// 3-D: the window loops are (kd, kh, kw); the divisor table is the outer
// product of per-dimension tap counts (kernel 2, stride 2, one end pad
// along D: the last window along D counts 1 real element).
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-LABEL: func.func @avg_pool_3d
// CHECK: tensor.pad %{{.+}} low[0, 0, 0, 0, 0] high[0, 0, 1, 0, 0]
// CHECK: %[[SUMS:.+]] = linalg.generic {indexing_maps = [#[[$IN]],
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: %[[DIV:.+]] = arith.constant dense<{{\[}}{{\[}}[8.000000e+00]], {{\[}}[4.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SUMS]], %[[DIV]] : tensor<1x1x2x1x1xf32>, tensor<2x1x1xf32>)
func.func @avg_pool_3d(%x: tensor<1x1x3x2x2xf32>) -> tensor<1x1x2x1x1xf32> {
  %0 = tessel.avg_pool %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 1, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x1x3x2x2xf32>) -> tensor<1x1x2x1x1xf32>
  return %0 : tensor<1x1x2x1x1xf32>
}

// -----

// Unsigned max pooling starts from 0 and compares unsigned.
// CHECK-LABEL: func.func @max_pool_u8
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
func.func @max_pool_u8(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %0 = tessel.max_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  return %0 : tensor<1x1x2x2xui8>
}

// -----

// Channels last: the window reduction indexes [N, H, W, C] (same loops),
// padding pads H and W; the average's divisor table is [OH, OW, 1].
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 + d4, d3 + d5, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @avg_pool_nhwc
// CHECK:       tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:       linalg.generic {indexing_maps = [#[[$IN]], {{.+}}, #[[$OUT]]]
// CHECK:       arith.constant dense<{{.*}}> : tensor<3x3x1xf32>
func.func @avg_pool_nhwc(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = tessel.avg_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, layout = #tessel.layout<nhwc>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// Channels last, the global average reduces H and W ((n, c) parallel at
// dimensions 0 and 3) and expands [N, C] to [N, 1, 1, C].
// CHECK-DAG: #[[$SUM:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @global_average_pool_nhwc
// CHECK:       linalg.generic {indexing_maps = [{{.+}}, #[[$SUM]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// CHECK:       arith.constant 2.000000e+01 : f32
// CHECK:       tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2, 3]] output_shape [1, 1, 1, 3] : tensor<1x3xf32> into tensor<1x1x1x3xf32>
func.func @global_average_pool_nhwc(%x: tensor<1x4x5x3xf32>) -> tensor<1x1x1x3xf32> {
  %0 = tessel.global_average_pool %x {layout = #tessel.layout<nhwc>} : (tensor<1x4x5x3xf32>) -> tensor<1x1x1x3xf32>
  return %0 : tensor<1x1x1x3xf32>
}

// -----

// f16 average pooling sums in f32: each tap extended, the divisors f32, the
// mean rounded once to f16.
// CHECK-LABEL: func.func @avg_pool_f16
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x1x3x3xf32>)
// CHECK: %[[SUMS:.+]] = linalg.generic
// CHECK-SAME: outs(%[[ACC]] : tensor<1x1x3x3xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f16, %{{.+}}: f32, %[[OUT:.+]]: f32):
// CHECK:   %[[E:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK:   arith.addf %[[OUT]], %[[E]] : f32
// CHECK: arith.constant dense<{{.+}}> : tensor<3x3xf32>
// CHECK: linalg.generic
// CHECK:   %[[M:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK:   arith.truncf %[[M]] : f32 to f16
func.func @avg_pool_f16(%x: tensor<1x1x3x3xf16>) -> tensor<1x1x3x3xf16> {
  %0 = tessel.avg_pool %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = false, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf16>) -> tensor<1x1x3x3xf16>
  return %0 : tensor<1x1x3x3xf16>
}

// -----

// bf16 global average pooling sums in f32 too.
// CHECK-LABEL: func.func @global_average_pool_bf16
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @global_average_pool_bf16(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x1x1xbf16> {
  %0 = tessel.global_average_pool %x : (tensor<1x2x4x4xbf16>) -> tensor<1x2x1x1xbf16>
  return %0 : tensor<1x2x1x1xbf16>
}
