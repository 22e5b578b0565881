// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The elementwise ops beyond arithmetic parse, print, and parse again.

// CHECK-LABEL: func.func @unary_math
func.func @unary_math(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>,
                      %b: tensor<4xi1>) {
  // CHECK: tessel.abs %{{.+}} : tensor<2x3xf32>
  %0 = tessel.abs %x : tensor<2x3xf32>
  // CHECK: tessel.abs %{{.+}} : tensor<4xui8>
  %1 = tessel.abs %u : tensor<4xui8>
  // CHECK: tessel.neg %{{.+}} : tensor<4xi32>
  %2 = tessel.neg %i : tensor<4xi32>
  // CHECK: tessel.sign %{{.+}} : tensor<4xi32>
  %3 = tessel.sign %i : tensor<4xi32>
  // CHECK: tessel.exp
  %4 = tessel.exp %x : tensor<2x3xf32>
  // CHECK: tessel.round
  %5 = tessel.round %x : tensor<2x3xf32>
  // CHECK: tessel.acosh
  %6 = tessel.acosh %x : tensor<2x3xf32>
  // CHECK: tessel.erf
  %7 = tessel.erf %x : tensor<2x3xf32>
  // CHECK: tessel.not %{{.+}} : tensor<4xi1>
  %8 = tessel.not %b : tensor<4xi1>
  // CHECK: tessel.is_nan %{{.+}} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %9 = tessel.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: tessel.is_inf %{{.+}} {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %10 = tessel.is_inf %x {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}

// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<2x3xf32>) {
  // CHECK: tessel.leaky_relu %{{.+}} {alpha = 1.000000e-01 : f64} : tensor<2x3xf32>
  %0 = tessel.leaky_relu %x {alpha = 0.1 : f64} : tensor<2x3xf32>
  // CHECK: tessel.selu %{{.+}} {alpha = 2.000000e+00 : f64, gamma = 3.000000e+00 : f64}
  %1 = tessel.selu %x {alpha = 2.0 : f64, gamma = 3.0 : f64} : tensor<2x3xf32>
  // CHECK: tessel.hard_sigmoid
  %2 = tessel.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<2x3xf32>
  // CHECK: tessel.mish
  %3 = tessel.mish %x : tensor<2x3xf32>
  // CHECK: tessel.gelu %{{.+}} {tanh_approximation} : tensor<2x3xf32>
  %4 = tessel.gelu %x {tanh_approximation} : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<4xi64>,
                  %e: tensor<i32>, %u: tensor<4xui16>, %b: tensor<4xi1>) {
  // CHECK: tessel.max %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = tessel.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.mod %{{.+}}, %{{.+}} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = tessel.mod %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tessel.mod %{{.+}}, %{{.+}} {fmod}
  %2 = tessel.mod %x, %y {fmod} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.pow %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  %3 = tessel.pow %x, %e : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  // CHECK: tessel.prelu
  %4 = tessel.prelu %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.bit_shift %{{.+}}, %{{.+}} {left} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %5 = tessel.bit_shift %u, %u {left} : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  // CHECK: tessel.xor %{{.+}}, %{{.+}} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = tessel.xor %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tessel.less_or_equal %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %7 = tessel.less_or_equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: tessel.where %{{.+}}, %{{.+}}, %{{.+}} : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = tessel.where %7, %y, %x : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xui8> {
  // CHECK: tessel.cast %{{.+}} to bf16 : tensor<2x3xf32> -> tensor<2x3xbf16>
  %0 = tessel.cast %x to bf16 : tensor<2x3xf32> -> tensor<2x3xbf16>
  // CHECK: tessel.cast %{{.+}} to ui8 : tensor<2x3xbf16> -> tensor<2x3xui8>
  %1 = tessel.cast %0 to ui8 : tensor<2x3xbf16> -> tensor<2x3xui8>
  return %1 : tensor<2x3xui8>
}
