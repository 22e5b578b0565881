// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier and type-inference errors of the gather, slice, broadcast, tile and
// pad ops.


func.func @gather_axis(%x: tensor<4x6xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{axis 2 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gather %x, %i {axis = 2 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_elements_extent(%x: tensor<4x2xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+2 {{indices extent 3 exceeds the input's 2 in dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.gather_elements %x, %i {axis = 0 : i64} : (tensor<4x2xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_out_of_range(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{dimension 1: the slice from 5 by 1 for 2 elements leaves the extent 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.slice %x {starts = array<i64: 0, 5>, sizes = array<i64: 4, 2>, steps = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{dimension 0: steps must be non-zero and sizes >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 4, 6>, steps = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @broadcast_mismatch(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{the input does not broadcast to [4, 5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.broadcast_to %x {shape = array<i64: 4, 5>} : (tensor<4x6xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @tile_negative(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{repeats [2, -1] are negative or too large}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.tile %x {repeats = array<i64: 2, -1>} : (tensor<4x6xf32>) -> tensor<8x6xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{expected ::mlir::tessel::PadMode to be one of: constant, reflect, edge}}
  // expected-error @+1 {{failed to parse Tessel_PadModeAttr parameter 'value'}}
  %0 = tessel.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = #tessel.pad_mode<wrap>} : (tensor<4x6xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @pad_reflect_too_wide(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{reflect padding of 2 needs an extent above it, dimension 1 has 2}}
  %0 = tessel.pad %x {pads = array<i64: 0, 2, 0, 0>, mode = #tessel.pad_mode<reflect>} : (tensor<4x2xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_too_large(%x: tensor<1xf32>) {
  // expected-error @+2 {{the shape [1048576, 1048576, 2] is too large}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tessel.broadcast_to %x {shape = array<i64: 1048576, 1048576, 2>} : (tensor<1xf32>) -> tensor<1048576x1048576x2xf32>
  return
}
