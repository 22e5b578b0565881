// RUN: tessel-opt %s --split-input-file --verify-diagnostics \
// RUN:   --tessel-mask-padded-positions | FileCheck %s

#q = affine_map<(h, i, j, d) -> (h, i, d)>
#k = affine_map<(h, i, j, d) -> (h, j, d)>
#s = affine_map<(h, i, j, d) -> (h, i, j)>
#id3 = affine_map<(h, i, j) -> (h, i, j)>
#row = affine_map<(h, i, j) -> (h, i)>
#p = affine_map<(h, i, d, j) -> (h, i, j)>
#v = affine_map<(h, i, d, j) -> (h, j, d)>
#o = affine_map<(h, i, d, j) -> (h, i, d)>

// Self-attention over 8 positions padded to the valid length: the scores
// hold the queries' positions (dimension 1) and the keys' (dimension 2).
// The max and the sum over the keys read copies with -inf and 0 at padded
// keys, the value product zeroes both sides at padded keys; the queries'
// positions stay apart, and the result records them in its dimension 1.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x4xf32> {tessel.padded_dim = 1 : i64},
// CHECK-SAME:     %[[LEN:.*]]: tensor<i64> {tessel.valid_length})
// CHECK-SAME:    -> (tensor<2x8x4xf32> {tessel.padded_dim = 1 : i64})
// CHECK:         %[[SCORES:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[X]] :
// CHECK:         %[[MAXIN:.*]] = linalg.generic {{.*}} ins(%[[SCORES]], %[[LEN]] :
// CHECK:           %[[L:.*]] = arith.index_cast
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           %[[OK:.*]] = arith.cmpi ult, %[[J]], %[[L]] : index
// CHECK:           arith.select %[[OK]], %{{.*}}, %cst{{.*}} : f32
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[MAXIN]] :
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[SCORES]], %[[MAX]] :
// CHECK:         %[[SUMIN:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[LEN]] :
// CHECK:           linalg.index 2 : index
// CHECK:         linalg.generic {{.*}} ins(%[[SUMIN]] :
// CHECK:         %[[PROBS:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %{{.*}} :
// CHECK:         %[[PIN:.*]] = linalg.generic {{.*}} ins(%[[PROBS]], %[[LEN]] :
// CHECK:           linalg.index 2 : index
// CHECK:         %[[VIN:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[LEN]] :
// CHECK:           linalg.index 1 : index
// CHECK:         linalg.generic {{.*}} ins(%[[PIN]], %[[VIN]] :
func.func @attention(%x: tensor<2x8x4xf32> {tessel.padded_dim = 1 : i64})
    -> tensor<2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e3 = tensor.empty() : tensor<2x8x8xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x8xf32>)
      -> tensor<2x8x8xf32>
  %scores = linalg.generic {
      indexing_maps = [#q, #k, #s],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %x : tensor<2x8x4xf32>, tensor<2x8x4xf32>)
      outs(%z3 : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x8xf32>)
      -> tensor<2x8xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<2x8x8xf32>) outs(%m0 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %exp = linalg.generic {indexing_maps = [#id3, #row, #id3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores, %max : tensor<2x8x8xf32>, tensor<2x8xf32>)
      outs(%e3 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8xf32>)
      -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<2x8x8xf32>) outs(%s0 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %probs = linalg.generic {indexing_maps = [#id3, #row, #id3],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<2x8x8xf32>, tensor<2x8xf32>)
      outs(%e3 : tensor<2x8x8xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %r = arith.divf %in, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x4xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x4xf32>)
      -> tensor<2x8x4xf32>
  %out = linalg.generic {
      indexing_maps = [#p, #v, #o],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%probs, %x : tensor<2x8x8xf32>, tensor<2x8x4xf32>)
      outs(%zo : tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x4xf32>
  return %out : tensor<2x8x4xf32>
}

// -----

#id2 = affine_map<(i, d) -> (i, d)>
#rows_in = affine_map<(r, d) -> (r, d)>
#rows_out = affine_map<(r, d) -> (d)>

// A position table (a constant with one row per position) added to the
// positions; then [S, N, D] folded to [S * N, D]: position i holds rows
// i * 2 and i * 2 + 1, so the sum over the rows masks row r where r / 2
// is not below the valid length.
// CHECK-LABEL: func.func @table_and_fold
// CHECK:         tensor.collapse_shape
// CHECK:         linalg.generic
// CHECK:           %[[R:.*]] = linalg.index 0 : index
// CHECK:           %[[I:.*]] = arith.divui %[[R]], %c2 : index
// CHECK:           arith.cmpi ult, %[[I]],
// CHECK:         arith.addf
// CHECK-NOT:     tessel.padded_dim
// CHECK:         return
func.func @table_and_fold(%x: tensor<8x2x4xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<4xf32> {
  %table = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
      [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
      [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
      [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x2x4xf32>
  %added = linalg.generic {
      indexing_maps = [affine_map<(i, n, d) -> (i, n, d)>,
                       affine_map<(i, n, d) -> (i, d)>,
                       affine_map<(i, n, d) -> (i, n, d)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %table : tensor<8x2x4xf32>, tensor<8x4xf32>)
      outs(%e : tensor<8x2x4xf32>) {
  ^bb0(%a: f32, %t: f32, %out: f32):
    %r = arith.addf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<8x2x4xf32>
  %rows = tensor.collapse_shape %added [[0, 1], [2]]
      : tensor<8x2x4xf32> into tensor<16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#rows_in, #rows_out],
                         iterator_types = ["reduction", "parallel"]}
      ins(%rows : tensor<16x4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// The first position of each sequence (a classifier's token) is valid in
// every run: the slice holds no padded position, and nothing is masked.
// CHECK-LABEL: func.func @first_token
// CHECK-SAME:    -> tensor<2x4xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.extract_slice
// CHECK-NEXT:    return
func.func @first_token(%x: tensor<2x8x4xf32> {tessel.padded_dim = 1 : i64})
    -> tensor<2x4xf32> {
  %t = tensor.extract_slice %x[0, 0, 0] [2, 1, 4] [1, 1, 1]
      : tensor<2x8x4xf32> to tensor<2x4xf32>
  return %t : tensor<2x4xf32>
}

// -----

// A model without padded arguments is left as it is: no length argument.
// CHECK-LABEL: func.func @static
// CHECK-SAME:    (%{{.*}}: tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @static(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}

// -----

// A reduction whose body is more than a combiner (a sum of squares) has no
// neutral element the mask could write.
func.func @sum_of_squares(%x: tensor<8xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  // expected-error @+1 {{mixes the padded positions with the valid ones (it reduces over them with a body the mask does not know)}}
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %out, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A position's index read in the body (a cumulative sum written by hand).
func.func @reads_index(%x: tensor<8xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{(it reads a position's index)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// An argument that is not padded, read along the positions: its entries
// past the valid length are not padding, and would be read as if they were.
func.func @unpadded_operand(%x: tensor<8xf32> {tessel.padded_dim = 0 : i64},
                            %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{reads operand #1 along the positions, but it differs from one position to the next and is not a table of constants}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A pad along the positions (a convolution over the sequence) would put
// the padding after the padded positions, not after the valid ones.
func.func @pads(%x: tensor<8x4xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<10x4xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{(it pads their dimension)}}
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x4xf32> to tensor<10x4xf32>
  return %p : tensor<10x4xf32>
}

// -----

// The last position is padding unless the run is full.
func.func @last_position(%x: tensor<8x4xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<1x4xf32> {
  // expected-error @+1 {{(it takes part of their dimension)}}
  %t = tensor.extract_slice %x[7, 0] [1, 4] [1, 1]
      : tensor<8x4xf32> to tensor<1x4xf32>
  return %t : tensor<1x4xf32>
}

// -----

// A result whose positions are folded with another dimension: the runtime
// copies the valid positions of one dimension out.
func.func @folded_result(%x: tensor<8x2xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<16xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<8x2xf32> into tensor<16xf32>
  // expected-error @+1 {{result #0 does not hold the positions in one dimension of their own}}
  return %r : tensor<16xf32>
}

// -----

// Positions at stride 1, but twice over: [2, 8] folded to [16].
func.func @repeated_result(%x: tensor<2x8xf32> {tessel.padded_dim = 1 : i64})
    -> tensor<16xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  // expected-error @+1 {{result #0 does not hold the positions in one dimension of their own}}
  return %r : tensor<16xf32>
}

// -----

// expected-error @+1 {{argument #1 is not padded to the other arguments' length in its dimension 0}}
func.func @lengths_differ(%x: tensor<8xf32> {tessel.padded_dim = 0 : i64},
                          %y: tensor<4xf32> {tessel.padded_dim = 0 : i64})
    -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
