// RUN: tessel-opt %s --tessel-constant-globals-as-bytes=min-bytes=8 | FileCheck %s

// A nested array of floats becomes its bytes, little-endian as the host
// holds them (1.0 = 0x3f800000, 2.0 = 0x40000000), its alignment kept.
// CHECK: llvm.mlir.global private constant @nested(dense<[0, 0, -128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, -128, 64]> : tensor<16xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<16 x i8>
llvm.mlir.global private constant @nested(dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2 x array<2 x f32>>

// Without an alignment, the 16 LLVM gives arrays of 16 bytes or more.
// CHECK: llvm.mlir.global private constant @unaligned(dense<[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0]> : tensor<16xi8>) {addr_space = 0 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
llvm.mlir.global private constant @unaligned(dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi16>) {addr_space = 0 : i32} : !llvm.array<8 x i16>

// Kept: below min-bytes, a splat, booleans (not whole bytes), mutable
// globals, bytes already.
// CHECK: llvm.mlir.global private constant @small(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>) {addr_space = 0 : i32} : !llvm.array<2 x f16>
// CHECK: llvm.mlir.global private constant @splat(dense<1.000000e+00> : tensor<4x4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x array<4 x f32>>
// CHECK: llvm.mlir.global private constant @bools(dense<{{.*}}> : tensor<4x4xi1>) {addr_space = 0 : i32} : !llvm.array<4 x array<4 x i1>>
// CHECK: llvm.mlir.global private @mutable(dense<{{.*}}> : tensor<2x4xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<4 x f32>>
// CHECK: llvm.mlir.global private constant @bytes(dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi8>) {addr_space = 0 : i32} : !llvm.array<16 x i8>
llvm.mlir.global private constant @small(dense<[1.0, 2.0]> : tensor<2xf16>) {addr_space = 0 : i32} : !llvm.array<2 x f16>
llvm.mlir.global private constant @splat(dense<1.0> : tensor<4x4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x array<4 x f32>>
llvm.mlir.global private constant @bools(dense<[[true, false, true, false], [true, false, true, false], [true, false, true, false], [true, true, false, false]]> : tensor<4x4xi1>) {addr_space = 0 : i32} : !llvm.array<4 x array<4 x i1>>
llvm.mlir.global private @mutable(dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>) {addr_space = 0 : i32} : !llvm.array<2 x array<4 x f32>>
llvm.mlir.global private constant @bytes(dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi8>) {addr_space = 0 : i32} : !llvm.array<16 x i8>

// The kernels' addresses do not change (opaque pointers).
// CHECK-LABEL: llvm.func @reads
// CHECK: llvm.mlir.addressof @nested : !llvm.ptr
llvm.func @reads() -> f32 {
  %p = llvm.mlir.addressof @nested : !llvm.ptr
  %q = llvm.getelementptr %p[0, 1, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<2 x f32>>
  %v = llvm.load %q : !llvm.ptr -> f32
  llvm.return %v : f32
}
