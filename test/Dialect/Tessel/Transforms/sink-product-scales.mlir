// RUN: tessel-opt %s --split-input-file --tessel-sink-product-scales | FileCheck %s

// Attention's scaled queries: the division moves to the product's result.
// CHECK-LABEL: func.func @scaled_queries
// CHECK-SAME:    (%[[Q:.*]]: tensor<4x8x2xf32>, %[[K:.*]]: tensor<4x2x8xf32>)
// CHECK:         %[[C:.*]] = tessel.constant dense<4.000000e+00> : tensor<f32>
// CHECK:         %[[P:.*]] = tessel.matmul %[[Q]], %[[K]]
// CHECK:         %[[S:.*]] = tessel.div %[[P]], %[[C]] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8x8xf32>
// CHECK:         return %[[S]]
func.func @scaled_queries(%q: tensor<4x8x2xf32>, %k: tensor<4x2x8xf32>) -> tensor<4x8x8xf32> {
  %c = tessel.constant dense<4.0> : tensor<f32>
  %0 = tessel.div %q, %c : (tensor<4x8x2xf32>, tensor<f32>) -> tensor<4x8x2xf32>
  %1 = tessel.matmul %0, %k : (tensor<4x8x2xf32>, tensor<4x2x8xf32>) -> tensor<4x8x8xf32>
  return %1 : tensor<4x8x8xf32>
}

// -----

// A scale on the right-hand side, constant first (c * y), of shape [1].
// CHECK-LABEL: func.func @scaled_rhs
// CHECK:         %[[P:.*]] = tessel.matmul %arg0, %arg1
// CHECK:         tessel.mul %[[P]], %{{.*}} : (tensor<3x5xf32>, tensor<1xf32>) -> tensor<3x5xf32>
func.func @scaled_rhs(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %c = tessel.constant dense<0.5> : tensor<1xf32>
  %0 = tessel.mul %c, %y : (tensor<1xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = tessel.matmul %x, %0 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}

// -----

// Both operands scaled (two dequantized 8-bit activations, attention's
// scores in a QDQ model): both scales move, and the product multiplies the
// centred integers, whose sums f32 holds exactly.
// CHECK-LABEL: func.func @both_scaled
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>)
// CHECK:         %[[P:.*]] = tessel.matmul %[[A]], %[[B]]
// CHECK:         %[[S:.*]] = tessel.mul %[[P]], %{{.*}} : (tensor<2x3x5xf32>, tensor<f32>)
// CHECK:         %[[T:.*]] = tessel.mul %[[S]], %{{.*}} : (tensor<2x3x5xf32>, tensor<f32>)
// CHECK:         return %[[T]]
func.func @both_scaled(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %sa = tessel.constant dense<0.25> : tensor<f32>
  %sb = tessel.constant dense<0.5> : tensor<f32>
  %0 = tessel.mul %a, %sa : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %1 = tessel.mul %b, %sb : (tensor<2x4x5xf32>, tensor<f32>) -> tensor<2x4x5xf32>
  %2 = tessel.matmul %0, %1 : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %2 : tensor<2x3x5xf32>
}

// -----

// Negative cases: a per-column scale (not one value), a scaled operand with
// a second user, a division by zero, and a scale that broadcasts x.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: tessel.matmul
// CHECK-NOT:     tessel.matmul
// CHECK:         return
func.func @kept(%x: tensor<3x4xf32>, %y: tensor<4x5xf32>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x4xf32>, tensor<3x5xf32>, tensor<1x3x5xf32>) {
  %cols = tessel.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %two = tessel.constant dense<2.0> : tensor<f32>
  %zero = tessel.constant dense<0.0> : tensor<f32>
  %0 = tessel.mul %x, %cols : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = tessel.matmul %0, %y : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %2 = tessel.mul %x, %two : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %3 = tessel.matmul %2, %y : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %4 = tessel.div %x, %zero : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %5 = tessel.matmul %4, %y : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %unit = tessel.constant dense<2.0> : tensor<1x1x1xf32>
  %7 = tessel.mul %x, %unit : (tensor<3x4xf32>, tensor<1x1x1xf32>) -> tensor<1x3x4xf32>
  %8 = tessel.matmul %7, %y : (tensor<1x3x4xf32>, tensor<4x5xf32>) -> tensor<1x3x5xf32>
  return %1, %3, %2, %5, %8 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x4xf32>, tensor<3x5xf32>, tensor<1x3x5xf32>
}
