// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-contractions{vector-width=8}))" \
// RUN:   | FileCheck %s

// An 8x32 = 8x16 * 16x32 product: NR = 16 (two 8-wide vectors; four would
// leave the 12 accumulators only 3 rows), MR = 4 (6 does not divide 8).
// Loops: columns, rows, then the reduction, which carries the 4x16 output
// tile as a vector. The generic becomes a linalg.matmul, whose tile
// vectorizes into a vector.contract of a 4x1 column and a 1x16 row.

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @matmul
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C4]]
// CHECK:             %[[ACC:.*]] = vector.transfer_read %{{.*}}[%[[I]], %[[J]]]{{.*}} vector<4x16xf32>
// CHECK:             %[[TILE:.*]]:2 = scf.for %{{.*}} step %[[C1]] iter_args(%[[T:.*]] = %{{.*}}, %[[V:.*]] = %[[ACC]]) -> (tensor<8x32xf32>, vector<4x16xf32>)
// CHECK-NOT:           vector.transfer_write
// CHECK:               %[[A:.*]] = vector.transfer_read %{{.*}} vector<4x1xf32>
// CHECK:               %[[B:.*]] = vector.transfer_read %{{.*}} vector<1x16xf32>
// CHECK:               vector.contract {{.*}} %[[A]], %[[B]], %[[V]] : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:               scf.yield %[[T]]
// CHECK:             vector.transfer_write %[[TILE]]#1, %[[TILE]]#0[%[[I]], %[[J]]]
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>,
                  %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#mA, #mB, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A constant right-hand side stored transposed ([n, k], as torch exports
