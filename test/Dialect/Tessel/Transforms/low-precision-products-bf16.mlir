// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="product-kernel=false" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOKERNEL

// A product with constant weights: the weights become a bf16 constant
// (rounded to nearest even: 1 + 2^-8 is a tie and rounds to 1, 1 + 3 * 2^-8
// rounds up to 1 + 2^-6), the activation is cast to bf16, the product's
// result back to f32.
// REMARK: remark: [Passed] low-precision-product | Category:tessel | Function=matmul | precision=bf16
// NOKERNEL: remark: [Analysis] full-precision-product | Category:tessel | Function=matmul | reason="the target has no bf16 product kernel faster than its FP32 FMA
// NOKERNEL: tessel.matmul %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2xf32>)
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<{{\[}}[1.000000e+00, 1.015630e+00], [-2.000000e+00, 0.000000e+00]]> : tensor<2x2xbf16>
// CHECK-DAG:     %[[XB:.*]] = tessel.cast %[[X]] to bf16 : tensor<2x2xf32> -> tensor<2x2xbf16>
// CHECK:         %[[P:.*]] = tessel.matmul %[[XB]], %[[W]] : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
// CHECK:         %[[Y:.*]] = tessel.cast %[[P]] to f32 : tensor<2x2xbf16> -> tensor<2x2xf32>
// CHECK:         return %[[Y]]
func.func @matmul(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = tessel.constant dense<[[1.00390625, 1.01171875], [-2.0, 0.0]]> : tensor<2x2xf32>
  %y = tessel.matmul %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A Gemm: B transposed at compile time, alpha and beta * C in f32 after
// the product.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xbf16>
// CHECK:         %[[P:.*]] = tessel.matmul %{{.*}}, %[[W]] : (tensor<1x2xbf16>, tensor<2x3xbf16>) -> tensor<1x3xbf16>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         %[[A:.*]] = tessel.mul %[[F]], %{{.*}}
// CHECK:         %[[C:.*]] = tessel.mul %{{.*}}, %{{.*}}
// CHECK:         tessel.add %[[A]], %[[C]]
func.func @gemm(%a: tensor<1x2xf32>, %c: tensor<3xf32>) -> tensor<1x3xf32> {
  %w = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = tessel.gemm %a, %w, %c {alpha = 2.0 : f32, beta = 0.5 : f32, trans_b = true} : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// An ungrouped convolution: bf16 input and filters, the bias in f32 after
// the product, along NCHW's channels.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[XB:.*]] = tessel.cast %{{.*}} to bf16 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xbf16>
// CHECK:         %[[P:.*]] = tessel.conv %[[XB]], %{{.*}} {{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}} : (tensor<1x2x4x4xbf16>, tensor<3x2x1x1xbf16>) -> tensor<1x3x6x6xbf16>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         tessel.add %[[F]], %{{.*}} : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
func.func @conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x6x6xf32> {
  %w = tessel.constant dense<0.5> : tensor<3x2x1x1xf32>
  %b = tessel.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// -----

// What stays f32, and why: a product of two activations, a depthwise
// convolution.
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="the right-hand side is not constant (a product of two activations)"
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="a grouped convolution (no 16-bit kernel)"
// CHECK-LABEL: func.func @stays
// CHECK-NOT:     bf16
// CHECK:         return
func.func @stays(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %x: tensor<1x2x4x4xf32>) -> (tensor<2x2xf32>, tensor<1x2x4x4xf32>) {
  %y = tessel.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %w = tessel.constant dense<0.5> : tensor<2x1x1x1xf32>
  %z = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y, %z : tensor<2x2xf32>, tensor<1x2x4x4xf32>
}
