// RUN: tessel-opt %s --split-input-file --tessel-prefetch-weights | FileCheck %s

// A 1x1 convolution's product as the code generator leaves it: panels of
// 32 filters [40, 320, 32], the panel index computed in the loop over
// filter blocks, the panel read again in each of the 7 pixel tiles. The
// pixel loop's body runs in two versions: in its first iteration the
// reduction loop prefetches, before the read, one line (two for 32 floats)
// of the same row of the next panel, clamped to the last panel (39); the
// other iterations run it as it was.
// CHECK-LABEL: func.func @panel_per_filter_block
// CHECK: scf.for %[[F:.+]] = %c0 to %c1280 step %c32
// CHECK: %[[P:.+]] = arith.divui %[[F]], %c32
// CHECK: scf.for %[[T:.+]] = %c0 to %c49 step %c7
// CHECK-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[T]], %c0
// CHECK-NEXT: %[[ACC:.+]] = scf.if %[[FIRST]] -> (vector<32xf32>)
// CHECK-NEXT: %[[WITH:.+]] = scf.for %[[K:.+]] = %c0 to %c320 step %c1
// CHECK: %[[STEP:.+]] = arith.addi %[[P]], %c1
// CHECK-NEXT: %[[NEXT:.+]] = arith.minsi %[[STEP]], %c39
// CHECK-NEXT: memref.prefetch %[[W:.+]][%[[NEXT]], %[[K]], %c0], read, locality<2>, data : memref<40x320x32xf32>
// CHECK: %[[C16:.+]] = arith.addi %c0, %c16
// CHECK-NEXT: memref.prefetch %[[W]][%[[NEXT]], %[[K]], %[[C16]]], read, locality<2>, data
// CHECK-NEXT: vector.transfer_read %[[W]][%[[P]], %[[K]], %c0]
// CHECK: scf.yield %[[WITH]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[WITHOUT:.+]] = scf.for
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield %[[WITHOUT]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store
memref.global "private" constant @__constant_40x320x32xf32 : memref<40x320x32xf32> = dense<1.0>
func.func @panel_per_filter_block(%out: memref<1280x49xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c49 = arith.constant 49 : index
  %c320 = arith.constant 320 : index
  %c1280 = arith.constant 1280 : index
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %w = memref.get_global @__constant_40x320x32xf32 : memref<40x320x32xf32>
  scf.for %f = %c0 to %c1280 step %c32 {
    %p = arith.divui %f, %c32 : index
    scf.for %t = %c0 to %c49 step %c7 {
      %acc = scf.for %k = %c0 to %c320 step %c1 iter_args(%a = %zero) -> vector<32xf32> {
        %v = vector.transfer_read %w[%p, %k, %c0], %cst {in_bounds = [true]} : memref<40x320x32xf32>, vector<32xf32>
        %s = arith.addf %a, %v : vector<32xf32>
        scf.yield %s : vector<32xf32>
      }
      memref.store %cst, %out[%f, %t] : memref<1280x49xf32>
    }
  }
  return
}

// -----

// The reuse loop need not be the read's parent: a 3x3 filter's taps are
// loops of their own inside the pixel-tile loop (the tap loops are what
// runs in two versions; with no results, the branches end in the yields
// they were built with). One line per read (16 floats).
// CHECK-LABEL: func.func @taps_inside_tiles
// CHECK: scf.for %[[T:.+]] = %c0 to %c56 step %c8
// CHECK-NEXT: %[[FIRST:.+]] = arith.cmpi eq, %[[T]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %[[KH:.+]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[KW:.+]] = %c0 to %c3 step %c1
// CHECK: %[[NEXT:.+]] = arith.minsi %{{.+}}, %c3
// CHECK-NEXT: memref.prefetch %{{.+}}[%[[NEXT]], %[[KH]], %[[KW]], %c0], read, locality<2>, data : memref<4x3x3x16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
// CHECK: } else {
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
// CHECK: return
memref.global "private" constant @__constant_4x3x3x16xf32 : memref<4x3x3x16xf32> = dense<1.0>
func.func @taps_inside_tiles(%out: memref<4x56xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %cst = arith.constant 0.0 : f32
  %w = memref.get_global @__constant_4x3x3x16xf32 : memref<4x3x3x16xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %t = %c0 to %c56 step %c8 {
      scf.for %kh = %c0 to %c3 step %c1 {
        scf.for %kw = %c0 to %c3 step %c1 {
          %v = vector.transfer_read %w[%p, %kh, %kw, %c0], %cst {in_bounds = [true]} : memref<4x3x3x16xf32>, vector<16xf32>
          %e = vector.extract %v[0] : f32 from vector<16xf32>
          memref.store %e, %out[%p, %t] : memref<4x56xf32>
        }
      }
    }
  }
  return
}

