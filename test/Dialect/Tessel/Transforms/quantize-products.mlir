// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=instrument" | FileCheck %s --check-prefix=INSTRUMENT
// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=apply scales=0.5,0.25 zero-points=3,128" 2>&1 | FileCheck %s --check-prefix=APPLY
// RUN: tessel-opt %s --split-input-file --tessel-quantize-products="mode=apply scales=0.5 zero-points=3" --verify-diagnostics

// A matmul and a convolution with constant weights; the convolution's
// input is a graph input, the matmul's is computed.
// With mode=instrument, each activation operand is also returned, in walk
// order, named calibration_<i>.
// INSTRUMENT-LABEL: func.func @two_products
// INSTRUMENT-SAME:    -> (tensor<1x4xf32>, tensor<1x2x3x3xf32> {tessel.name = "calibration_0"}, tensor<1x18xf32> {tessel.name = "calibration_1"})
// INSTRUMENT:         return %{{.*}}, %arg0, %{{.*}} : tensor<1x4xf32>, tensor<1x2x3x3xf32>, tensor<1x18xf32>
// With mode=apply, each is quantized to uint8 and dequantized (scale 0.5,
// zero point 3; then 0.25 and 128) where the product reads it, and the
// weights become int8, one scale per output channel: the filters' maxima
// 2 and 1 over 127, the matrix's columns' (per column: [N]).
// APPLY-LABEL: func.func @two_products
// APPLY:         %[[S:.*]] = tessel.constant dense<5.000000e-01> : tensor<f32>
// APPLY:         %[[Z:.*]] = tessel.constant dense<3.000000e+00> : tensor<f32>
// APPLY:         %[[D:.*]] = tessel.div %arg0, %[[S]]
// APPLY:         %[[R:.*]] = tessel.round %[[D]]
// APPLY:         %[[A:.*]] = tessel.add %[[R]], %[[Z]]
// APPLY:         %[[C:.*]] = tessel.clip %[[A]] {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64}
// APPLY:         %[[Q:.*]] = tessel.cast %[[C]] to ui8
// APPLY:         %[[F:.*]] = tessel.cast %[[Q]] to f32
// APPLY:         %[[B:.*]] = tessel.sub %[[F]], %[[Z]]
// APPLY:         %[[X:.*]] = tessel.mul %[[B]], %[[S]]
// APPLY:         %[[WQ:.*]] = tessel.constant dense<{{\[\[\[\[}}127]], {{\[\[}}-64]]], {{\[\[\[}}64]], {{\[\[}}127]]]]> : tensor<2x2x1x1xi8>
// APPLY:         %[[WF:.*]] = tessel.cast %[[WQ]] to f32
// APPLY:         %[[WS:.*]] = tessel.constant dense<{{\[\[\[\[}}0.0157480314]]], {{\[\[\[}}0.00787401571]]]]> : tensor<2x1x1x1xf32>
// APPLY:         %[[W:.*]] = tessel.mul %[[WF]], %[[WS]]
// APPLY:         tessel.conv %[[X]], %[[W]]
// APPLY:         tessel.constant dense<2.500000e-01> : tensor<f32>
// APPLY:         tessel.cast %{{.*}} to ui8
// APPLY:         tessel.constant dense<127> : tensor<18x4xi8>
// APPLY:         %[[MS:.*]] = tessel.constant dense<0.00393700786> : tensor<4xf32>
// APPLY:         tessel.matmul
// Parameters that do not match the activations are refused.
// expected-error @+1 {{tessel-quantize-products: 2 activations to quantize, 1 scales and 1 zero points given}}
func.func @two_products(%x: tensor<1x2x3x3xf32>) -> tensor<1x4xf32> {
  %w = tessel.constant dense<[[[[2.0]], [[-1.0]]], [[[0.5]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %m = tessel.constant dense<0.5> : tensor<18x4xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %r = tessel.reshape %c {shape = array<i64: 1, 18>} : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
  %y = tessel.matmul %r, %m : (tensor<1x18xf32>, tensor<18x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// Every other reader of a quantized activation reads it dequantized too
// (the residual add: its producer then writes 8 bits), but a function
// result keeps the exact value.
// APPLY-LABEL: func.func @other_readers
// APPLY:         %[[R:.*]] = tessel.relu
// APPLY:         %[[Q:.*]] = tessel.cast %{{.*}} to ui8
// APPLY:         %[[F:.*]] = tessel.cast %[[Q]] to f32
// APPLY:         %[[B:.*]] = tessel.sub %[[F]], %{{.*}}
// APPLY:         %[[X:.*]] = tessel.mul %[[B]], %{{.*}}
// APPLY:         %[[A:.*]] = tessel.add %[[X]], %[[X]] :
// APPLY:         %[[M:.*]] = tessel.matmul %[[X]], %{{.*}}
// APPLY:         return %[[M]], %[[A]], %[[R]], %{{.*}} :
// expected-error @+1 {{tessel-quantize-products: 2 activations to quantize, 1 scales and 1 zero points given}}
func.func @other_readers(%in: tensor<1x4xf32>, %in2: tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x2xf32>) {
  %w = tessel.constant dense<1.0> : tensor<4x2xf32>
  %r = tessel.relu %in : tensor<1x4xf32>
  %a = tessel.add %r, %r : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = tessel.matmul %r, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  %y2 = tessel.matmul %in2, %w : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %y, %a, %r, %y2 : tensor<1x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x2xf32>
}
