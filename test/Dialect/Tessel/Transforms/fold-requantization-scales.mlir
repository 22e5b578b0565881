// RUN: tessel-opt %s --split-input-file --tessel-fold-requantization-scales | FileCheck %s

// An integer product's epilogue (tessel-integer-products'): its scale per
// tensor, its scale per column and its bias, a ReLU, then the next
// quantization's division. The division goes into the bias and one
// multiplier per column: 0.5 * [1, 0.25, 2, 3] / 0.25 and [1, 2, -1, 0.5] / 0.25.
// CHECK-LABEL: func.func @product_epilogue
// CHECK-SAME:    (%[[P:.*]]: tensor<2x4xi32>)
// CHECK-DAG:     %[[M:.*]] = tessel.constant dense<[2.000000e+00, 5.000000e-01, 4.000000e+00, 6.000000e+00]> : tensor<4xf32>
// CHECK-DAG:     %[[B:.*]] = tessel.constant dense<[4.000000e+00, 8.000000e+00, -4.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         %[[S:.*]] = tessel.mul %[[F]], %[[M]] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[A:.*]] = tessel.add %[[S]], %[[B]]
// CHECK:         %[[R:.*]] = tessel.relu %[[A]]
// CHECK:         %[[Q:.*]] = tessel.round %[[R]]
// CHECK:         return %[[Q]]
// CHECK-NOT:     tessel.div
func.func @product_epilogue(%p: tensor<2x4xi32>) -> tensor<2x4xf32> {
  %sa = tessel.constant dense<0.5> : tensor<f32>
  %sw = tessel.constant dense<[1.0, 0.25, 2.0, 3.0]> : tensor<4xf32>
  %b = tessel.constant dense<[1.0, 2.0, -1.0, 0.5]> : tensor<4xf32>
  %c = tessel.constant dense<0.25> : tensor<f32>
  %0 = tessel.cast %p to f32 : tensor<2x4xi32> -> tensor<2x4xf32>
  %1 = tessel.mul %0, %sa : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %2 = tessel.mul %1, %sw : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = tessel.add %2, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %4 = tessel.relu %3 : tensor<2x4xf32>
  %5 = tessel.div %4, %c : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %6 = tessel.round %5 : tensor<2x4xf32>
  return %6 : tensor<2x4xf32>
}

// -----

// Constants on either side of the commutative ops, broadcast from [1, 1, 3]
// and [1]: the multiplier is [1, 1, 3]. It is computed in double and
// rounded once: 0.7 * [1, 2, 3] / 0.7 (f32 constants) is [1, 2, 3], where
// f32 steps (3 / 0.7, then * 0.7) give 2.9999998 for the last.
// CHECK-LABEL: func.func @constants_first
// CHECK:         %[[M:.*]] = tessel.constant dense<[{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00]]]> : tensor<1x1x3xf32>
// CHECK:         tessel.mul %{{.*}}, %[[M]] : (tensor<2x2x3xf32>, tensor<1x1x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NOT:     tessel.div
func.func @constants_first(%p: tensor<2x2x3xi32>) -> tensor<2x2x3xf32> {
  %sa = tessel.constant dense<0.7> : tensor<1xf32>
  %sw = tessel.constant dense<[[[1.0, 2.0, 3.0]]]> : tensor<1x1x3xf32>
  %c = tessel.constant dense<0.7> : tensor<f32>
  %0 = tessel.cast %p to f32 : tensor<2x2x3xi32> -> tensor<2x2x3xf32>
  %1 = tessel.mul %sa, %0 : (tensor<1xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %2 = tessel.mul %sw, %1 : (tensor<1x1x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %3 = tessel.div %2, %c : (tensor<2x2x3xf32>, tensor<f32>) -> tensor<2x2x3xf32>
  return %3 : tensor<2x2x3xf32>
}

// -----

// A dequantized 8-bit value, ReLU, quantized again (a QDQ model's Relu
// between two QuantizeLinear): the dequantization's scale takes the
// division, 0.5 / 0.25.
// CHECK-LABEL: func.func @requantized_relu
// CHECK:         %[[M:.*]] = tessel.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[F:.*]] = tessel.cast %arg0 to f32
// CHECK:         %[[C:.*]] = tessel.sub %[[F]], %{{.*}}
// CHECK:         %[[S:.*]] = tessel.mul %[[C]], %[[M]]
// CHECK:         tessel.relu %[[S]]
// CHECK-NOT:     tessel.div
func.func @requantized_relu(%q: tensor<8xui8>) -> tensor<8xf32> {
  %z = tessel.constant dense<3.0> : tensor<f32>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %c = tessel.constant dense<0.25> : tensor<f32>
  %0 = tessel.cast %q to f32 : tensor<8xui8> -> tensor<8xf32>
  %1 = tessel.sub %0, %z : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = tessel.mul %1, %s : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = tessel.relu %2 : tensor<8xf32>
  %4 = tessel.div %3, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// A quantization of f32 values (not integers made real) keeps its
// division: ONNX's QuantizeLinear divides.
// CHECK-LABEL: func.func @float_activation
// CHECK:         tessel.mul
// CHECK:         tessel.div
func.func @float_activation(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = tessel.constant dense<0.5> : tensor<f32>
  %c = tessel.constant dense<0.25> : tensor<f32>
  %0 = tessel.mul %x, %s : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = tessel.div %0, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Kept: a divisor per channel, a negative one, a zero one (the division
// is a quantization's only with one positive scale).
// CHECK-LABEL: func.func @divisors
// CHECK-COUNT-3: tessel.div
func.func @divisors(%p: tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %s = tessel.constant dense<0.5> : tensor<f32>
  %perChannel = tessel.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %negative = tessel.constant dense<-0.25> : tensor<f32>
  %zero = tessel.constant dense<0.0> : tensor<f32>
  %0 = tessel.cast %p to f32 : tensor<2x4xi32> -> tensor<2x4xf32>
  %1 = tessel.mul %0, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %2 = tessel.div %1, %perChannel : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = tessel.mul %0, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %4 = tessel.div %3, %negative : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %5 = tessel.mul %0, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %6 = tessel.div %5, %zero : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %2, %4, %6 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Kept: a scaled value read elsewhere too (the division would change what
// that reader sees), and a residual add of two activations (no constant
// to divide).
// CHECK-LABEL: func.func @shared_and_residual
// CHECK-COUNT-2: tessel.div
func.func @shared_and_residual(%p: tensor<8xi32>, %r: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %s = tessel.constant dense<0.5> : tensor<f32>
  %c = tessel.constant dense<0.25> : tensor<f32>
  %0 = tessel.cast %p to f32 : tensor<8xi32> -> tensor<8xf32>
  %1 = tessel.mul %0, %s : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = tessel.div %1, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = tessel.cast %p to f32 : tensor<8xi32> -> tensor<8xf32>
  %4 = tessel.mul %3, %s : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = tessel.add %4, %r : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = tessel.div %5, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1, %2, %6 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
