// RUN: tessel-opt %s --split-input-file --tessel-lower-strided-copies | FileCheck %s

// A copy out of a strided view (a column block of a matrix) becomes
// linalg.copy, which lowers to loops instead of a call to MLIR's runner
// library.
// CHECK-LABEL: func.func @strided_source
// CHECK-SAME: (%[[SRC:.+]]: memref<4x8xf32, strided<[16, 1], offset: 4>>, %[[DST:.+]]: memref<4x8xf32>)
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x8xf32, strided<[16, 1], offset: 4>>) outs(%[[DST]] : memref<4x8xf32>)
// CHECK-NOT: memref.copy
func.func @strided_source(%src: memref<4x8xf32, strided<[16, 1], offset: 4>>, %dst: memref<4x8xf32>) {
  memref.copy %src, %dst : memref<4x8xf32, strided<[16, 1], offset: 4>> to memref<4x8xf32>
  return
}

// -----

// A strided target alone is enough.
// CHECK-LABEL: func.func @strided_target
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
func.func @strided_target(%src: memref<2x3xf32>, %dst: memref<2x3xf32, strided<[1, 2]>>) {
  memref.copy %src, %dst : memref<2x3xf32> to memref<2x3xf32, strided<[1, 2]>>
  return
}

// -----

// Contiguous on both sides (an identity layout, or a strided layout that is
// row-major with an offset): the copy stays, and becomes memcpy.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
// CHECK-NOT: linalg.copy
func.func @contiguous(%src: memref<4x8xf32>, %dst: memref<4x8xf32, strided<[8, 1], offset: 32>>) {
  memref.copy %src, %dst : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  return
}

// -----

// A dynamic shape is not known to be contiguous: loops.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.copy
func.func @dynamic(%src: memref<?xf32>, %dst: memref<?xf32>) {
  memref.copy %src, %dst : memref<?xf32> to memref<?xf32>
  return
}

// -----

// An unranked copy is left alone.
// CHECK-LABEL: func.func @unranked
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @unranked(%src: memref<*xf32>, %dst: memref<*xf32>) {
  memref.copy %src, %dst : memref<*xf32> to memref<*xf32>
  return
}
