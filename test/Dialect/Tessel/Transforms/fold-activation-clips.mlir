// RUN: tessel-opt %s --split-input-file --tessel-fold-activation-clips | FileCheck %s

// A ReLU6 after a ReLU: the clip's lower bound 0 already is the ReLU.
// CHECK-LABEL: func.func @clip_of_relu
// CHECK-SAME: (%[[X:.+]]: tensor<1x8xf32>)
// CHECK-NOT: tessel.relu
// CHECK: %[[Y:.+]] = tessel.clip %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: return %[[Y]]
func.func @clip_of_relu(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = tessel.relu %x : tensor<1x8xf32>
  %y = tessel.clip %r {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

// A ReLU after a clip: the clip's bounds are raised to 0; a missing lower
// bound becomes 0.
// CHECK-LABEL: func.func @relu_of_clip
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[Y:.+]] = tessel.clip %[[X]] {max = 2.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK-NOT: tessel.relu
// CHECK: return %[[Y]]
func.func @relu_of_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tessel.clip %x {min = -1.0 : f64, max = 2.0 : f64} : tensor<4xf32>
  %y = tessel.relu %c : tensor<4xf32>
  return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @relu_of_upper_clip
// CHECK: tessel.clip %{{.+}} {max = 3.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK-NOT: tessel.relu
func.func @relu_of_upper_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tessel.clip %x {max = 3.0 : f64} : tensor<4xf32>
  %y = tessel.relu %c : tensor<4xf32>
  return %y : tensor<4xf32>
}

// An upper bound below 0 clamps everything to 0.
// CHECK-LABEL: func.func @relu_of_negative_clip
// CHECK: tessel.clip %{{.+}} {max = 0.000000e+00 : f64, min = 0.000000e+00 : f64}
func.func @relu_of_negative_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tessel.clip %x {min = -5.0 : f64, max = -1.0 : f64} : tensor<4xf32>
  %y = tessel.relu %c : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_of_relu
// CHECK-SAME: (%[[X:.+]]: tensor<2x2xi32>)
// CHECK: %[[R:.+]] = tessel.relu %[[X]]
// CHECK-NOT: tessel.relu
// CHECK: return %[[R]]
func.func @relu_of_relu(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %a = tessel.relu %x : tensor<2x2xi32>
  %b = tessel.relu %a : tensor<2x2xi32>
  return %b : tensor<2x2xi32>
}

// -----

// Negative cases. A clip whose lower bound is below 0 (or missing) lets
// negative values through that the ReLU removed: both stay.
// CHECK-LABEL: func.func @clip_below_zero
// CHECK: tessel.relu
// CHECK: tessel.clip
func.func @clip_below_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tessel.relu %x : tensor<4xf32>
  %y = tessel.clip %r {min = -1.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @clip_without_min
// CHECK: tessel.relu
// CHECK: tessel.clip
func.func @clip_without_min(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tessel.relu %x : tensor<4xf32>
  %y = tessel.clip %r {max = 6.0 : f64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// The inner op has another user, which needs its own result: both stay.
// CHECK-LABEL: func.func @shared_relu
// CHECK: tessel.relu
// CHECK: tessel.clip
func.func @shared_relu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = tessel.relu %x : tensor<4xf32>
  %y = tessel.clip %r {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  return %y, %r : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @shared_clip
// CHECK: tessel.clip %{{.+}} {max = 2.000000e+00 : f64, min = -1.000000e+00 : f64}
// CHECK: tessel.relu
func.func @shared_clip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = tessel.clip %x {min = -1.0 : f64, max = 2.0 : f64} : tensor<4xf32>
  %y = tessel.relu %c : tensor<4xf32>
  return %y, %c : tensor<4xf32>, tensor<4xf32>
}
