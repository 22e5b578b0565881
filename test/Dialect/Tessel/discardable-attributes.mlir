// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// The discardable tessel.* attributes passes put on other dialects' ops are
// declared by the dialect: a known name with the right type verifies, an
// unknown name or a wrong type does not.

module attributes {tessel.model_name = "m", tessel.workspace_size = 64 : i64} {
  func.func @main(%x: tensor<4xf32> {tessel.name = "x"}, %v: tensor<2xi64> {tessel.name = "v", tessel.fixed_value = dense<[1, 2]> : tensor<2xi64>}) -> (tensor<4xf32> {tessel.name = "y"}) attributes {tessel.entry} {
    %e = tensor.empty() {tessel.fusion_group = 3 : i64} : tensor<4xf32>
    return %x : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{unknown tessel attribute 'tessel.fusion_groups' on an operation}}
func.func @typo() attributes {tessel.fusion_groups = 1 : i64} {
  return
}

// -----

func.func @group_not_integer() {
  // expected-error @+1 {{'tessel.fusion_group' on an operation must be an i64 integer, not "a"}}
  %e = tensor.empty() {tessel.fusion_group = "a"} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'tessel.entry' on an operation must be a unit attribute, not 1 : i64}}
func.func @entry_not_unit() attributes {tessel.entry = 1} {
  return
}

// -----

// expected-error @+1 {{'tessel.name' on an argument must be a string, not 3 : i64}}
func.func @name_not_string(%x: tensor<4xf32> {tessel.name = 3}) {
  return
}

// -----

// expected-error @+1 {{unknown tessel attribute 'tessel.shape' on a result}}
func.func @unknown_result_attr(%x: tensor<4xf32>) -> (tensor<4xf32> {tessel.shape = "4"}) {
  return %x : tensor<4xf32>
}

// -----

// What passes report is a remark, never an attribute.
// expected-error @+1 {{unknown tessel attribute 'tessel.kernels' on an operation}}
func.func @report_as_attribute() attributes {tessel.kernels = []} {
  return
}
