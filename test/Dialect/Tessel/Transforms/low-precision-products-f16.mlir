// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="element=f16" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="element=f16" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="element=f16 product-kernel=false" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOKERNEL
// RUN: not tessel-opt %s --tessel-low-precision-products="element=f8" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ELEMENT
// ELEMENT: tessel-low-precision-products: unknown element 'f8' (bf16, f16)

// element=f16: a product with constant weights, 16 columns over a
// reduction of 64 (the f16 kernel's: columns in 16s, reductions in 8s, and
// at least 64 steps to pay): the weights become an f16 constant, rounded
// to nearest even (1 + 2^-11 is a tie and rounds to 1, 1 + 3 * 2^-11 up to
// 1 + 2^-9), the activation is cast to f16, the product's result back to
// f32.
// REMARK: remark: [Passed] low-precision-product | Category:tessel | Function=matmul | precision=fp16
// NOKERNEL: remark: [Analysis] full-precision-product | Category:tessel | Function=matmul | reason="the target has no f16 arithmetic (AVX512-FP16)"
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<4x64xf32>)
// CHECK-DAG:     %[[W:.*]] = tessel.constant dense<1.000000e+00> : tensor<64x16xf16>
// CHECK-DAG:     %[[V:.*]] = tessel.constant dense<1.001950e+00> : tensor<64x16xf16>
// CHECK-DAG:     %[[XH:.*]] = tessel.cast %[[X]] to f16 : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK-DAG:     %[[P:.*]] = tessel.matmul %[[XH]], %[[W]] : (tensor<4x64xf16>, tensor<64x16xf16>) -> tensor<4x16xf16>
// CHECK-DAG:     %[[Y:.*]] = tessel.cast %[[P]] to f32 : tensor<4x16xf16> -> tensor<4x16xf32>
// CHECK-DAG:     %[[Q:.*]] = tessel.matmul %{{.*}}, %[[V]]
// CHECK-DAG:     %[[Z:.*]] = tessel.cast %[[Q]] to f32
// CHECK:         return %[[Y]], %[[Z]]
func.func @matmul(%x: tensor<4x64xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = tessel.constant dense<1.00048828125> : tensor<64x16xf32>
  %y = tessel.matmul %x, %w : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
  %v = tessel.constant dense<1.00146484375> : tensor<64x16xf32>
  %z = tessel.matmul %x, %v : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
  return %y, %z : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// What stays f32 with element=f16, and why: columns not in 16s, a
// reduction not in 8s, one too short to pay, a weight f16 cannot hold.
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="the product (4 x 64 x 24) does not fit the f16 kernel (columns in 16s, the reduction in 8s)
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="the product (4 x 68 x 16) does not fit the f16 kernel
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="the product (4 x 32 x 16) sums fewer than 64 steps: converting its f16 sums and its activations would cost more than f16 saves"
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=stays | reason="a weight (|w| = 70000.000000) is beyond f16's range (65504)"
// CHECK-LABEL: func.func @stays
// CHECK-NOT:     f16
// CHECK:         return
func.func @stays(%a: tensor<4x64xf32>, %b: tensor<4x68xf32>, %c: tensor<4x32xf32>) -> (tensor<4x24xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %w1 = tessel.constant dense<0.5> : tensor<64x24xf32>
  %y1 = tessel.matmul %a, %w1 : (tensor<4x64xf32>, tensor<64x24xf32>) -> tensor<4x24xf32>
  %w2 = tessel.constant dense<0.5> : tensor<68x16xf32>
  %y2 = tessel.matmul %b, %w2 : (tensor<4x68xf32>, tensor<68x16xf32>) -> tensor<4x16xf32>
  %w3 = tessel.constant dense<0.5> : tensor<32x16xf32>
  %y3 = tessel.matmul %c, %w3 : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  %w4 = tessel.constant dense<7.0e4> : tensor<64x16xf32>
  %y4 = tessel.matmul %a, %w4 : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
  return %y1, %y2, %y3, %y4 : tensor<4x24xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A convolution's reduction is its gathered windows' taps, padded to the
// f16 kernel's blocks as tessel-vectorize-convolutions pads them: a 7 x 7
// stem over 3 channels has 147 taps, run as 160 (the graph pass asks about
// 160); 16 filters fill the columns.
// REMARK: remark: [Passed] low-precision-product | Category:tessel | Function=stem | precision=fp16
// CHECK-LABEL: func.func @stem
// CHECK:         %[[XH:.*]] = tessel.cast %{{.*}} to f16 : tensor<1x3x16x16xf32> -> tensor<1x3x16x16xf16>
// CHECK:         %[[P:.*]] = tessel.conv %[[XH]], %{{.*}} {{.*}} : (tensor<1x3x16x16xf16>, tensor<16x3x7x7xf16>) -> tensor<1x16x8x8xf16>
// CHECK:         tessel.cast %[[P]] to f32
func.func @stem(%x: tensor<1x3x16x16xf32>) -> tensor<1x16x8x8xf32> {
  %w = tessel.constant dense<0.125> : tensor<16x3x7x7xf32>
  %y = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

