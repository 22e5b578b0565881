// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier and type-inference errors of the elementwise ops beyond arithmetic.

func.func @math_on_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tessel.exp' op operand #0 must be ranked tensor of floating-point values}}
  %0 = tessel.exp %x : tensor<4xi32>
  return
}

// -----

func.func @not_on_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tessel.not' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = tessel.not %x : tensor<4xf32>
  return
}

// -----

func.func @is_nan_result(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tessel.is_nan' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'tessel.is_nan' op failed to infer returned types}}
  %0 = tessel.is_nan %x : (tensor<4xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'f64'}}
  // expected-error @+1 {{'tessel.less' op failed to infer returned types}}
  %0 = tessel.less %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tessel.equal' op result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = tessel.equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @pow_shapes(%a: tensor<2x3xf32>, %e: tensor<4xi32>) {
  // expected-error @+2 {{shapes 2x3 and 4 do not broadcast}}
  // expected-error @+1 {{'tessel.pow' op failed to infer returned types}}
  %0 = tessel.pow %a, %e : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pow_result_base_type(%a: tensor<3xf32>, %e: tensor<3xi32>) {
  // expected-error @+2 {{'tessel.pow' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{'tessel.pow' op failed to infer returned types}}
  %0 = tessel.pow %a, %e : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @where_condition(%c: tensor<3xf32>, %x: tensor<3xf32>) {
  // expected-error @+1 {{'tessel.where' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = tessel.where %c, %x, %x : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<4x1x1xf32>) {
  // expected-error @+2 {{'tessel.where' op inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'tessel.where' op failed to infer returned types}}
  %0 = tessel.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<4x1x1xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<3xf32>) {
  // expected-error @+2 {{'tessel.cast' op inferred type(s) 'tensor<3xi32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'tessel.cast' op failed to infer returned types}}
  %0 = tessel.cast %x to i32 : tensor<3xf32> -> tensor<4xi32>
  return
}

// -----

func.func @bit_shift_float(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tessel.bit_shift' op operand #0 must be ranked tensor of}}
  %0 = tessel.bit_shift %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @activation_attribute(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tessel.leaky_relu' op requires attribute 'alpha'}}
  %0 = tessel.leaky_relu %x : tensor<3xf32>
  return
}
