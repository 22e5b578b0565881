// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier and type-inference errors of the scan, selection, one-hot,
// gather-nd and scatter ops.

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  %a = tessel.constant dense<-3> : tensor<i64>
  // expected-error @+1 {{axis is out of range for rank 2}}
  %0 = tessel.cumsum %x, %a : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{k = 4 is not in [0, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = tessel.top_k %x {axis = 1 : i64, k = 4 : i64, largest = true} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return
}

// -----

func.func @gather_nd_batch(%x: tensor<2x3xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+2 {{batch dimension 0 differs between input and indices}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3xf32>, tensor<3x1xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @scatter_reduction(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::ScatterReduction to be one of: none, add, mul, max, min}}
  // expected-error @+1 {{failed to parse Tessel_ScatterReductionAttr parameter 'value'}}
  %0 = tessel.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tessel.scatter_reduction<sub>} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_bool_reduction(%x: tensor<2x3xi1>, %i: tensor<2x2xi64>, %u: tensor<2x2xi1>) {
  // expected-error @+1 {{reduction 'add' on bool is not supported}}
  %0 = tessel.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tessel.scatter_reduction<add>} : (tensor<2x3xi1>, tensor<2x2xi64>, tensor<2x2xi1>) -> tensor<2x3xi1>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<2x3xf32>, %i: tensor<1x1xi64>, %u: tensor<1x2xf32>) {
  // expected-error @+2 {{updates must have shape indices.shape[:-1] + input.shape[m:]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.scatter_nd %x, %i, %u : (tensor<2x3xf32>, tensor<1x1xi64>, tensor<1x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @one_hot_values(%i: tensor<3xi64>, %v: tensor<3xf32>) {
  // expected-error @+2 {{values must hold two elements [off, on]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64} : (tensor<3xi64>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}
