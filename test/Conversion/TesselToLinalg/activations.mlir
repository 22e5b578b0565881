// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Each activation is one generic whose body is the ONNX formula.

// CHECK-LABEL: func.func @leaky_relu
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[NEG:.+]] = arith.cmpf olt, %[[X]], %{{.+}} : f32
// CHECK-DAG: %[[SCALED:.+]] = arith.mulf %{{.+}}, %[[X]] : f32
// CHECK: arith.select %[[NEG]], %[[SCALED]], %[[X]] : f32
func.func @leaky_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.leaky_relu %x {alpha = 0.1 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu
// CHECK: math.erf
// CHECK: linalg.generic
// CHECK-NOT: math.erf
// CHECK: math.tanh
func.func @gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tessel.gelu %x : tensor<4xf32>
  %1 = tessel.gelu %x {tanh_approximation} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @hard_sigmoid
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
func.func @hard_sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
