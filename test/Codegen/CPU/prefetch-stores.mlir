// RUN: tessel-opt %s --split-input-file --tessel-prefetch-stores | FileCheck %s

// A 4x16 tile stored at [i, j], j stepping by 16: before the store, one
// write prefetch per row of the lines the next j stores, the next j
// clamped to the last iteration's start (112 - 16 = 96).
// CHECK-LABEL: func.func @tile_rows
// CHECK: scf.for %[[J:.+]] = %c0 to %c112 step %c16
// CHECK: scf.for %[[I:.+]] = %c0 to %c8 step %c4
// CHECK: %[[STEP:.+]] = arith.addi %[[J]], %c16
// CHECK-NEXT: %[[NEXT:.+]] = arith.minsi %[[STEP]], %c96
// CHECK-NEXT: memref.prefetch %[[BUF:.+]][%[[I]], %[[NEXT]]], write, locality<3>, data : memref<8x112xf32>
// CHECK: %[[I1:.+]] = arith.addi %[[I]], %c1
// CHECK-NEXT: memref.prefetch %[[BUF]][%[[I1]], %[[NEXT]]], write, locality<3>, data
// CHECK: %[[I2:.+]] = arith.addi %[[I]], %c2
// CHECK-NEXT: memref.prefetch %[[BUF]][%[[I2]], %[[NEXT]]], write, locality<3>, data
// CHECK: %[[I3:.+]] = arith.addi %[[I]], %c3
// CHECK-NEXT: memref.prefetch %[[BUF]][%[[I3]], %[[NEXT]]], write, locality<3>, data
// CHECK-NEXT: vector.transfer_write
func.func @tile_rows(%buf: memref<8x112xf32>, %v: vector<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c112 = arith.constant 112 : index
  scf.for %j = %c0 to %c112 step %c16 {
    scf.for %i = %c0 to %c8 step %c4 {
      vector.transfer_write %v, %buf[%i, %j] {in_bounds = [true, true]} : vector<4x16xf32>, memref<8x112xf32>
    }
  }
  return
}

// -----

// A product's 6x16 tile with a residual added before the store: the read of
// the residual at the tile's indices (same vector type, another buffer)
// gets read prefetches of the same lines before it; the reads of the
// reduction loop and of the bias (other indices) get none.
// CHECK-LABEL: func.func @epilogue_operand
// CHECK: scf.for %[[J:.+]] = %c0 to %c3136 step %c16
// CHECK: scf.for %[[I:.+]] = %c0 to %c256 step %c6
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
// CHECK: %[[STEP:.+]] = arith.addi %[[J]], %c16
// CHECK-NEXT: %[[NEXT:.+]] = arith.minsi %[[STEP]], %c3120
// CHECK-NEXT: memref.prefetch %[[RES:.+]][%[[ROW:.+]], %[[NEXT]]], read, locality<3>, data : memref<256x3136xf32>
// CHECK: %[[ROW5:.+]] = arith.addi %[[ROW]], %c5
// CHECK-NEXT: memref.prefetch %[[RES]][%[[ROW5]], %[[NEXT]]], read, locality<3>, data
// CHECK-NEXT: %[[R:.+]] = vector.transfer_read %[[RES]][%[[ROW]], %[[J]]]
// CHECK: memref.prefetch %[[OUT:.+]][%[[ROW]], %{{.+}}], write, locality<3>, data
// CHECK: vector.transfer_write %{{.+}}, %[[OUT]][%[[ROW]], %[[J]]]
// CHECK-NOT: memref.prefetch
func.func @epilogue_operand(%x: memref<64x3136xf32>, %w: memref<256x64xf32>, %bias: memref<256xf32>, %res: memref<256x3136xf32>, %out: memref<256x3136xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c3136 = arith.constant 3136 : index
  %cst = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c3136 step %c16 {
    scf.for %i = %c0 to %c256 step %c6 {
      %row = affine.min affine_map<(d0) -> (250, d0)>(%i)
      %init = vector.transfer_read %bias[%row], %cst {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (d0, 0)>} : memref<256xf32>, vector<6x16xf32>
      %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %init) -> vector<6x16xf32> {
        %l = vector.transfer_read %w[%row, %k], %cst {in_bounds = [true, true]} : memref<256x64xf32>, vector<6x1xf32>
        %b = vector.transfer_read %x[%k, %j], %cst {in_bounds = [true, true]} : memref<64x3136xf32>, vector<1x16xf32>
        %c = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %b, %a : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
        scf.yield %c : vector<6x16xf32>
      }
      %r = vector.transfer_read %res[%row, %j], %cst {in_bounds = [true, true]} : memref<256x3136xf32>, vector<6x16xf32>
      %sum = arith.addf %acc, %r : vector<6x16xf32>
      vector.transfer_write %sum, %out[%row, %j] {in_bounds = [true, true]} : vector<6x16xf32>, memref<256x3136xf32>
    }
  }
  return
}

// -----

// A 1-D store of two lines into a 4-D buffer: two prefetches, one per line.
// CHECK-LABEL: func.func @one_row_two_lines
// CHECK: %[[STEP:.+]] = arith.addi %[[J:.+]], %c32
// CHECK-NEXT: %[[NEXT:.+]] = arith.minsi %[[STEP]], %c32
// CHECK-NEXT: memref.prefetch %{{.+}}[%c0, %c0, %[[ROW:.+]], %[[NEXT]]], write, locality<3>, data : memref<1x2x3x64xf32>
// CHECK: %[[NEXT16:.+]] = arith.addi %[[NEXT]], %c16
// CHECK-NEXT: memref.prefetch %{{.+}}[%c0, %c0, %[[ROW]], %[[NEXT16]]], write, locality<3>, data
// CHECK-NEXT: vector.transfer_write
func.func @one_row_two_lines(%buf: memref<1x2x3x64xf32>, %v: vector<32xf32>, %row: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c32 {
    vector.transfer_write %v, %buf[%c0, %c0, %row, %j] {in_bounds = [true]} : vector<32xf32>, memref<1x2x3x64xf32>
  }
  return
}

// -----

// Left alone: a part of a line per row (8 floats), a column index that is
// no loop's induction variable, a loop of one iteration, a masked store,
// a store that may run out of bounds, and more than 8 rows.
// CHECK-LABEL: func.func @not_prefetched
// CHECK-NOT: memref.prefetch
func.func @not_prefetched(%buf: memref<16x64xf32>, %v8: vector<8xf32>, %v: vector<1x16xf32>, %tall: vector<16x16xf32>, %k: index, %m: vector<1x16xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c16 {
    vector.transfer_write %v8, %buf[%c0, %j] {in_bounds = [true]} : vector<8xf32>, memref<16x64xf32>
    %shifted = arith.addi %j, %c1 : index
    vector.transfer_write %v, %buf[%c0, %shifted] {in_bounds = [true, true]} : vector<1x16xf32>, memref<16x64xf32>
    vector.transfer_write %v, %buf[%c0, %j], %m {in_bounds = [true, true]} : vector<1x16xf32>, memref<16x64xf32>
    vector.transfer_write %v, %buf[%c0, %j] {in_bounds = [true, false]} : vector<1x16xf32>, memref<16x64xf32>
    vector.transfer_write %tall, %buf[%c0, %j] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x64xf32>
  }
  scf.for %j = %c0 to %c16 step %c16 {
    vector.transfer_write %v, %buf[%c0, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<16x64xf32>
  }
  return
}
