// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// ONNX Cast: floats to integers truncate, bool is 0/1, anything to bool is
// `!= 0`.

// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi %{{.+}} : f32 to i32
// CHECK: arith.extsi %{{.+}} : i32 to i64
// CHECK: arith.cmpi ne, %{{.+}}, %{{.+}} : i64
// CHECK: arith.uitofp %{{.+}} : i1 to f16
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: arith.bitcast %{{.+}} : f32 to i32
func.func @casts(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = tessel.cast %x to i32 : tensor<4xf32> -> tensor<4xi32>
  %1 = tessel.cast %0 to i64 : tensor<4xi32> -> tensor<4xi64>
  %2 = tessel.cast %1 to i1 : tensor<4xi64> -> tensor<4xi1>
  %3 = tessel.cast %2 to f16 : tensor<4xi1> -> tensor<4xf16>
  %4 = tessel.cast %3 to bf16 : tensor<4xf16> -> tensor<4xbf16>
  return %4 : tensor<4xbf16>
}

// -----

// Casts to bf16 go through f32 and round to nearest even in integer code
// (no __truncsfbf2 call; NaN stays NaN).
// CHECK-LABEL: func.func @to_bf16
// CHECK: ^bb0(%[[X:.+]]: i32, %{{.+}}: bf16):
// CHECK: %[[F:.+]] = arith.sitofp %[[X]] : i32 to f32
// CHECK: %[[BITS:.+]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: %[[HIGH:.+]] = arith.trunci %{{.+}} : i32 to i16
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK: %[[R:.+]] = arith.select %[[NAN]], %{{.+}}, %[[HIGH]] : i16
// CHECK: arith.bitcast %[[R]] : i16 to bf16
// CHECK: ^bb0(%[[D:.+]]: f64, %{{.+}}: bf16):
// CHECK: %[[G:.+]] = arith.truncf %[[D]] : f64 to f32
// CHECK: arith.bitcast %[[G]] : f32 to i32
func.func @to_bf16(%x: tensor<4xi32>, %d: tensor<4xf64>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = tessel.cast %x to bf16 : tensor<4xi32> -> tensor<4xbf16>
  %1 = tessel.cast %d to bf16 : tensor<4xf64> -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}