// -----

// A product's register tile reads its panel [p, k, 0..31] as one vector
// across its 5 rows (vector<5x1x32x1>, broadcast along the rows and the
// reduction): 32 contiguous floats, two lines, prefetched in the first row
// tile of each panel.
// CHECK-LABEL: func.func @product_tile_rows
// CHECK: scf.for %[[P:.+]] = %c0 to %c96 step %c1
// CHECK: scf.for %[[R:.+]] = %c0 to %c50 step %c5
// CHECK-NEXT: arith.cmpi eq, %[[R]], %c0
// CHECK: scf.for %[[K:.+]] = %c0 to %c768 step %c1
// CHECK: memref.prefetch %[[W:.+]][%[[NEXT:.+]], %[[K]], %c0], read, locality<2>, data : memref<96x768x32xf32>
// CHECK: memref.prefetch %[[W]][%[[NEXT]], %[[K]], %{{.+}}], read, locality<2>, data : memref<96x768x32xf32>
// CHECK-NOT: memref.prefetch
// CHECK: } else {
memref.global "private" constant @__constant_96x768x32xf32 : memref<96x768x32xf32> = dense<1.0>
func.func @product_tile_rows(%x: memref<50x768xf32>, %out: memref<50x96x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c50 = arith.constant 50 : index
  %c96 = arith.constant 96 : index
  %c768 = arith.constant 768 : index
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<5x1x32xf32>
  %w = memref.get_global @__constant_96x768x32xf32 : memref<96x768x32xf32>
  scf.for %p = %c0 to %c96 step %c1 {
    scf.for %r = %c0 to %c50 step %c5 {
      %acc = scf.for %k = %c0 to %c768 step %c1 iter_args(%a = %zero) -> vector<5x1x32xf32> {
        %l = vector.transfer_read %x[%r, %k], %cst {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1) -> (d0, 0, 0, d1)>} : memref<50x768xf32>, vector<5x1x32x1xf32>
        %b = vector.transfer_read %w[%p, %k, %c0], %cst {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1, d2) -> (0, d0, d2, d1)>} : memref<96x768x32xf32>, vector<5x1x32x1xf32>
        %m = arith.mulf %l, %b : vector<5x1x32x1xf32>
        %c = vector.shape_cast %m : vector<5x1x32x1xf32> to vector<5x1x32xf32>
        %s = arith.addf %a, %c : vector<5x1x32xf32>
        scf.yield %s : vector<5x1x32xf32>
      }
      vector.transfer_write %acc, %out[%r, %p, %c0] {in_bounds = [true, true, true]} : vector<5x1x32xf32>, memref<50x96x32xf32>
    }
  }
  return
}

// -----

