// RUN: tessel-opt %s --tessel-entry-abi --split-input-file --verify-diagnostics

// The entry ABI needs exactly one entry function with static tensor types.

// expected-error @+1 {{expected exactly one function marked 'tessel.entry', found 0}}
module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{expected exactly one function marked 'tessel.entry', found 2}}
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
    return %x : tensor<4xf32>
  }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{entry argument 0 must be a statically shaped tensor}}
func.func @dynamic_input(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {tessel.entry} {
  return %x : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{entry result 0 must be a statically shaped tensor}}
func.func @unranked_result(%x: tensor<4xf32>) -> tensor<*xf32> attributes {tessel.entry} {
  %0 = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// expected-error @+1 {{entry argument 1 must be a statically shaped tensor}}
func.func @scalar_input(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> attributes {tessel.entry} {
  return %x : tensor<4xf32>
}

// -----

// A declaration has no body to rewrite.
// expected-error @+1 {{the entry function has no body}}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry}

// -----

// A signature recorded earlier must still describe the entry function.
// expected-error @+1 {{the recorded 'tessel.signature' does not match the entry function's inputs and results}}
module attributes {tessel.signature = {inputs = [], name = "m", outputs = []}} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{does not describe the entry argument of type 'tensor<4xf32>'}}
module attributes {tessel.signature = {inputs = [{name = "x", type = tensor<4xui32>}], name = "m", outputs = [{name = "y", type = tensor<4xf32>}]}} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
    return %x : tensor<4xf32>
  }
}
