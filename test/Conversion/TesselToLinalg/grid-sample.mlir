// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// grid_sample is one generic over the output: the body reads the grid point
// (y first, for the height), denormalises it in f64, rounds it to f32 as
// ONNX's reference does, and weighs the neighbours read with tensor.extract.

// Linear, zeros: 2x2 neighbours at floor(x) and floor(x) + 1, read at indices
// clamped into the image and replaced by 0 outside it.
// CHECK-LABEL: func.func @linear_zeros
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x3x4xf32>, %[[G:.+]]: tensor<1x5x6x2xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x5x6xf32>)
// CHECK: %[[N:.+]] = linalg.index 0
// CHECK: %[[H:.+]] = linalg.index 2
// CHECK: %[[W:.+]] = linalg.index 3
// CHECK: %[[GY:.+]] = tensor.extract %[[G]][%[[N]], %[[H]], %[[W]], %c1]
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: math.floor
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: tensor.extract %[[G]][%[[N]], %[[H]], %[[W]], %c0]
// CHECK-COUNT-4: tensor.extract %[[X]]
// CHECK-NOT: tensor.extract
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: linalg.yield
func.func @linear_zeros(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = tessel.grid_sample %x, %g : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// Nearest rounds half to even and reads one pixel; border clamps the
// coordinate that lies outside the image.
// CHECK-LABEL: func.func @nearest_border
// CHECK: linalg.generic
// CHECK: math.roundeven
// CHECK: arith.select
// CHECK: math.trunc
// CHECK: math.roundeven
// CHECK: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @nearest_border(%x: tensor<1x1x3x2xf16>, %g: tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf16> {
  %0 = tessel.grid_sample %x, %g {mode = #tessel.interpolation<nearest>, padding_mode = #tessel.grid_padding<border>} : (tensor<1x1x3x2xf16>, tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf16>
  return %0 : tensor<1x1x2x4xf16>
}

// -----

// Cubic reads 4x4 neighbours; reflection mirrors each of their indices.
// CHECK-LABEL: func.func @cubic_reflection
// CHECK: linalg.generic
// CHECK-COUNT-16: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @cubic_reflection(%x: tensor<1x1x3x2xf32>, %g: tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32> {
  %0 = tessel.grid_sample %x, %g {mode = #tessel.interpolation<cubic>, padding_mode = #tessel.grid_padding<reflection>, align_corners = true} : (tensor<1x1x3x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}