// Left alone: a matrix-vector product's weights (every loop's induction
// variable is an index: each line is read once), a panel index that changes
// inside the only repeating loop, a loop of one iteration around the
// reads, a read of an argument at columns no loop steps through, a read of
// two rows (not one run of the innermost dimension) and a masked read.
// CHECK-LABEL: func.func @not_prefetched
// CHECK-NOT: memref.prefetch
memref.global "private" constant @__constant_8x784x64xf32 : memref<8x784x64xf32> = dense<1.0>
func.func @not_prefetched(%arg: memref<8x784x64xf32>, %out: memref<8x64xf32>, %m: vector<64xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c784 = arith.constant 784 : index
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %w = memref.get_global @__constant_8x784x64xf32 : memref<8x784x64xf32>
  scf.for %p = %c0 to %c8 step %c1 {
    %acc = scf.for %k = %c0 to %c784 step %c1 iter_args(%a = %zero) -> vector<64xf32> {
      %v = vector.transfer_read %w[%p, %k, %c0], %cst {in_bounds = [true]} : memref<8x784x64xf32>, vector<64xf32>
      %s = arith.addf %a, %v : vector<64xf32>
      scf.yield %s : vector<64xf32>
    }
    vector.transfer_write %acc, %out[%p, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
  }
  scf.for %t = %c0 to %c8 step %c1 {
    %q = arith.divui %t, %c2 : index
    %v = vector.transfer_read %w[%q, %c0, %c0], %cst {in_bounds = [true]} : memref<8x784x64xf32>, vector<64xf32>
    vector.transfer_write %v, %out[%q, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
  }
  scf.for %p = %c0 to %c8 step %c1 {
    scf.for %once = %c0 to %c1 step %c1 {
      %v = vector.transfer_read %w[%p, %c0, %c0], %cst {in_bounds = [true]} : memref<8x784x64xf32>, vector<64xf32>
      vector.transfer_write %v, %out[%p, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
    }
  }
  scf.for %p = %c0 to %c8 step %c1 {
    scf.for %t = %c0 to %c8 step %c1 {
      %v = vector.transfer_read %arg[%p, %c0, %c0], %cst {in_bounds = [true]} : memref<8x784x64xf32>, vector<64xf32>
      %v2 = vector.transfer_read %w[%p, %c0, %c0], %cst {in_bounds = [true, true]} : memref<8x784x64xf32>, vector<2x64xf32>
      %v3 = vector.transfer_read %w[%p, %c0, %c0], %cst, %m {in_bounds = [true]} : memref<8x784x64xf32>, vector<64xf32>
      vector.transfer_write %v, %out[%p, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
      %r = vector.extract %v2[0] : vector<64xf32> from vector<2x64xf32>
      vector.transfer_write %r, %out[%p, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
      vector.transfer_write %v3, %out[%p, %c0] {in_bounds = [true]} : vector<64xf32>, memref<8x64xf32>
    }
  }
  return
}

// -----

// Left alone: an index carried by the loop around the read (each iteration
// reads another row, as an induction variable would), so the loop reuses
// nothing.
// CHECK-LABEL: func.func @carried_index
// CHECK-NOT: memref.prefetch
memref.global "private" constant @__constant_4x8x16xf32 : memref<4x8x16xf32> = dense<1.0>
func.func @carried_index(%out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  %w = memref.get_global @__constant_4x8x16xf32 : memref<4x8x16xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    %last = scf.for %t = %c0 to %c8 step %c1 iter_args(%row = %c0) -> index {
      %v = vector.transfer_read %w[%p, %row, %c0], %cst {in_bounds = [true]} : memref<4x8x16xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%p, %c0] {in_bounds = [true]} : vector<16xf32>, memref<4x16xf32>
      %next = arith.addi %row, %c1 : index
      scf.yield %next : index
    }
  }
  return
}

// -----

// A holder of more than 64 ops (here a reduction loop of 70, as a
// convolution tile's unrolled taps are) is not copied: the prefetches run
// in every iteration of the reuse loop, with no scf.if.
// CHECK-LABEL: func.func @large_holder_unversioned
// CHECK-NOT: scf.if
// CHECK: memref.prefetch
// CHECK-NOT: scf.if
memref.global "private" constant @__constant_4x8x16xf32_large : memref<4x8x16xf32> = dense<1.0>
func.func @large_holder_unversioned(%out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %w = memref.get_global @__constant_4x8x16xf32_large : memref<4x8x16xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %t = %c0 to %c8 step %c1 {
      %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%e0 = %zero) -> vector<16xf32> {
        %v = vector.transfer_read %w[%p, %k, %c0], %cst {in_bounds = [true]} : memref<4x8x16xf32>, vector<16xf32>
        %e1 = arith.addf %e0, %v : vector<16xf32>
        %e2 = arith.addf %e1, %v : vector<16xf32>
        %e3 = arith.addf %e2, %v : vector<16xf32>
        %e4 = arith.addf %e3, %v : vector<16xf32>
        %e5 = arith.addf %e4, %v : vector<16xf32>
        %e6 = arith.addf %e5, %v : vector<16xf32>
        %e7 = arith.addf %e6, %v : vector<16xf32>
        %e8 = arith.addf %e7, %v : vector<16xf32>
        %e9 = arith.addf %e8, %v : vector<16xf32>
        %e10 = arith.addf %e9, %v : vector<16xf32>
        %e11 = arith.addf %e10, %v : vector<16xf32>
        %e12 = arith.addf %e11, %v : vector<16xf32>
        %e13 = arith.addf %e12, %v : vector<16xf32>
        %e14 = arith.addf %e13, %v : vector<16xf32>
        %e15 = arith.addf %e14, %v : vector<16xf32>
        %e16 = arith.addf %e15, %v : vector<16xf32>
        %e17 = arith.addf %e16, %v : vector<16xf32>
        %e18 = arith.addf %e17, %v : vector<16xf32>
        %e19 = arith.addf %e18, %v : vector<16xf32>
        %e20 = arith.addf %e19, %v : vector<16xf32>
        %e21 = arith.addf %e20, %v : vector<16xf32>
        %e22 = arith.addf %e21, %v : vector<16xf32>
        %e23 = arith.addf %e22, %v : vector<16xf32>
        %e24 = arith.addf %e23, %v : vector<16xf32>
        %e25 = arith.addf %e24, %v : vector<16xf32>
        %e26 = arith.addf %e25, %v : vector<16xf32>
        %e27 = arith.addf %e26, %v : vector<16xf32>
        %e28 = arith.addf %e27, %v : vector<16xf32>
        %e29 = arith.addf %e28, %v : vector<16xf32>
        %e30 = arith.addf %e29, %v : vector<16xf32>
        %e31 = arith.addf %e30, %v : vector<16xf32>
        %e32 = arith.addf %e31, %v : vector<16xf32>
        %e33 = arith.addf %e32, %v : vector<16xf32>
        %e34 = arith.addf %e33, %v : vector<16xf32>
        %e35 = arith.addf %e34, %v : vector<16xf32>
        %e36 = arith.addf %e35, %v : vector<16xf32>
        %e37 = arith.addf %e36, %v : vector<16xf32>
        %e38 = arith.addf %e37, %v : vector<16xf32>
        %e39 = arith.addf %e38, %v : vector<16xf32>
        %e40 = arith.addf %e39, %v : vector<16xf32>
        %e41 = arith.addf %e40, %v : vector<16xf32>
        %e42 = arith.addf %e41, %v : vector<16xf32>
        %e43 = arith.addf %e42, %v : vector<16xf32>
        %e44 = arith.addf %e43, %v : vector<16xf32>
        %e45 = arith.addf %e44, %v : vector<16xf32>
        %e46 = arith.addf %e45, %v : vector<16xf32>
        %e47 = arith.addf %e46, %v : vector<16xf32>
        %e48 = arith.addf %e47, %v : vector<16xf32>
        %e49 = arith.addf %e48, %v : vector<16xf32>
        %e50 = arith.addf %e49, %v : vector<16xf32>
        %e51 = arith.addf %e50, %v : vector<16xf32>
        %e52 = arith.addf %e51, %v : vector<16xf32>
        %e53 = arith.addf %e52, %v : vector<16xf32>
        %e54 = arith.addf %e53, %v : vector<16xf32>
        %e55 = arith.addf %e54, %v : vector<16xf32>
        %e56 = arith.addf %e55, %v : vector<16xf32>
        %e57 = arith.addf %e56, %v : vector<16xf32>
        %e58 = arith.addf %e57, %v : vector<16xf32>
        %e59 = arith.addf %e58, %v : vector<16xf32>
        %e60 = arith.addf %e59, %v : vector<16xf32>
        %e61 = arith.addf %e60, %v : vector<16xf32>
        %e62 = arith.addf %e61, %v : vector<16xf32>
        %e63 = arith.addf %e62, %v : vector<16xf32>
        %e64 = arith.addf %e63, %v : vector<16xf32>
        %e65 = arith.addf %e64, %v : vector<16xf32>
        %e66 = arith.addf %e65, %v : vector<16xf32>
        %e67 = arith.addf %e66, %v : vector<16xf32>
        %e68 = arith.addf %e67, %v : vector<16xf32>
        %e69 = arith.addf %e68, %v : vector<16xf32>
        scf.yield %e69 : vector<16xf32>
      }
      vector.transfer_write %acc, %out[%p, %c0] {in_bounds = [true]} : vector<16xf32>, memref<4x16xf32>
    }
  }
  return
}

// -----

// A 1x1 convolution's product [256, 64] x [64, 3136] with its input read in
// place: column blocks of 16 outside, row tiles of 6 inside them, each row
// tile reading the block's 64 rows again. In the first row tile, the
// reduction loop prefetches the same row of the next column block, clamped
// to the last block's start (3136 - 16 = 3120); the weights (their row
// index varies with the row tile) are not prefetched.
// CHECK-LABEL: func.func @columns_of_an_activation
// CHECK: scf.for %[[J:.+]] = %c0 to %c3136 step %c16
// CHECK: scf.for %[[R:.+]] = %c0 to %c256 step %c6
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[R]], %c0
// CHECK-NEXT: scf.if %[[FIRST]]
// CHECK-NEXT: scf.for %[[K:.+]] = %c0 to %c64 step %c1
// CHECK-NOT: memref.prefetch
// CHECK: %[[STEP:.+]] = arith.addi %[[J]], %c16
// CHECK-NEXT: %[[NEXT:.+]] = arith.minsi %[[STEP]], %c3120
// CHECK-NEXT: memref.prefetch %[[X:.+]][%[[K]], %[[NEXT]]], read, locality<2>, data : memref<64x3136xf32>
// CHECK-NEXT: vector.transfer_read %[[X]][%[[K]], %[[J]]]
// CHECK: } else {
// CHECK-NOT: memref.prefetch
// CHECK: return
memref.global "private" constant @__constant_256x64xf32 : memref<256x64xf32> = dense<1.0>
func.func @columns_of_an_activation(%x: memref<64x3136xf32>, %out: memref<256x3136xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c3136 = arith.constant 3136 : index
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %w = memref.get_global @__constant_256x64xf32 : memref<256x64xf32>
  scf.for %j = %c0 to %c3136 step %c16 {
    scf.for %r = %c0 to %c256 step %c6 {
      %row = affine.min affine_map<(d0) -> (250, d0)>(%r)
      %acc = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %zero) -> vector<6x16xf32> {
        %l = vector.transfer_read %w[%row, %k], %cst {in_bounds = [true, true]} : memref<256x64xf32>, vector<6x1xf32>
        %b = vector.transfer_read %x[%k, %j], %cst {in_bounds = [true, true]} : memref<64x3136xf32>, vector<1x16xf32>
        %c = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %b, %a : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
        scf.yield %c : vector<6x16xf32>
      }
      vector.transfer_write %acc, %out[%row, %j] {in_bounds = [true, true]} : vector<6x16xf32>, memref<256x3136xf32>
    }
  }
  return
}

// -----

// Left alone: columns read once per column block (no loop inside the
// column loop rereads them), and a column loop inside the loop that
// repeats the read (its next block is the next iteration's own read).
// CHECK-LABEL: func.func @columns_not_reread
// CHECK-NOT: memref.prefetch
func.func @columns_not_reread(%x: memref<64x256xf32>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %cst = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c256 step %c16 {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = vector.transfer_read %x[%k, %j], %cst {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%k, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
  }
  scf.for %t = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c256 step %c16 {
      %v = vector.transfer_read %x[%c0, %j], %cst {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%t, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
  }
  return
}
