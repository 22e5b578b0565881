// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Every tessel op parses, prints, and parses again to the same form.

// CHECK-LABEL: func.func @constant
func.func @constant() -> tensor<2xf32> {
  // CHECK: tessel.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.+]]: tensor<1x4xf32>, %[[I:.+]]: tensor<3xi32>)
func.func @unary(%x: tensor<1x4xf32>, %i: tensor<3xi32>) -> (tensor<1x4xf32>, tensor<3xi32>) {
  // CHECK: %[[R:.+]] = tessel.relu %[[X]] : tensor<1x4xf32>
  %0 = tessel.relu %x : tensor<1x4xf32>
  // CHECK: %[[S:.+]] = tessel.sigmoid %[[R]] : tensor<1x4xf32>
  %1 = tessel.sigmoid %0 : tensor<1x4xf32>
  // CHECK: %[[T:.+]] = tessel.tanh %[[S]] : tensor<1x4xf32>
  %2 = tessel.tanh %1 : tensor<1x4xf32>
  // CHECK: tessel.clip %[[T]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<1x4xf32>
  %3 = tessel.clip %2 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4xf32>
  // CHECK: tessel.clip %{{.+}} {max = 1.000000e+00 : f64} : tensor<1x4xf32>
  %4 = tessel.clip %3 {max = 1.0 : f64} : tensor<1x4xf32>
  // CHECK: tessel.relu %[[I]] : tensor<3xi32>
  %5 = tessel.relu %i : tensor<3xi32>
  return %4, %5 : tensor<1x4xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>) {
  // CHECK: tessel.add %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tessel.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.sub %{{.+}}, %{{.+}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tessel.sub %b, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.mul %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tessel.mul %1, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.div %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = tessel.div %2, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: tessel.add %{{.+}}, %{{.+}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = tessel.add %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %3, %4 : tensor<2x3xf32>, tensor<4xi64>
}

// CHECK-LABEL: func.func @contraction
func.func @contraction(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>, %x: tensor<1x784xf32>, %w: tensor<512x784xf32>, %c: tensor<512xf32>) -> (tensor<8x2x4xf32>, tensor<1x512xf32>, tensor<1x512xf32>) {
  // CHECK: tessel.matmul %{{.+}}, %{{.+}} : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
  %0 = tessel.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
  // CHECK: tessel.gemm %{{.+}}, %{{.+}}, %{{.+}} {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_b = true} : (tensor<1x784xf32>, tensor<512x784xf32>, tensor<512xf32>) -> tensor<1x512xf32>
  %1 = tessel.gemm %x, %w, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_b = true} : (tensor<1x784xf32>, tensor<512x784xf32>, tensor<512xf32>) -> tensor<1x512xf32>
  // CHECK: tessel.gemm %{{.+}}, %{{.+}} {trans_b = true} : (tensor<1x784xf32>, tensor<512x784xf32>) -> tensor<1x512xf32>
  %2 = tessel.gemm %x, %w {trans_b = true} : (tensor<1x784xf32>, tensor<512x784xf32>) -> tensor<1x512xf32>
  return %0, %1, %2 : tensor<8x2x4xf32>, tensor<1x512xf32>, tensor<1x512xf32>
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %g: tensor<6x1x3x3xf32>, %x6: tensor<1x6x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x6x4x4xf32>) {
  // CHECK: tessel.conv %{{.+}}, %{{.+}}, %{{.+}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: tessel.conv %{{.+}}, %{{.+}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: tessel.conv %{{.+}}, %{{.+}} {dilations = array<i64: 2, 2>, group = 6 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32>
  %2 = tessel.conv %x6, %g {dilations = array<i64: 2, 2>, group = 6 : i64, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %0, %1, %2 : tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<1x6x4x4xf32>
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<1x4x8x8xf32>, %y: tensor<1x4x7x7xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) {
  // CHECK: tessel.max_pool %{{.+}} {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = tessel.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: tessel.max_pool %{{.+}} {ceil_mode = true, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  %1 = tessel.max_pool %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: tessel.avg_pool %{{.+}} {count_include_pad = true, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = tessel.avg_pool %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  // CHECK: tessel.global_average_pool %{{.+}} : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  %3 = tessel.global_average_pool %y : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  return %0, %1, %2, %3 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<1x10xf32>) -> tensor<1x10xf32> {
  // CHECK: tessel.softmax %{{.+}} {axis = 1 : i64} : tensor<1x10xf32>
  %0 = tessel.softmax %x {axis = 1 : i64} : tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<1x1x28x28xf32>, %t: tensor<1x3x4x5xf32>, %a: tensor<2x3xi64>, %b: tensor<1x3xi64>) -> (tensor<1x784xf32>, tensor<1x4x5x3xf32>, tensor<3x3xi64>) {
  // CHECK: tessel.reshape %{{.+}} {shape = array<i64: 1, 784>} : (tensor<1x1x28x28xf32>) -> tensor<1x784xf32>
  %0 = tessel.reshape %x {shape = array<i64: 1, 784>} : (tensor<1x1x28x28xf32>) -> tensor<1x784xf32>
  // CHECK: tessel.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %1 = tessel.transpose %t {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  // CHECK: tessel.concat %{{.+}}, %{{.+}} {axis = 0 : i64} : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<3x3xi64>
  %2 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<3x3xi64>
  return %0, %1, %2 : tensor<1x784xf32>, tensor<1x4x5x3xf32>, tensor<3x3xi64>
}

// CHECK-LABEL: func.func @conv_transpose_3d
func.func @conv_transpose_3d(%x: tensor<1x2x3x3x3xf32>, %w: tensor<2x3x2x2x2xf32>) -> tensor<1x3x7x6x6xf32> {
  // CHECK: tessel.conv_transpose %{{.+}}, %{{.+}} {dilations = array<i64: 1, 1, 1>, output_padding = array<i64: 1, 0, 0>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<1x2x3x3x3xf32>, tensor<2x3x2x2x2xf32>) -> tensor<1x3x7x6x6xf32>
  %0 = tessel.conv_transpose %x, %w {strides = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, output_padding = array<i64: 1, 0, 0>} : (tensor<1x2x3x3x3xf32>, tensor<2x3x2x2x2xf32>) -> tensor<1x3x7x6x6xf32>
  return %0 : tensor<1x3x7x6x6xf32>
}

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32> {
  // CHECK: tessel.resize %{{.+}} {mode = #tessel.interpolation<cubic>, scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00>, sizes = array<i64: 1, 1, 4, 3>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32>
  %0 = tessel.resize %x {mode = #tessel.interpolation<cubic>, scales = array<f64: 1.0, 1.0, 2.0, 1.5>, sizes = array<i64: 1, 1, 4, 3>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32>
  return %0 : tensor<1x1x4x3xf32>
}

// CHECK-LABEL: func.func @grid_sample
func.func @grid_sample(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf16>) -> tensor<1x2x5x6xf32> {
  // CHECK: tessel.grid_sample %{{.+}}, %{{.+}} {align_corners = true, mode = #tessel.interpolation<cubic>, padding_mode = #tessel.grid_padding<border>} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf16>) -> tensor<1x2x5x6xf32>
  %0 = tessel.grid_sample %x, %g {align_corners = true, mode = #tessel.interpolation<cubic>, padding_mode = #tessel.grid_padding<border>} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf16>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// CHECK-LABEL: func.func @einsum
func.func @einsum(%x: tensor<5x2x3xf32>, %y: tensor<5x3x4xf32>, %d: tensor<3x5x5xi32>) -> (tensor<5x2x4xf32>, tensor<3x5xi32>) {
  // CHECK: tessel.einsum %{{.+}}, %{{.+}} {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %0 = tessel.einsum %x, %y {equation = "bij,bjk->bik"} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  // CHECK: tessel.einsum %{{.+}} {equation = "Aii->Ai"} : (tensor<3x5x5xi32>) -> tensor<3x5xi32>
  %1 = tessel.einsum %d {equation = "Aii->Ai"} : (tensor<3x5x5xi32>) -> tensor<3x5xi32>
  return %0, %1 : tensor<5x2x4xf32>, tensor<3x5xi32>
}

// Integer operands multiply and accumulate in their own type.
// CHECK-LABEL: func.func @integer_contractions
func.func @integer_contractions(%a: tensor<4x3xi32>, %b: tensor<3x2xi32>, %x: tensor<1x1x3x3xi32>, %w: tensor<1x1x2x2xi32>) -> (tensor<4x2xi32>, tensor<1x1x2x2xi32>) {
  // CHECK: tessel.matmul %{{.+}}, %{{.+}} : (tensor<4x3xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  %0 = tessel.matmul %a, %b : (tensor<4x3xi32>, tensor<3x2xi32>) -> tensor<4x2xi32>
  // CHECK: tessel.conv %{{.+}}, %{{.+}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  %1 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x2x2xi32>
  return %0, %1 : tensor<4x2xi32>, tensor<1x1x2x2xi32>
}