// Linear) is transposed at compile time: rows contiguous along n. The unit
// row loop is dropped (a matrix-vector product of 4-wide vectors).

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @constant_transposed_rhs
// CHECK:         arith.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK:         tensor.collapse_shape %{{.*}} into tensor<4xf32>
// CHECK:         scf.for {{.*}} -> (tensor<4xf32>, vector<4xf32>)
// CHECK-NOT:     linalg.generic
func.func @constant_transposed_rhs(%a: tensor<1x2xf32>, %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %0 = linalg.generic {indexing_maps = [#mA, #mBt, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x2xf32>, tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A matrix-vector product with a constant matrix of more than one panel
// (64 columns; panels of 4 vectors of 8) keeps its unit row, though it has
// no neighbours, so that the matrix (transposed first) is packed into
// panels [2][16][32]: read in place, its rows would be 64 columns apart.
// (An LSTM step's [1, 256] x [256, 1024]: 11.5 -> 6.7 ms for the model on
// Zen 3.)

#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @matrix_vector_panels
// CHECK:         %[[W:.+]] = arith.constant dense<5.000000e-01> : tensor<2x16x32xf32>
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2]] output_shape [1, 2, 32] : tensor<1x64xf32> into tensor<1x2x32xf32>
// CHECK:         scf.for %[[P:.+]] = %c0 to %c2 step %c1 iter_args(%{{.+}} = %[[OUT]])
// CHECK:           vector.transfer_read %[[W]][%[[P]], %{{.+}}, %{{.+}}]
// CHECK:         tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<1x2x32xf32> into tensor<1x64xf32>
func.func @matrix_vector_panels(%a: tensor<1x16xf32>, %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %w = arith.constant dense<0.5> : tensor<64x16xf32>
  %0 = linalg.generic {indexing_maps = [#mA, #mBt, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<1x16xf32>, tensor<64x16xf32>) outs(%c : tensor<1x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// Left alone: a transposed right-hand side that is not a constant, f64
// elements, and dynamic shapes (convert-linalg-to-loops takes them).

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     vector.
func.func @left_alone(%a: tensor<4x4xf32>, %b: tensor<8x4xf32>, %c: tensor<4x8xf32>,
                      %a64: tensor<4x4xf64>, %b64: tensor<4x8xf64>, %c64: tensor<4x8xf64>,
                      %ad: tensor<?x4xf32>, %bd: tensor<4x8xf32>, %cd: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf64>, tensor<?x8xf32>) {
  %0 = linalg.generic {indexing_maps = [#mA, #mBt, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xf32>, tensor<8x4xf32>) outs(%c : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#mA, #mB, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a64, %b64 : tensor<4x4xf64>, tensor<4x8xf64>) outs(%c64 : tensor<4x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8xf64>
  %2 = linalg.generic {indexing_maps = [#mA, #mB, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ad, %bd : tensor<?x4xf32>, tensor<4x8xf32>) outs(%cd : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf64>, tensor<?x8xf32>
}

// -----

// Large products (operands over 2 MiB) get cache blocks around the
// register tiles: columns one register tile wide (16 here), at most 1024
// reduction steps (all 1024 here: no loop) and 128 rows (120, the largest
// multiple of the 6-row register tile that divides 240), looped columns,
// reduction, rows. The right-hand side's block (1024 rows of 16 columns,
// 512 apart in %b) is copied into a contiguous buffer once per column
// block, outside the row loop but inside the (parallel) column loop, so
// each thread has its own; the register tiles read the copy. The copy is
// marked part of the kernel.

#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @blocked
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C120:.*]] = arith.constant 120 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK:         scf.for %[[J:.*]] = {{.*}} step %[[C16]]
// CHECK:           %[[BLOCK:.*]] = tensor.extract_slice %arg1[0, %[[J]]] [1024, 16] [1, 1]
// CHECK:           %[[EMPTY:.*]] = tensor.empty() : tensor<1024x16xf32>
// CHECK:           %[[PACKED:.*]] = linalg.copy {tessel.in_kernel} ins(%[[BLOCK]] : tensor<1024x16xf32>) outs(%[[EMPTY]] : tensor<1024x16xf32>)
// CHECK-NOT:       tensor.empty
// CHECK:           scf.for {{.*}} step %[[C120]]
// CHECK:             scf.for {{.*}} step %[[C6]]
// CHECK:               scf.for {{.*}} to %c1024 step %c1 {{.*}} -> (tensor<120x16xf32>, vector<6x16xf32>)
// CHECK:                 vector.transfer_read %[[PACKED]]
func.func @blocked(%a: tensor<240x1024xf32>, %b: tensor<1024x512xf32>,
                   %c: tensor<240x512xf32>) -> tensor<240x512xf32> {
  %0 = linalg.generic {indexing_maps = [#mA, #mB, #mC],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<240x1024xf32>, tensor<1024x512xf32>) outs(%c : tensor<240x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<240x512xf32>
  return %0 : tensor<240x512xf32>
}

// -----

// torch's attention projection: [seq, 1, d] x [d, 3d]. The unit loop is
// dropped, so the rows are the sequence (MR = 4), not the unit dimension.

#mA3 = affine_map<(b, m, n, k) -> (b, m, k)>
#mB3 = affine_map<(b, m, n, k) -> (k, n)>
#mC3 = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @unit_loop_dropped
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<8x1x16xf32> into tensor<8x16xf32>
// CHECK:         vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:         tensor.expand_shape %{{.*}} : tensor<8x48xf32> into tensor<8x1x48xf32>
func.func @unit_loop_dropped(%a: tensor<8x1x16xf32>, %b: tensor<16x48xf32>,
                             %c: tensor<8x1x48xf32>) -> tensor<8x1x48xf32> {
  %0 = linalg.generic {indexing_maps = [#mA3, #mB3, #mC3],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x1x16xf32>, tensor<16x48xf32>) outs(%c : tensor<8x1x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x1x48xf32>
  return %0 : tensor<8x1x48xf32>
}

// -----

// A batched product becomes linalg.batch_matmul; its tile contracts a
// 1x4x1 column with a 1x1x16 row for each batch.

#mA4 = affine_map<(b, m, n, k) -> (b, m, k)>
#mB4 = affine_map<(b, m, n, k) -> (b, k, n)>
#mC4 = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @batched
// CHECK:         vector.contract {{.*}} : vector<1x4x1xf32>, vector<1x1x16xf32> into vector<1x4x16xf32>
// CHECK-NOT:     linalg.
func.func @batched(%a: tensor<2x8x4xf32>, %b: tensor<2x4x16xf32>,
                   %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mA4, #mB4, #mC4],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8x4xf32>, tensor<2x4x16xf32>) outs(%c : tensor<2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}
