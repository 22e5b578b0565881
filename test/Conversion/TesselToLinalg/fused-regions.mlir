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

// -----

// In a `layout` region the transpose lowers to a generic reading its input
// at the inverse permutation (result[c, h, w] = input[h, w, c]), which the
// cast's generic can fuse into; elsewhere it stays linalg.transpose.
// CHECK-DAG:   #[[$READ:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG:   #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @layout_region
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x5x3xi8>) {{.*}} attrs = {tessel.fusion_group = [[G:[0-9]+]] : i64}
// CHECK:           arith.uitofp
// CHECK:         linalg.generic {indexing_maps = [#[[$READ]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[C]] : tensor<4x5x3xf32>) outs({{.*}} : tensor<3x4x5xf32>) attrs = {tessel.fusion_group = [[G]] : i64}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         linalg.transpose ins(%arg1 : tensor<4x5x3xf32>) {{.*}} permutation = [2, 0, 1]
func.func @layout_region(%x: tensor<4x5x3xui8>, %z: tensor<4x5x3xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %y = tessel.fused "layout" -> tensor<3x4x5xf32> {
    %f = tessel.cast %x to f32 : tensor<4x5x3xui8> -> tensor<4x5x3xf32>
    %t = tessel.transpose %f {perm = array<i64: 2, 0, 1>} : (tensor<4x5x3xf32>) -> tensor<3x4x5xf32>
    tessel.yield %t : tensor<3x4x5xf32>
  }
  %u = tessel.transpose %z {perm = array<i64: 2, 0, 1>} : (tensor<4x5x3xf32>) -> tensor<3x4x5xf32>
  return %y, %u : tensor<3x4x5xf32>, tensor<3x4x5xf32>
}
