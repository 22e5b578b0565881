// RUN: tessel-opt %s --split-input-file --tessel-fold-input-normalization --canonicalize | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-fold-input-normalization --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// (x - [1, 2]) / [2, 4] is a * x + b with a = [0.5, 0.25], b = [-0.5, -0.5].
// Unpadded: W' = W * a = [0.5, 0.25] per filter; bias' = bias + sum W * b =
// [1, 2] + (1 * -0.5 + 1 * -0.5) = [0, 1].
// CHECK-LABEL: func.func @sub_div_into_conv
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<{{\[}}{{\[}}{{\[}}[5.000000e-01]], {{\[}}[2.500000e-01]]], {{\[}}{{\[}}[5.000000e-01]], {{\[}}[2.500000e-01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = tessel.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT:     tessel.sub
// CHECK-NOT:     tessel.div
// CHECK:         return %[[Y]]
// LOC-LABEL: func.func @sub_div_into_conv
// LOC:         tessel.conv %arg0{{.*}} loc(#[[FUSED:.*]])
// LOC:       #[[SUB:.+]] = loc("sub")
// LOC:       #[[DIV:.+]] = loc("div")
// LOC:       #[[CONV:.+]] = loc("conv")
// LOC:       #[[FUSED]] = loc(fused[#[[SUB]], #[[DIV]], #[[CONV]]])
func.func @sub_div_into_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %std = tessel.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tessel.sub %x, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32> loc("sub")
  %1 = tessel.div %0, %std : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32> loc("div")
  %y = tessel.conv %1, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32> loc("conv")
  return %y : tensor<1x2x3x3xf32>
}

// -----

// A padded conv pads the normalised input with 0, the raw value -b / a =
// mean: the scale goes into the weights, the shift b / a = -mean stays on
// the input, the bias is unchanged.
// CHECK-LABEL: func.func @padded_conv_keeps_shift
// CHECK-DAG:     %[[SHIFT:.*]] = tessel.constant dense<{{\[}}{{\[}}{{\[}}[-1.000000e+00]], {{\[}}[-2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<{{\[}}{{\[}}{{\[}}[5.000000e-01]], {{\[}}[2.500000e-01]]]]> : tensor<1x2x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<3.000000e+00> : tensor<1xf32>
// CHECK:         %[[X:.*]] = tessel.add %arg0, %[[SHIFT]]
// CHECK:         %[[Y:.*]] = tessel.conv %[[X]], %[[W]], %[[B]] {{.*}}pads = array<i64: 1, 1, 1, 1>
// CHECK-NOT:     tessel.div
// CHECK:         return %[[Y]]
func.func @padded_conv_keeps_shift(%x: tensor<1x2x3x3xf32>) -> tensor<1x1x5x5xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %std = tessel.constant dense<[[[[2.0]], [[4.0]]]]> : tensor<1x2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<1x2x1x1xf32>
  %b = tessel.constant dense<3.0> : tensor<1xf32>
  %0 = tessel.sub %x, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.div %0, %std : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>, tensor<1xf32>) -> tensor<1x1x5x5xf32>
  return %y : tensor<1x1x5x5xf32>
}

// -----

// A padded conv after a pure scale (x / 255) folds whole: nothing shifts.
// CHECK-LABEL: func.func @padded_conv_scale_only
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<2.000000e+00> : tensor<1x1x3x3xf32>
// CHECK:         %[[Y:.*]] = tessel.conv %arg0, %[[W]], %{{.*}} {{.*}}pads = array<i64: 1, 1, 1, 1>
// CHECK:         return %[[Y]]
func.func @padded_conv_scale_only(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %k = tessel.constant dense<0.25> : tensor<f32>
  %w = tessel.constant dense<8.0> : tensor<1x1x3x3xf32>
  %0 = tessel.mul %x, %k : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// Depthwise (group 2): filter o reads channel o. x * [2, 3] + [1, -1]:
// W' = [1 * 2, 1 * 3], bias' = [1, -1] (taps of 1x1 weights of 1).
// CHECK-LABEL: func.func @mul_add_into_grouped_conv
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00]]], {{\[}}{{\[}}[3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:         tessel.conv %arg0, %[[W]], %[[B]] {{.*}}group = 2
func.func @mul_add_into_grouped_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %a = tessel.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %s = tessel.constant dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x1x1x1xf32>
  %0 = tessel.mul %a, %x : (tensor<2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.add %0, %s : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Gemm: y = 2 * ((x * [2, 3] + 1) @ B) + 0.5 * C. B' = B * a per row,
// C' = 0.5 * C + 2 * (1 * B[0, :] + 1 * B[1, :]) = [0.5 + 2 * 3, 0.5 + 2 * 3],
// beta = 1.
// CHECK-LABEL: func.func @mul_add_into_gemm
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<{{\[}}[2.000000e+00, 2.000000e+00], [6.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[C:.*]] = tessel.constant dense<6.500000e+00> : tensor<2xf32>
// CHECK:         tessel.gemm %arg0, %[[B]], %[[C]] {alpha = 2.000000e+00 : f32} :
func.func @mul_add_into_gemm(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %a = tessel.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %s = tessel.constant dense<1.0> : tensor<1xf32>
  %b = tessel.constant dense<[[1.0, 1.0], [2.0, 2.0]]> : tensor<2x2xf32>
  %c = tessel.constant dense<1.0> : tensor<1x2xf32>
  %0 = tessel.mul %x, %a : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %1 = tessel.add %0, %s : (tensor<1x2xf32>, tensor<1xf32>) -> tensor<1x2xf32>
  %y = tessel.gemm %1, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32}
      : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// trans_b: column n of B is B[n, :]. (x - 1) / 2: a = 0.5, b = -0.5;
// C' = sum_k B[n, k] * -0.5 = [-1.5, -3.5].
// CHECK-LABEL: func.func @sub_div_into_gemm_trans_b
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<{{\[}}[5.000000e-01, 1.000000e+00], [1.500000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[C:.*]] = tessel.constant dense<[-1.500000e+00, -3.500000e+00]> : tensor<2xf32>
// CHECK:         tessel.gemm %arg0, %[[B]], %[[C]] {{.*}}trans_b = true
func.func @sub_div_into_gemm_trans_b(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %one = tessel.constant dense<1.0> : tensor<f32>
  %two = tessel.constant dense<2.0> : tensor<f32>
  %b = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = tessel.sub %x, %one : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %1 = tessel.div %0, %two : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %y = tessel.gemm %1, %b {trans_b = true} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// 1 - x negates the scale: a = -1, b = 1; bias' = 1 * 1 = 1.
// CHECK-LABEL: func.func @constant_minus_input
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<-1.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK:         tessel.conv %arg0, %[[W]], %[[B]]
func.func @constant_minus_input(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %one = tessel.constant dense<1.0> : tensor<1xf32>
  %w = tessel.constant dense<1.0> : tensor<1x1x1x1xf32>
  %0 = tessel.sub %one, %x : (tensor<1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// Negative: the normalised input has a second user, so it must be kept.
// CHECK-LABEL: func.func @shared_normalizer
// CHECK:         %[[N:.*]] = tessel.sub %arg0
// CHECK:         tessel.conv %[[N]], %{{.*}}
// CHECK:         tessel.relu %[[N]]
func.func @shared_normalizer(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %0 = tessel.sub %x, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r = tessel.relu %0 : tensor<1x2x3x3xf32>
  return %y, %r : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Negative: the mean is an input, not a constant.
// CHECK-LABEL: func.func @non_constant_mean
// CHECK:         tessel.sub %arg0, %arg1
// CHECK:         tessel.conv
func.func @non_constant_mean(%x: tensor<1x2x3x3xf32>, %mean: tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %0 = tessel.sub %x, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Negative: the constant varies along the rows, not per channel.
// CHECK-LABEL: func.func @not_per_channel
// CHECK:         tessel.sub %arg0
// CHECK:         tessel.conv
func.func @not_per_channel(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %rows = tessel.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %0 = tessel.sub %x, %rows : (tensor<1x2x3x3xf32>, tensor<3x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Negative: k / x is not affine in x.
// CHECK-LABEL: func.func @constant_over_input
// CHECK:         tessel.div
// CHECK:         tessel.conv
func.func @constant_over_input(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %one = tessel.constant dense<1.0> : tensor<1xf32>
  %w = tessel.constant dense<1.0> : tensor<1x1x1x1xf32>
  %0 = tessel.div %one, %x : (tensor<1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  return %y : tensor<1x1x2x2xf32>
}

// -----

// Negative: a zero scale in front of a padded conv has no shift that does
// the same.
// CHECK-LABEL: func.func @zero_scale_padded
// CHECK:         tessel.mul
// CHECK:         tessel.add
// CHECK:         tessel.conv
func.func @zero_scale_padded(%x: tensor<1x2x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %a = tessel.constant dense<[[[[0.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %s = tessel.constant dense<1.0> : tensor<f32>
  %w = tessel.constant dense<1.0> : tensor<1x2x3x3xf32>
  %0 = tessel.mul %x, %a : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.add %0, %s : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// Negative: the conv's weights are an input.
// CHECK-LABEL: func.func @non_constant_weights
// CHECK:         tessel.sub
// CHECK:         tessel.conv
func.func @non_constant_weights(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %0 = tessel.sub %x, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Negative: the normaliser is not on a graph input (a relu comes first).
// CHECK-LABEL: func.func @not_on_an_input
// CHECK:         tessel.sub
// CHECK:         tessel.conv
func.func @not_on_an_input(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %r = tessel.relu %x : tensor<1x2x3x3xf32>
  %0 = tessel.sub %r, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %0, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Negative: the input's one user is the return (two operands, no result):
// nothing to fold, and nothing read past the op's results.
// CHECK-LABEL: func.func @returned_input
// CHECK:         return %arg0, %arg1
func.func @returned_input(%x: tensor<1x2x3x3xf32>, %y: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  return %x, %y : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// --preprocess's chain: the normaliser starts after the input's cast,
// transpose, reshape and crop (each with one user); it folds as on the
// input itself. Unpadded, so the shift goes into the bias as well.
// CHECK-LABEL: func.func @after_image_conversion
// CHECK:         %[[F:.*]] = tessel.cast %arg0
// CHECK:         %[[T:.*]] = tessel.transpose %[[F]]
// CHECK:         %[[R:.*]] = tessel.reshape %[[T]]
// CHECK:         %[[S:.*]] = tessel.slice %[[R]]
// CHECK:         %[[Y:.*]] = tessel.conv %[[S]]
// CHECK-NOT:     tessel.sub
// CHECK-NOT:     tessel.div
// CHECK:         return %[[Y]]
func.func @after_image_conversion(%x: tensor<4x4x2xui8>) -> tensor<1x2x3x3xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %std = tessel.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %f = tessel.cast %x to f32 : tensor<4x4x2xui8> -> tensor<4x4x2xf32>
  %t = tessel.transpose %f {perm = array<i64: 2, 0, 1>} : (tensor<4x4x2xf32>) -> tensor<2x4x4xf32>
  %r = tessel.reshape %t {shape = array<i64: 1, 2, 4, 4>} : (tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = tessel.slice %r {sizes = array<i64: 1, 2, 3, 3>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  %0 = tessel.sub %s, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.div %0, %std : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// A conversion whose value has a second user is not the input's own: the
// normaliser after it stays.
// CHECK-LABEL: func.func @conversion_with_two_users
// CHECK:         tessel.sub
// CHECK:         tessel.div
func.func @conversion_with_two_users(%x: tensor<1x2x3x3xui8>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %std = tessel.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %f = tessel.cast %x to f32 : tensor<1x2x3x3xui8> -> tensor<1x2x3x3xf32>
  %0 = tessel.sub %f, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.div %0, %std : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y, %f : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Padded, on a transposed input (an image's NHWC pixels made NCHW): the
// shift goes in front of the transpose, per channel on the axis the channels
// come from (-mean = [-1, -2] along the last axis), so that the conversion
// adds it and the conv reads the transpose.
// CHECK-LABEL: func.func @shift_before_transpose
// CHECK-DAG:     %[[SHIFT:.*]] = tessel.constant dense<{{\[}}{{\[}}{{\[}}[-1.000000e+00, -2.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK:         %[[F:.*]] = tessel.cast %arg0
// CHECK:         %[[A:.*]] = tessel.add %[[F]], %[[SHIFT]] : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>)
// CHECK:         %[[T:.*]] = tessel.transpose %[[A]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK:         %[[Y:.*]] = tessel.conv %[[T]]
// CHECK-NOT:     tessel.transpose
// CHECK:         return %[[Y]]
func.func @shift_before_transpose(%x: tensor<1x3x3x2xui8>) -> tensor<1x1x3x3xf32> {
  %mean = tessel.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %std = tessel.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %w = tessel.constant dense<1.0> : tensor<1x2x3x3xf32>
  %b = tessel.constant dense<3.0> : tensor<1xf32>
  %f = tessel.cast %x to f32 : tensor<1x3x3x2xui8> -> tensor<1x3x3x2xf32>
  %t = tessel.transpose %f {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  %0 = tessel.sub %t, %mean : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = tessel.div %0, %std : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = tessel.conv %1, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}
