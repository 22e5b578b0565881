// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Verifier errors of tessel.fused and tessel.yield.

func.func @yield_type_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.fused' op yields 'tensor<4xf32>' as value #0 but result #0 is 'tensor<4xf16>'}}
  %y = tessel.fused "elementwise" -> tensor<4xf16> {
    %r = tessel.relu %x : tensor<4xf32>
    tessel.yield %r : tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// -----

func.func @yield_count_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.fused' op yields 0 values but has 1 results}}
  %y = tessel.fused "elementwise" -> tensor<4xf32> {
    %r = tessel.relu %x : tensor<4xf32>
    tessel.yield
  }
  return %y : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.yield' op expects parent op 'tessel.fused'}}
  tessel.yield %x : tensor<4xf32>
}

// -----

func.func @no_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.fused' op region must end with 'tessel.yield'}}
  %y = "tessel.fused"() ({
    %r = tessel.relu %x : tensor<4xf32>
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %y : tensor<4xf32>
}
