// RUN: tessel-opt %s | tessel-opt | FileCheck %s

// Round trip of the gather, slice, broadcast, tile and pad ops.

// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<4x6xf32>, %i: tensor<2xi64>, %j: tensor<4x2xi32>) {
  // CHECK: tessel.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  %0 = tessel.gather %x, %i {axis = 1 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  // CHECK: tessel.gather_elements {{.*}} -> tensor<4x2xf32>
  %1 = tessel.gather_elements %x, %j {axis = 1 : i64} : (tensor<4x6xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  // CHECK: tessel.slice %{{.*}} {sizes = array<i64: 2, 3>, starts = array<i64: 1, 5>, steps = array<i64: 2, -2>}
  %2 = tessel.slice %x {starts = array<i64: 1, 5>, sizes = array<i64: 2, 3>, steps = array<i64: 2, -2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.broadcast_to {{.*}} -> tensor<3x4x6xf32>
  %3 = tessel.broadcast_to %x {shape = array<i64: 3, 4, 6>} : (tensor<4x6xf32>) -> tensor<3x4x6xf32>
  // CHECK: tessel.tile {{.*}} -> tensor<8x6xf32>
  %4 = tessel.tile %x {repeats = array<i64: 2, 1>} : (tensor<4x6xf32>) -> tensor<8x6xf32>
  // CHECK: tessel.pad {{.*}}mode = #tessel.pad_mode<reflect>{{.*}} -> tensor<4x10xf32>
  %5 = tessel.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #tessel.pad_mode<reflect>} : (tensor<4x6xf32>) -> tensor<4x10xf32>
  // CHECK: tessel.trilu %{{.*}} {upper = false} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %6 = tessel.trilu %x {upper = false} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

