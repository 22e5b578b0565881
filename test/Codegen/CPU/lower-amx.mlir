// RUN: tessel-opt %s --split-input-file --convert-scf-to-cf --tessel-lower-amx | FileCheck %s

// A reduction loop carrying AMX accumulator tiles, after convert-scf-to-cf:
// the amx ops become the LLVM intrinsics, and the branches that carry the
// tiles carry !llvm.x86_amx (the later per-dialect conversions know no tile
// type). Memref and index operands are bridged by casts.
// CHECK-LABEL: func.func @carried
// CHECK:         %[[ZERO:.*]] = llvm.call_intrinsic "llvm.x86.tilezero.internal"
// CHECK:         llvm.br ^bb1(%{{.*}}, %[[ZERO]] : i64, !llvm.x86_amx)
// CHECK:       ^bb1(%{{.*}}: i64, %[[ACC:.*]]: !llvm.x86_amx):
// CHECK:         cf.cond_br
// CHECK:         %[[A:.*]] = llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// CHECK:         %[[B:.*]] = llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// CHECK:         %[[NEXT:.*]] = llvm.call_intrinsic "llvm.x86.tdpbusd.internal"({{.*}}, %[[ACC]], %[[A]], %[[B]])
// CHECK:         llvm.br ^bb1(%{{.*}}, %[[NEXT]] : i64, !llvm.x86_amx)
// CHECK:         llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// CHECK-NOT:     amx.
// CHECK-NOT:     !amx.tile
func.func @carried(%a: memref<16x256xi8>, %b: memref<64x64xi8>, %c: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = amx.tile_zero : !amx.tile<16x16xi32>
  %sum = scf.for %k = %c0 to %c256 step %c64 iter_args(%acc = %zero) -> (!amx.tile<16x16xi32>) {
    %g = arith.divui %k, %c16 : index
    %at = amx.tile_load %a[%c0, %k] : memref<16x256xi8> into !amx.tile<16x64xi8>
    %bt = amx.tile_load %b[%g, %c0] : memref<64x64xi8> into !amx.tile<16x64xi8>
    %next = amx.tile_muli %at zext, %bt, %acc : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
    scf.yield %next : !amx.tile<16x16xi32>
  }
  amx.tile_store %c[%c0, %c0], %sum : memref<16x16xi32>, !amx.tile<16x16xi32>
  return
}

// -----

// A module without amx ops is left as it is: its branches stay cf.
// CHECK-LABEL: func.func @no_tiles
// CHECK:         cf.br
// CHECK-NOT:     llvm.br
func.func @no_tiles(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (f32) {
    %w = arith.addf %v, %v : f32
    scf.yield %w : f32
  }
  return %r : f32
}
