// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Resize interpolates one dimension at a time, the last first, each as a
// generic over its output that computes the source coordinate in f64 from
// linalg.index and reads neighbours with tensor.extract. Unscaled
// dimensions are skipped.

// Linear, half_pixel: coordinate (x + 0.5) / scale - 0.5; neighbours at
// ceil(x) - 1 and ceil(x), clamped to the input, weights 1 - r and r.
// CHECK-LABEL: func.func @linear_half_pixel
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x2x2xf32>)
// CHECK: %[[W:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x2x4xf32>)
// CHECK: linalg.index 3
// CHECK: arith.divf
// CHECK: math.ceil
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %[[X]]
// CHECK: arith.extf
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x4x4xf32>)
// CHECK: linalg.index 2
// CHECK: tensor.extract %[[W]]
func.func @linear_half_pixel(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = tessel.resize %x {mode = #tessel.interpolation<linear>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 1, 4, 4>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Nearest, asymmetric, floor: one read at floor(x / scale); one dimension
// resized, so one generic.
// CHECK-LABEL: func.func @nearest_floor
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: tensor.extract
// CHECK-NOT: linalg.generic
func.func @nearest_floor(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x6xf32> {
  %0 = tessel.resize %x {coordinate_transformation_mode = #tessel.coordinate_mode<asymmetric>, nearest_mode = #tessel.nearest_mode<floor>, scales = array<f64: 1.0, 1.0, 1.0, 3.0>, sizes = array<i64: 1, 1, 2, 6>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x6xf32>
  return %0 : tensor<1x1x2x6xf32>
}

// -----

// tf_crop_and_resize yields extrapolation_value where the coordinate leaves
// the input; cubic with exclude_outside renormalises the four weights.
// CHECK-LABEL: func.func @cubic_crop
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract
// CHECK: arith.divf
// CHECK: %[[FILL:.+]] = arith.constant 1.000000e+01 : f32
// CHECK: arith.select %{{.+}}, %[[FILL]], %{{.+}} : f32
func.func @cubic_crop(%x: tensor<4x4xf32>) -> tensor<4x3xf32> {
  %0 = tessel.resize %x {mode = #tessel.interpolation<cubic>, coordinate_transformation_mode = #tessel.coordinate_mode<tf_crop_and_resize>, exclude_outside = true, extrapolation_value = 10.0 : f64, roi = array<f64: 0.0, 0.4, 1.0, 1.2>, scales = array<f64: 1.0, 0.75>, sizes = array<i64: 4, 3>} : (tensor<4x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
