// RUN: tessel-opt %s --split-input-file --tessel-integer-products | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-integer-products \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: tessel-opt %s --split-input-file --tessel-integer-products="integer-kernel=false" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOKERNEL

// A QDQ product: a u8 activation with a zero point and a scale, i8 weights
// with one scale per column. The product runs on the integers; both scales
// apply to its result.
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=qdq | lhs=ui8, rhs=i8
// CHECK-LABEL: func.func @qdq
// CHECK-SAME:    (%[[Q:.*]]: tensor<4x8xui8>, %[[SW:.*]]: tensor<16xf32>)
// CHECK-DAG:     %[[SA:.*]] = tessel.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[A:.*]] = tessel.cast %[[Q]] to i32 : tensor<4x8xui8> -> tensor<4x8xi32>
// CHECK:         %[[ZA:.*]] = tessel.constant dense<3> : tensor<i32>
// CHECK:         %[[AC:.*]] = tessel.sub %[[A]], %[[ZA]] : (tensor<4x8xi32>, tensor<i32>) -> tensor<4x8xi32>
// CHECK:         %[[W:.*]] = tessel.constant dense<-7> : tensor<8x16xi8>
// CHECK:         %[[B:.*]] = tessel.cast %[[W]] to i32 : tensor<8x16xi8> -> tensor<8x16xi32>
// CHECK:         %[[P:.*]] = tessel.matmul %[[AC]], %[[B]] : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32 : tensor<4x16xi32> -> tensor<4x16xf32>
// CHECK:         %[[S1:.*]] = tessel.mul %[[F]], %[[SA]] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
// CHECK:         %[[S2:.*]] = tessel.mul %[[S1]], %[[SW]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK:         return %[[S2]]
func.func @qdq(%q: tensor<4x8xui8>, %sw: tensor<16xf32>) -> tensor<4x16xf32> {
  %w = tessel.constant dense<-7> : tensor<8x16xi8>
  %za = tessel.constant dense<3.0> : tensor<f32>
  %sa = tessel.constant dense<0.5> : tensor<f32>
  %a = tessel.cast %q to f32 : tensor<4x8xui8> -> tensor<4x8xf32>
  %c = tessel.sub %a, %za : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %x = tessel.mul %c, %sa : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %wf = tessel.cast %w to f32 : tensor<8x16xi8> -> tensor<8x16xf32>
  %wd = tessel.mul %wf, %sw : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %y = tessel.matmul %x, %wd : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Weights whose conversion to f32 was folded (a constant of integers), with
// a zero point, which is subtracted from the constant; a batched i8
// activation without one, its scale already moved to the result (the scale
// is the product's consumer and stays).
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=folded_weights | lhs=i8, rhs=i8
// CHECK-LABEL: func.func @folded_weights
// CHECK:         %[[A:.*]] = tessel.cast %arg0 to i32 : tensor<2x3x2xi8> -> tensor<2x3x2xi32>
// CHECK:         %[[W:.*]] = tessel.constant dense<{{\[\[}}-2, 0], [126, -128]]> : tensor<2x2xi8>
// CHECK:         %[[B:.*]] = tessel.cast %[[W]] to i32
// CHECK:         %[[P:.*]] = tessel.matmul %[[A]], %[[B]] : (tensor<2x3x2xi32>, tensor<2x2xi32>) -> tensor<2x3x2xi32>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         %[[S:.*]] = tessel.mul %[[F]], %{{.*}} : (tensor<2x3x2xf32>, tensor<1x2xf32>) -> tensor<2x3x2xf32>
// CHECK:         tessel.mul %[[S]], %{{.*}} : (tensor<2x3x2xf32>, tensor<f32>)
func.func @folded_weights(%q: tensor<2x3x2xi8>) -> tensor<2x3x2xf32> {
  %zw = tessel.constant dense<1.0> : tensor<1xf32>
  %w = tessel.constant dense<[[-1.0, 1.0], [127.0, -127.0]]> : tensor<2x2xf32>
  %sw = tessel.constant dense<[[0.25, 0.125]]> : tensor<1x2xf32>
  %cst = tessel.constant dense<0.5> : tensor<f32>
  %a = tessel.cast %q to f32 : tensor<2x3x2xi8> -> tensor<2x3x2xf32>
  %wc = tessel.sub %w, %zw : (tensor<2x2xf32>, tensor<1xf32>) -> tensor<2x2xf32>
  %wd = tessel.mul %sw, %wc : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p = tessel.matmul %a, %wd : (tensor<2x3x2xf32>, tensor<2x2xf32>) -> tensor<2x3x2xf32>
  %y = tessel.mul %p, %cst : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

// -----

// Two activations (attention's scores in a QDQ model): no integer kernel
// multiplies them; the product stays f32 and says why.
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function={{[a-z_]+}} | reason="the right-hand side is not a constant (no integer kernel multiplies two activations)"
// CHECK-LABEL: func.func @two_activations
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
func.func @two_activations(%q: tensor<4x8xui8>, %k: tensor<8x4xui8>) -> tensor<4x4xf32> {
  %a = tessel.cast %q to f32 : tensor<4x8xui8> -> tensor<4x8xf32>
  %b = tessel.cast %k to f32 : tensor<8x4xui8> -> tensor<8x4xf32>
  %y = tessel.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Weights that are not 8-bit integers beside a dequantized activation.
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function={{[a-z_]+}} | reason="the right-hand side is a constant that is not 8-bit integers"
// CHECK-LABEL: func.func @float_weights
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
func.func @float_weights(%q: tensor<1x2xi8>) -> tensor<1x2xf32> {
  %w = tessel.constant dense<[[0.5, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %a = tessel.cast %q to f32 : tensor<1x2xi8> -> tensor<1x2xf32>
  %y = tessel.matmul %a, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// 70000 products of 255 * 127 can exceed i32: the product stays f32.
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function={{[a-z_]+}} | reason="the i32 sum could overflow"
// CHECK-LABEL: func.func @overflow
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<1x70000xf32>, tensor<70000x1xf32>) -> tensor<1x1xf32>
func.func @overflow(%q: tensor<1x70000xui8>) -> tensor<1x1xf32> {
  %w = tessel.constant dense<127.0> : tensor<70000x1xf32>
  %a = tessel.cast %q to f32 : tensor<1x70000xui8> -> tensor<1x70000xf32>
  %y = tessel.matmul %a, %w : (tensor<1x70000xf32>, tensor<70000x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// A per-column scale on the activation cannot move to the result (it
// scales k, not n): the product stays f32.
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function={{[a-z_]+}} | reason="the left-hand side is not a dequantized 8-bit value"
// CHECK-LABEL: func.func @lhs_per_axis
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @lhs_per_axis(%q: tensor<2x2xi8>, %s: tensor<2xf32>) -> tensor<2x2xf32> {
  %w = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %a = tessel.cast %q to f32 : tensor<2x2xi8> -> tensor<2x2xf32>
  %x = tessel.mul %a, %s : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = tessel.matmul %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A float product is none of this pass's business: no remark.
// REMARK-NOT: remark
// CHECK-LABEL: func.func @float
// CHECK:         tessel.matmul %arg0, %arg1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @float(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = tessel.matmul %x, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A QDQ Gemm (trans_b, per-output-channel weight scales [N, 1], a bias,
// alpha 2): the weights are transposed at compile time, the scales
// reshaped to one per column; alpha and the bias follow the product.
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=gemm | lhs=ui8, rhs=i8
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2xui8>, %[[C:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[SW:.*]] = tessel.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00], [4.000000e+00]]> : tensor<3x1xf32>
// CHECK:         %[[A:.*]] = tessel.cast %[[Q]] to i32
// CHECK:         %[[W:.*]] = tessel.constant dense<{{\[\[}}1, 3, 5], [2, 4, -6]]> : tensor<2x3xi8>
// CHECK:         %[[B:.*]] = tessel.cast %[[W]] to i32
// CHECK:         %[[P:.*]] = tessel.matmul %[[A]], %[[B]] : (tensor<1x2xi32>, tensor<2x3xi32>) -> tensor<1x3xi32>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         %[[S:.*]] = tessel.reshape %[[SW]] {shape = array<i64: 3>} : (tensor<3x1xf32>) -> tensor<3xf32>
// CHECK:         %[[FS:.*]] = tessel.mul %[[F]], %[[S]] : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
// CHECK:         %[[ALPHA:.*]] = tessel.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[FA:.*]] = tessel.mul %[[FS]], %[[ALPHA]]
// CHECK:         %[[Y:.*]] = tessel.add %[[FA]], %[[C]] : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
// CHECK:         return %[[Y]]
func.func @gemm(%q: tensor<1x2xui8>, %c: tensor<3xf32>) -> tensor<1x3xf32> {
  %w = tessel.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi8>
  %sw = tessel.constant dense<[[1.0], [2.0], [4.0]]> : tensor<3x1xf32>
  %a = tessel.cast %q to f32 : tensor<1x2xui8> -> tensor<1x2xf32>
  %wf = tessel.cast %w to f32 : tensor<3x2xi8> -> tensor<3x2xf32>
  %wd = tessel.mul %wf, %sw : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  %y = tessel.gemm %a, %wd, %c {alpha = 2.0 : f32, trans_b = true} : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// Weights with one zero point per column: not one integer to subtract.
// The product stays f32, and reads its dequantized weights as a constant
// computed here, once: [[1 - 1, 2 - 2], [3 - 1, 4 - 2]].
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function={{[a-z_]+}} | reason="the right-hand side has a zero point that is not one integer"
// CHECK-LABEL: func.func @column_zero_points
// CHECK:         %[[W:.*]] = tessel.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK:         tessel.matmul %{{.*}}, %[[W]] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
func.func @column_zero_points(%q: tensor<1x2xi8>) -> tensor<1x2xf32> {
  %w = tessel.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %zw = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = tessel.cast %q to f32 : tensor<1x2xi8> -> tensor<1x2xf32>
  %wf = tessel.cast %w to f32 : tensor<2x2xi8> -> tensor<2x2xf32>
  %wc = tessel.sub %wf, %zw : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = tessel.matmul %a, %wc : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A convolution of dequantized values, u8 input and int8 weights with one
// scale per output channel, its bias dequantized from int32 in f64 (as the
// importer does): an i32 convolution of the 8-bit values (the input centred
// by its zero point; padding 0 pads the centred values), then the scales
// per filter ([F, 1, 1] along NCHW's channels) and the bias, folded once to
// f32.
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=conv | lhs=ui8, rhs=i8
// Without an 8-bit kernel on the target (AVX2 only), the convolution stays
// f32, says why, and reads its weights dequantized once.
// NOKERNEL: remark: [Analysis] float-quantized-product | Category:tessel | Function=conv | reason="the target has no 8-bit dot-product kernel (VNNI or AVX2): its f32 kernels are faster than integer loops"
// NOKERNEL-LABEL: func.func @conv
// NOKERNEL:        tessel.conv %{{.*}}, %{{.*}}, %{{.*}} {{.*}}: (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
// CHECK-LABEL: func.func @conv
// CHECK:         %[[X:.*]] = tessel.cast %{{.*}} to i32 : tensor<1x2x4x4xui8> -> tensor<1x2x4x4xi32>
// CHECK:         %[[XC:.*]] = tessel.sub %[[X]], %{{.*}} : (tensor<1x2x4x4xi32>, tensor<i32>)
// CHECK:         %[[WQ:.*]] = tessel.constant dense<{{.*}}> : tensor<3x2x1x1xi8>
// CHECK:         %[[W:.*]] = tessel.cast %[[WQ]] to i32
// CHECK:         %[[ACC:.*]] = tessel.conv %[[XC]], %[[W]] {{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}} : (tensor<1x2x4x4xi32>, tensor<3x2x1x1xi32>) -> tensor<1x3x6x6xi32>
// CHECK:         %[[F:.*]] = tessel.cast %[[ACC]] to f32
// CHECK:         %[[A:.*]] = tessel.mul %[[F]], %{{.*}} : (tensor<1x3x6x6xf32>, tensor<f32>)
// CHECK:         %[[S:.*]] = tessel.reshape %{{.*}} : (tensor<3x1x1x1xf32>) -> tensor<3x1x1xf32>
// CHECK:         %[[B:.*]] = tessel.mul %[[A]], %[[S]] : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>)
// CHECK:         %[[BIAS:.*]] = tessel.constant dense<{{\[\[\[}}2.500000e-01]], {{\[\[}}-5.000000e-01]], {{\[\[}}1.000000e+00]]]> : tensor<3x1x1xf32>
// CHECK:         tessel.add %[[B]], %[[BIAS]]
func.func @conv(%q: tensor<1x2x4x4xui8>) -> tensor<1x3x6x6xf32> {
  %wq = tessel.constant dense<[[[[1]], [[-2]]], [[[3]], [[4]]], [[[4]], [[0]]]]> : tensor<3x2x1x1xi8>
  %ws = tessel.constant dense<[[[[0.5]]], [[[0.5]]], [[[0.25]]]]> : tensor<3x1x1x1xf32>
  %zp = tessel.constant dense<128.0> : tensor<f32>
  %sx = tessel.constant dense<0.5> : tensor<f32>
  %bq = tessel.constant dense<[1, -2, 4]> : tensor<3xi32>
  %bs = tessel.constant dense<0.25> : tensor<3xf64>
  %wf = tessel.cast %wq to f32 : tensor<3x2x1x1xi8> -> tensor<3x2x1x1xf32>
  %w = tessel.mul %wf, %ws : (tensor<3x2x1x1xf32>, tensor<3x1x1x1xf32>) -> tensor<3x2x1x1xf32>
  %af = tessel.cast %q to f32 : tensor<1x2x4x4xui8> -> tensor<1x2x4x4xf32>
  %ac = tessel.sub %af, %zp : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %a = tessel.mul %ac, %sx : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %bd = tessel.cast %bq to f64 : tensor<3xi32> -> tensor<3xf64>
  %bm = tessel.mul %bd, %bs : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = tessel.cast %bm to f32 : tensor<3xf64> -> tensor<3xf32>
  %y = tessel.conv %a, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// -----

// A grouped convolution of dequantized values (a depthwise one) has no
// integer kernel: it stays f32, and says so; its weights are dequantized
// here, once.
// REMARK: remark: [Analysis] float-quantized-product | Category:tessel | Function=depthwise | reason="a grouped convolution (no integer kernel)"
// CHECK-LABEL: func.func @depthwise
// CHECK:         %[[W:.*]] = tessel.constant dense<{{.*}}5.000000e-01{{.*}}-5.000000e-01{{.*}}> : tensor<2x1x1x1xf32>
// CHECK:         tessel.conv %{{.*}}, %[[W]] {{.*}}: (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
func.func @depthwise(%q: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xf32> {
  %wq = tessel.constant dense<[[[[1]]], [[[-2]]]]> : tensor<2x1x1x1xi8>
  %ws = tessel.constant dense<[[[[0.5]]], [[[0.25]]]]> : tensor<2x1x1x1xf32>
  %wf = tessel.cast %wq to f32 : tensor<2x1x1x1xi8> -> tensor<2x1x1x1xf32>
  %w = tessel.mul %wf, %ws : (tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %a = tessel.cast %q to f32 : tensor<1x2x4x4xui8> -> tensor<1x2x4x4xf32>
  %y = tessel.conv %a, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// The same with the weights' conversion from int8 already folded (an f32
// constant of integers times the scale): in a product of dequantized
// values, they are dequantized weights too, and computed here once.
// CHECK-LABEL: func.func @depthwise_folded_conversion
// CHECK:         %[[W:.*]] = tessel.constant dense<{{.*}}5.000000e-01{{.*}}-5.000000e-01{{.*}}> : tensor<2x1x1x1xf32>
// CHECK:         tessel.conv %{{.*}}, %[[W]]
func.func @depthwise_folded_conversion(%q: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xf32> {
  %wf = tessel.constant dense<[[[[1.0]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>
  %ws = tessel.constant dense<[[[[0.5]]], [[[0.25]]]]> : tensor<2x1x1x1xf32>
  %w = tessel.mul %wf, %ws : (tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %a = tessel.cast %q to f32 : tensor<1x2x4x4xui8> -> tensor<1x2x4x4xf32>
  %y = tessel.conv %a, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Weights an exporter shared between layers, which onnxruntime's quantizer
// then quantizes again as an activation (u8, zero point 128, scale 0.5):
// the quantization of constants is computed here, [[1, 2]] / 0.5 + 128 =
// [[130, 132]], and the product reads constant 8-bit weights (minus the
// zero point: [[2, 4]]).
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=requantized_weights | lhs=i8, rhs=i8
// CHECK-LABEL: func.func @requantized_weights
// CHECK:         %[[W:.*]] = tessel.constant dense<{{\[\[}}2, 4]]> : tensor<1x2xi8>
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
func.func @requantized_weights(%q: tensor<3x1xi8>) -> tensor<3x2xf32> {
  %w = tessel.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %zp = tessel.constant dense<128.0> : tensor<f32>
  %d = tessel.div %w, %s : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %r = tessel.round %d : tensor<1x2xf32>
  %z = tessel.add %r, %zp : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %c = tessel.clip %z {max = 255.0 : f64, min = 0.0 : f64} : tensor<1x2xf32>
  %u = tessel.cast %c to ui8 : tensor<1x2xf32> -> tensor<1x2xui8>
  %f = tessel.cast %u to f32 : tensor<1x2xui8> -> tensor<1x2xf32>
  %wc = tessel.sub %f, %zp : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %wd = tessel.mul %wc, %s : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %a = tessel.cast %q to f32 : tensor<3x1xi8> -> tensor<3x1xf32>
  %y = tessel.matmul %a, %wd : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Weights quantized as an activation with zero point 127 span [-127, 128]
// once centred ([[255, 0]] -> [[128, -127]]): stored negated, [[-128, 127]],
// which fits int8, and the product is negated back (exactly) after the
// scales.
// REMARK: remark: [Passed] integer-product | Category:tessel | Function=negated_weights | lhs=ui8, rhs=i8
// CHECK-LABEL: func.func @negated_weights
// CHECK:         %[[W:.*]] = tessel.constant dense<{{\[\[}}-128, 127]]> : tensor<1x2xi8>
// CHECK:         %[[P:.*]] = tessel.matmul %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
// CHECK:         %[[F:.*]] = tessel.cast %[[P]] to f32
// CHECK:         %[[S:.*]] = tessel.mul %[[F]], %{{.*}} : (tensor<3x2xf32>, tensor<f32>)
// CHECK:         %[[M:.*]] = tessel.constant dense<-1.000000e+00> : tensor<f32>
// CHECK:         tessel.mul %[[S]], %[[M]]
func.func @negated_weights(%q: tensor<3x1xui8>) -> tensor<3x2xf32> {
  %w = tessel.constant dense<[[255, 0]]> : tensor<1x2xui8>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %zp = tessel.constant dense<127.0> : tensor<f32>
  %f = tessel.cast %w to f32 : tensor<1x2xui8> -> tensor<1x2xf32>
  %wc = tessel.sub %f, %zp : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %wd = tessel.mul %wc, %s : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %a = tessel.cast %q to f32 : tensor<3x1xui8> -> tensor<3x1xf32>
  %y = tessel.matmul %a, %wd : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Weights computed from f32 constants without an integer in sight are not
// this pass's business either: left as they are.
// CHECK-LABEL: func.func @float_expression
// CHECK:         %[[W:.*]] = tessel.mul
// CHECK:         tessel.matmul %arg0, %[[W]]
func.func @float_expression(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %ws = tessel.mul %w, %s : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %y = tessel.matmul %x, %ws : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
// REMARK-NOT: Function=float_expression
