// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier and type-inference errors of the reduction ops.

func.func @axes_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axes [2] must be strictly increasing and in [0, 2)}}
  // expected-error @+1 {{'tessel.reduce_sum' op failed to infer returned types}}
  %0 = tessel.reduce_sum %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @axes_not_normalised(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axes [1, 0] must be strictly increasing and in [0, 2)}}
  // expected-error @+1 {{'tessel.reduce_max' op failed to infer returned types}}
  %0 = tessel.reduce_max %x {axes = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axes [-1] must be strictly increasing and in [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'tessel.reduce_prod' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @l2_of_integers(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'tessel.reduce_l2' op operand #0 must be ranked tensor of floating-point values}}
  %0 = tessel.reduce_l2 %x {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return
}

// -----

func.func @arg_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'tessel.arg_max' op failed to infer returned types}}
  %0 = tessel.arg_max %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @arg_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.arg_min' op result #0 must be tensor of 64-bit signless integer values}}
  %0 = tessel.arg_min %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}
