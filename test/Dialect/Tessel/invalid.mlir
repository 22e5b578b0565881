// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Every verifier and type-inference error of the tessel dialect.

func.func @broadcast_mismatch(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{'tessel.add' op failed to infer returned types}}
  %0 = tessel.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'i32'}}
  // expected-error @+1 {{'tessel.mul' op failed to infer returned types}}
  %0 = tessel.mul %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @result_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'tessel.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{'tessel.add' op failed to infer returned types}}
  %0 = tessel.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @unary_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.relu' op requires the same type for all operands and results}}
  %0 = "tessel.relu"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contracting dimensions differ: 2x3 and 4x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error @+2 {{batch dimensions of 2x2x3 and 3x3x4 do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{operands must have rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gemm_inner(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{inner dimensions differ: op(A) is 2x3, op(B) is 4x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gemm %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm_c_shape(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{C of shape 3 does not broadcast to 2x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<1x2x4xf32>) {
  // expected-error @+2 {{C of shape 1x2x4 does not broadcast to 2x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @conv_group(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{group 4 must divide the 6 input channels and the 4 filters}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w {group = 4 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{weight has 2 channels per filter, expected 3 (input channels / group)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{bias must be a 1-D tensor of 4 elements of the input's type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_layout_name(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::Layout to be one of: nchw, nhwc}}
  // expected-error @+1 {{failed to parse Tessel_LayoutAttr parameter 'value'}}
  %0 = tessel.conv %x, %w {layout = #tessel.layout<nchwc>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// The modes are enum attributes: a string is refused.
func.func @conv_layout_string(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'layout' failed to satisfy constraint: activation layout: nchw or nhwc}}
  %0 = tessel.conv %x, %w {layout = "nhwc", strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @pool_layout_rank(%x: tensor<1x3x8xf32>) {
  // expected-error @+2 {{layout nhwc needs a 4-D input, not 3-D}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.max_pool %x {layout = #tessel.layout<nhwc>, kernel = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x3x8xf32>) -> tensor<1x3x7xf32>
  return
}

// -----

func.func @conv_nhwc_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{weight has 2 channels per filter, expected 3 (input channels / group)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w {layout = #tessel.layout<nhwc>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{window of extent 3 (dilation 1) does not fit input extent 2 with pads 0, 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x4x4x4xf32>) {
  // expected-error @+2 {{window of extent 5 (dilation 1) does not fit input extent 4 with pads 0, 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.max_pool %x {kernel = array<i64: 5, 5>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @pool_negative_pads(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{pads must be >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.avg_pool %x {kernel = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x7xf32>
  return
}

// -----

func.func @pool_attr_sizes(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{expects 2 kernel extents, 2 strides, 4 pads and 2 dilations (one per spatial dimension)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.max_pool %x {kernel = array<i64: 2, 2>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x9x9xf32>
  return
}

// -----

func.func @pool_zero_stride(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{kernel, strides and dilations must be >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot reshape 2x3 (6 elements) to 4x2 (8 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.reshape %x {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{shape -1x3 must be static and non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.reshape %x {shape = array<i64: -1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm [0, 0, 1] is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.transpose %x {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm must have one entry per dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{input shapes 2x3 and 2x4 differ outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+2 {{inputs must share rank and element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis -1 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.concat %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.softmax' op axis 2 is out of range for rank 2}}
  %0 = tessel.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.softmax' op axis -1 is out of range for rank 2}}
  %0 = tessel.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @gap_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{input must have rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.global_average_pool %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'tessel.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "tessel.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @sigmoid_int(%x: tensor<2xi32>) {
  // expected-error @+1 {{'tessel.sigmoid' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2xi32>'}}
  %0 = tessel.sigmoid %x : tensor<2xi32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<2x2x3x3xf32>) {
  // expected-error @+2 {{weight has 2 input channels, the input 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_transpose_pads(%x: tensor<1x1x1x1xf32>, %w: tensor<1x1x1x1xf32>) {
  // expected-error @+2 {{pads 1, 0 leave no output along spatial dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+2 {{input must have rank >= 3 ([N, C, spatial dimensions...])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<2x2xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::InterpolationMode to be one of: nearest, linear, cubic}}
  // expected-error @+1 {{failed to parse Tessel_InterpolationModeAttr parameter 'value'}}
  %0 = tessel.resize %x {mode = #tessel.interpolation<area>, scales = array<f64: 1.0, 2.0>, sizes = array<i64: 2, 4>} : (tensor<2x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @resize_roi(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{tf_crop_and_resize needs a roi of 4 entries}}
  %0 = tessel.resize %x {coordinate_transformation_mode = #tessel.coordinate_mode<tf_crop_and_resize>, scales = array<f64: 1.0, 2.0>, sizes = array<i64: 2, 4>} : (tensor<2x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @resize_sizes(%x: tensor<2x2xf32>) {
  // expected-error @+2 {{sizes and scales need one entry per dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.resize %x {scales = array<f64: 2.0>, sizes = array<i64: 2, 4>} : (tensor<2x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @grid_sample_mode(%x: tensor<1x1x2x2xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::InterpolationMode to be one of: nearest, linear, cubic}}
  // expected-error @+1 {{failed to parse Tessel_InterpolationModeAttr parameter 'value'}}
  %0 = tessel.grid_sample %x, %g {mode = #tessel.interpolation<area>} : (tensor<1x1x2x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @grid_sample_padding(%x: tensor<1x1x2x2xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::GridPaddingMode to be one of: zeros, border, reflection}}
  // expected-error @+1 {{failed to parse Tessel_GridPaddingModeAttr parameter 'value'}}
  %0 = tessel.grid_sample %x, %g {padding_mode = #tessel.grid_padding<wrap>} : (tensor<1x1x2x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @grid_sample_5d(%x: tensor<1x1x2x2x2xf32>, %g: tensor<1x3x3x3x3xf32>) {
  // expected-error @+2 {{only a 4-D input (N, C, H, W) and a 4-D grid (N, Hout, Wout, 2) are supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.grid_sample %x, %g : (tensor<1x1x2x2x2xf32>, tensor<1x3x3x3x3xf32>) -> tensor<1x1x3x3x3xf32>
  return
}

// -----

func.func @grid_sample_last_dim(%x: tensor<1x1x2x2xf32>, %g: tensor<1x3x3x3xf32>) {
  // expected-error @+2 {{the grid's last dimension must be 2, not 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.grid_sample %x, %g : (tensor<1x1x2x2xf32>, tensor<1x3x3x3xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @grid_sample_batch(%x: tensor<2x1x2x2xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{the input has batch 2 but the grid 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.grid_sample %x, %g : (tensor<2x1x2x2xf32>, tensor<1x3x3x2xf32>) -> tensor<2x1x3x3xf32>
  return
}

// -----

func.func @grid_sample_empty_image(%x: tensor<1x1x0x2xf32>, %g: tensor<1x3x3x2xf32>) {
  // expected-error @+2 {{cannot sample an empty image}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.grid_sample %x, %g : (tensor<1x1x0x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @einsum_no_output(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{the equation must give its output after '->'}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ij"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_term_count(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{the equation has 2 input terms for 1 operands}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @einsum_term_rank(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{term 'ijk' has 3 letters for an operand of rank 2}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @einsum_sizes(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{letter 'j' has sizes 3 and 4}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @einsum_not_letter(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'.' is not a letter}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "i.->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @einsum_unknown_output(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{output letter 'k' occurs in no operand}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ij->k"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @einsum_repeated_output(%a: tensor<2x2xf32>) {
  // expected-error @+2 {{output letter 'i' is repeated}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ij->ii"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @einsum_bool(%a: tensor<2x2xi1>) {
  // expected-error @+2 {{boolean operands are not supported}}
  // expected-error @+1 {{'tessel.einsum' op failed to infer returned types}}
  %0 = tessel.einsum %a {equation = "ij->i"} : (tensor<2x2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @matmul_bool(%a: tensor<2x2xi1>) {
  // expected-error @+2 {{boolean operands are not supported}}
  // expected-error @+1 {{'tessel.matmul' op failed to infer returned types}}
  %0 = tessel.matmul %a, %a : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}

// -----

func.func @conv_bool(%x: tensor<1x1x3x3xi1>, %w: tensor<1x1x2x2xi1>) {
  // expected-error @+2 {{boolean operands are not supported}}
  // expected-error @+1 {{'tessel.conv' op failed to infer returned types}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xi1>, tensor<1x1x2x2xi1>) -> tensor<1x1x2x2xi1>
  return
}
