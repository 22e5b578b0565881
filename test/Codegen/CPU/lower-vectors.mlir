// RUN: tessel-opt %s --split-input-file --tessel-lower-vectors | FileCheck %s

// A 2x8 += 2x1 * 1x8 contraction on buffers becomes one FMA per row of
// the tile, on 1-D vectors (the 2-D transfers are left for
// convert-vector-to-scf{full-unroll=true}).

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @outer_product
// CHECK-NOT:     vector.contract
// CHECK-COUNT-2: vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:     vector.contract
func.func @outer_product(%a: memref<2x1xf32>, %b: memref<1x8xf32>, %c: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x1xf32>, vector<2x1xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x8xf32>, vector<1x8xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf32>, vector<2x8xf32>
  %r = vector.contract {indexing_maps = [#mA, #mB, #mC],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %va, %vb, %vc
      : vector<2x1xf32>, vector<1x8xf32> into vector<2x8xf32>
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, memref<2x8xf32>
  return
}

// -----

// A row reduction becomes one vector.reduction per row along the innermost
// dimension; float sums may be reassociated (a tree of vector adds).

// CHECK-LABEL: func.func @row_sums
// CHECK-COUNT-2: vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<32xf32> into f32
// CHECK-NOT:     vector.multi_reduction
func.func @row_sums(%v: vector<2x32xf32>, %acc: vector<2xf32>) -> vector<2xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<2x32xf32> to vector<2xf32>
  return %r : vector<2xf32>
}

// -----

// A maximum keeps its order-independent form, unmarked.

// CHECK-LABEL: func.func @row_max
// CHECK:         vector.reduction <maxnumf>, %{{.*}}, %{{.*}} : vector<32xf32> into f32
func.func @row_max(%v: vector<1x32xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <maxnumf>, %v, %acc [1] : vector<1x32xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// A per-channel scale read across 40 columns (a squeeze-excitation's
// scale): the broadcast dimension is read at size 1 and the value
// broadcast, not transposed into place element by element.
// CHECK-LABEL: func.func @scale_row
// CHECK:         %[[S:.+]] = vector.transfer_read %{{.+}} : memref<1x32x1x1xf32>, vector<1x1x1x1xf32>
// CHECK:         %[[E:.+]] = vector.extract %[[S]][0, 0, 0, 0] : f32 from vector<1x1x1x1xf32>
// CHECK:         vector.broadcast %[[E]] : f32 to vector<40xf32>
// CHECK-NOT:     vector.transpose
// CHECK:         arith.mulf %{{.+}} : vector<1x1x1x40xf32>
func.func @scale_row(%scale: memref<1x32x1x1xf32>, %x: memref<1x32x120x120xf32>, %y: memref<1x32x120x120xf32>, %c: index, %r: index, %col: index) {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  %s = vector.transfer_read %scale[%c0, %c, %c0, %c0], %pad {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>} : memref<1x32x1x1xf32>, vector<1x1x1x40xf32>
  %v = vector.transfer_read %x[%c0, %c, %r, %col], %pad {in_bounds = [true, true, true, true]} : memref<1x32x120x120xf32>, vector<1x1x1x40xf32>
  %p = arith.mulf %s, %v : vector<1x1x1x40xf32>
  vector.transfer_write %p, %y[%c0, %c, %r, %col] {in_bounds = [true, true, true, true]} : vector<1x1x1x40xf32>, memref<1x32x120x120xf32>
  return
}

// -----

// A reduction along 112 lanes (no power of two; global average pooling's
// 112-wide rows) reduces 16-lane chunks combined lane by lane in a tree,
// then one 16-lane vector: LLVM expanded the 112-lane reduction into scalar
// loads and adds.
// CHECK-LABEL: func.func @reduce_112
// CHECK-COUNT-7: vector.extract_strided_slice %{{.*}} {offsets = [{{[0-9]+}}], sizes = [16], strides = [1]} : vector<112xf32> to vector<16xf32>
// CHECK-COUNT-6: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32>
// CHECK:         %[[R:.+]] = vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK-NOT:     vector<112xf32> into f32
// CHECK:         vector.insert %[[R]]
func.func @reduce_112(%v: vector<1x112xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x112xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// 49 lanes (a 7 x 7 map) have no power-of-two chunks of 8: their pieces of
// 32, 16 and 1 are reduced one after another, each from the last's result.
// CHECK-LABEL: func.func @reduce_49
// CHECK:         %[[A:.+]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [32], strides = [1]}
// CHECK:         %[[RA:.+]] = vector.reduction <maxnumf>, %[[A]], %{{.*}} : vector<32xf32> into f32
// CHECK:         %[[B:.+]] = vector.extract_strided_slice %{{.*}} {offsets = [32], sizes = [16], strides = [1]}
// CHECK:         %[[RB:.+]] = vector.reduction <maxnumf>, %[[B]], %[[RA]] : vector<16xf32> into f32
// CHECK:         %[[C:.+]] = vector.extract_strided_slice %{{.*}} {offsets = [48], sizes = [1], strides = [1]}
// CHECK:         vector.reduction <maxnumf>, %[[C]], %[[RB]] : vector<1xf32> into f32
func.func @reduce_49(%v: vector<1x49xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <maxnumf>, %v, %acc [1] : vector<1x49xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// Integer sums reorder freely: 24 lanes are 3 chunks of 8.
// CHECK-LABEL: func.func @integer_sum_24
// CHECK-COUNT-3: vector.extract_strided_slice %{{.*}} : vector<24xi32> to vector<8xi32>
// CHECK-COUNT-2: arith.addi %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xi32> into i32
func.func @integer_sum_24(%v: vector<24xi32>, %acc: i32) -> i32 {
  %r = vector.reduction <add>, %v, %acc : vector<24xi32> into i32
  return %r : i32
}

// -----

// Short lengths too: a 13-lane sum (a 13 x 13 map's row) is 8 + 4 + 1
// (1000 channels of 13 x 13 pooled in 0.038 ms as one 13-lane reduction
// per row, 0.024 so).
// CHECK-LABEL: func.func @reduce_13
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<4xf32> into f32
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<1xf32> into f32
// CHECK-NOT:     vector<13xf32> into f32
func.func @reduce_13(%v: vector<13xf32>, %acc: f32) -> f32 {
  %r = vector.reduction <add>, %v, %acc : vector<13xf32> into f32
  return %r : f32
}
