// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// A tessel.fused region lowers to its ops' linalg, inlined, each structured
// op marked with the region's group; an op in no region is a group of its
// own; fills and constants get none.

// CHECK-LABEL: func.func @groups
// CHECK-NOT:     tessel.fused
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>) {{.*}} attrs = {tessel.fusion_group = 0 : i64}
// CHECK:           math.exp
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>) {{.*}} attrs = {tessel.fusion_group = 1 : i64}
// CHECK:           arith.maximumf
// CHECK:         %[[N:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<4x8xf32>) {{.*}} attrs = {tessel.fusion_group = 1 : i64}
// CHECK:           arith.negf
// CHECK:         %[[F:.*]] = linalg.fill
// CHECK-NOT:       tessel.fusion_group
// CHECK-SAME:      -> tensor<4x4xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[N]], %arg1 : {{.*}}) outs(%[[F]] : tensor<4x4xf32>) attrs = {tessel.fusion_group = 2 : i64}
// CHECK:           arith.mulf
func.func @groups(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %p = tessel.exp %x : tensor<4x8xf32>
  %y = tessel.fused "elementwise" -> tensor<4x8xf32> {
    %r = tessel.relu %p : tensor<4x8xf32>
    %n = tessel.neg %r : tensor<4x8xf32>
    tessel.yield %n : tensor<4x8xf32>
  }
  %m = tessel.matmul %y, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
