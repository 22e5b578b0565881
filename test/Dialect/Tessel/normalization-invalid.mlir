// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier and type-inference errors of the normalisation ops.

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.log_softmax' op axis 2 is out of range for rank 2}}
  %0 = tessel.log_softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @hardmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tessel.hardmax' op axis -1 is out of range for rank 2}}
  %0 = tessel.hardmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<1x3x4x4xf32>, %c: tensor<3xf32>, %d: tensor<4xf32>) {
  // expected-error @+2 {{per-channel operands must be 1-D with 3 elements of the input's type}}
  // expected-error @+1 {{'tessel.batch_norm' op failed to infer returned types}}
  %0 = tessel.batch_norm %x, %c, %c, %c, %d : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<3xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{input must have rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.batch_norm %x, %c, %c, %c, %c : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{input must have rank >= 3}}
  // expected-error @+1 {{'tessel.instance_norm' op failed to infer returned types}}
  %0 = tessel.instance_norm %x, %c, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{axis 2 is out of range}}
  // expected-error @+1 {{'tessel.layer_norm' op failed to infer returned types}}
  %0:3 = tessel.layer_norm %x, %s {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>) {
  // expected-error @+2 {{scale and bias must broadcast to the normalised dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = tessel.layer_norm %x, %s {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_stats(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'tessel.layer_norm' op inferred type(s) 'tensor<2x3xf32>', 'tensor<2x1xf32>', 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>', 'tensor<2xf32>', 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = tessel.layer_norm %x, %s {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}
