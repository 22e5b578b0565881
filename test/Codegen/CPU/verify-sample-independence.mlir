// RUN: tessel-opt %s --split-input-file --verify-diagnostics \
// RUN:   --tessel-verify-sample-independence | FileCheck %s

#bias = affine_map<(n, f) -> (f)>
#id = affine_map<(n, f) -> (n, f)>
#lhs = affine_map<(n, f, c) -> (n, c)>
#rhs = affine_map<(n, f, c) -> (c, f)>
#res = affine_map<(n, f, c) -> (n, f)>

// A classifier on a batch of 3: a product with constant weights, a bias
// broadcast to the batch (the same for every sample), then a reshape that
// keeps dimension 0: each sample is computed apart, the IR is unchanged.
// CHECK-LABEL: func.func @independent
// CHECK:         linalg.generic
// CHECK:         tensor.expand_shape
func.func @independent(%x: tensor<3x4xf32>) -> tensor<3x2x4xf32> {
  %w = arith.constant dense<0.5> : tensor<4x8xf32>
  %b = arith.constant dense<0.25> : tensor<8xf32>
  %e = tensor.empty() : tensor<3x8xf32>
  %bias = linalg.generic {indexing_maps = [#bias, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x8xf32>
  %y = linalg.generic {indexing_maps = [#lhs, #rhs, #res],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<3x4xf32>, tensor<4x8xf32>)
      outs(%bias : tensor<3x8xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x8xf32>
  %r = tensor.expand_shape %y [[0], [1, 2]] output_shape [3, 2, 4]
      : tensor<3x8xf32> into tensor<3x2x4xf32>
  return %r : tensor<3x2x4xf32>
}

// -----

#sum_in = affine_map<(f, n) -> (n, f)>
#sum_out = affine_map<(f, n) -> (f)>

// A sum over the batch (a batch norm's training statistics, say): every
// sample's result depends on the others.
func.func @reduces_batch(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{mixes the samples of the batch (it reduces over the samples)}}
  %s = linalg.generic {indexing_maps = [#sum_in, #sum_out],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Flattening the batch into the features keeps the samples apart (sample
// n in elements 4n..4n+3), but the result does not hold them in its
// dimension 0, one each, as an output must.
func.func @flat_result(%x: tensor<3x4xf32>) -> tensor<12xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  // expected-error @+1 {{result #0 does not hold the samples, one each, in its dimension 0}}
  return %r : tensor<12xf32>
}

// -----

// A reshape that splits the batch of 6 into 2 x 3 spreads the samples over
// two dimensions.
func.func @split_batch(%x: tensor<6x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{mixes the samples of the batch (the reshape spreads the samples over dimensions)}}
  %r = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 3, 4]
      : tensor<6x4xf32> into tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

#id2 = affine_map<(n, f) -> (n, f)>

// A sample's position in the batch (linalg.index 0) is not the same in a
// chunk of the batch.
func.func @reads_position(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  // expected-error @+1 {{mixes the samples of the batch (it reads a sample's position in the batch)}}
  %y = linalg.generic {indexing_maps = [#id2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = linalg.index 0 : index
    %i = arith.index_cast %n : index to i32
    %f = arith.sitofp %i : i32 to f32
    %a = arith.addf %in, %f : f32
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

#id3 = affine_map<(n, f) -> (n, f)>

// A constant with a row per sample (a value baked for batch 3) added to
// the samples: its rows differ, so a chunk of the batch would read the
// wrong ones.
func.func @rows_differ(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]>
      : tensor<3x2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  // expected-error @+1 {{reads operand #1 along the samples, but it differs from one sample to the next}}
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<3x2xf32>, tensor<3x2xf32>)
      outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A result that does not come from the samples.
func.func @constant_result(%x: tensor<3x2xf32>)
    -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %c = arith.constant dense<1.0> : tensor<3x2xf32>
  // expected-error @+1 {{result #1 does not hold the samples, one each, in its dimension 0}}
  return %x, %c : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// expected-error @+1 {{argument #1 is not a batch of 3}}
func.func @unbatched_argument(%x: tensor<3x2xf32>, %m: tensor<2xf32>)
    -> tensor<3x2xf32> {
  return %x : tensor<3x2xf32>
}

// -----

#seq_in = affine_map<(r, e, d) -> (r, d)>
#seq_w = affine_map<(r, e, d) -> (d, e)>
#seq_out = affine_map<(r, e, d) -> (r, e)>

// A sequence-first projection (a torch MultiheadAttention's): [N, S, D]
// transposed to [S, N, D], its rows flattened (sample n in rows s * 2 + n),
// multiplied by the weights, and back to [N, S, E]: each sample is still
// computed apart.
// CHECK-LABEL: func.func @sequence_first
// CHECK:         linalg.transpose
func.func @sequence_first(%x: tensor<2x5x4xf32>) -> tensor<2x5x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<5x2x4xf32>
  %t = linalg.transpose ins(%x : tensor<2x5x4xf32>)
      outs(%e0 : tensor<5x2x4xf32>) permutation = [1, 0, 2]
  %rows = tensor.collapse_shape %t [[0, 1], [2]]
      : tensor<5x2x4xf32> into tensor<10x4xf32>
  %e1 = tensor.empty() : tensor<10x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<10x8xf32>)
      -> tensor<10x8xf32>
  %p = linalg.generic {indexing_maps = [#seq_in, #seq_w, #seq_out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%rows, %w : tensor<10x4xf32>, tensor<4x8xf32>)
      outs(%acc : tensor<10x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<10x8xf32>
  %back = tensor.expand_shape %p [[0, 1], [2]] output_shape [5, 2, 8]
      : tensor<10x8xf32> into tensor<5x2x8xf32>
  %e2 = tensor.empty() : tensor<2x5x8xf32>
  %y = linalg.transpose ins(%back : tensor<5x2x8xf32>)
      outs(%e2 : tensor<2x5x8xf32>) permutation = [1, 0, 2]
  return %y : tensor<2x5x8xf32>
}
