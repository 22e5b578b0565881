// RUN: tessel-opt %s --split-input-file --tessel-sample-loops | FileCheck %s

#bias = affine_map<(n, f, h, w) -> (f)>
#id = affine_map<(n, f, h, w) -> (n, f, h, w)>
#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#w = affine_map<(n, f, h, w, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#pool = affine_map<(n, f) -> (n, f)>

// A batch of 4: a 3x3 convolution of 16 channels at 64 x 64 (weights 9
// KB, a sample's activations 535 KB, the batch's 2.1 MB) with its bias and
// ReLU, then a convolution of 64 filters at 1 x 1 over 64 x 64 windows (a
// classifier's shape: weights 16 MB against 262 KB a sample). The first, its bias, its
// ReLU and the pad before it run in one loop over the 4 samples, each
// iteration on batch 1 (the input's sample sliced, the ReLU's written
// into the loop result's sample: in place); the classifier and its bias
// run after the loop on all 4 samples.
// CHECK-LABEL: func.func @cnn
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16x64x64xf32>)
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[LOOP:.*]] = scf.for %[[N:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x16x64x64xf32>)
// CHECK:           %[[SAMPLE:.*]] = tensor.extract_slice %[[X]][%[[N]], 0, 0, 0] [1, 16, 64, 64] [1, 1, 1, 1]
// CHECK:           tensor.pad %[[SAMPLE]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           } : tensor<1x16x64x64xf32> to tensor<1x16x66x66xf32>
// CHECK:           %[[BIAS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x64x64xf32>)
// CHECK:           %[[CONV:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x66x66xf32>, tensor<16x16x3x3xf32>) outs(%[[BIAS]] : tensor<1x16x64x64xf32>)
// CHECK:           %[[OUT:.*]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0, 0] [1, 16, 64, 64] [1, 1, 1, 1]
// CHECK:           %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x16x64x64xf32>) outs(%[[OUT]] : tensor<1x16x64x64xf32>)
// CHECK:           %[[INS:.*]] = tensor.insert_slice %[[RELU]] into %[[ACC]][%[[N]], 0, 0, 0] [1, 16, 64, 64] [1, 1, 1, 1]
// CHECK:           scf.yield %[[INS]] : tensor<4x16x64x64xf32>
// CHECK:         %[[CBIAS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x64x1x1xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[LOOP]], %{{.*}} : tensor<4x16x64x64xf32>, tensor<64x16x64x64xf32>) outs(%[[CBIAS]] : tensor<4x64x1x1xf32>)
#classifier_in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
func.func @cnn(%x: tensor<4x16x64x64xf32>) -> tensor<4x64x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x16x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<16xf32>
  %w2 = arith.constant dense<0.125> : tensor<64x16x64x64xf32>
  %b2 = arith.constant dense<1.0> : tensor<64xf32>
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<4x16x64x64xf32> to tensor<4x16x66x66xf32>
  %e0 = tensor.empty() : tensor<4x16x64x64xf32>
  %bias = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e0 : tensor<4x16x64x64xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x64x64xf32>
  %conv = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<4x16x66x66xf32>, tensor<16x16x3x3xf32>) outs(%bias : tensor<4x16x64x64xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%in: f32, %f: f32, %out: f32):
    %m = arith.mulf %in, %f : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16x64x64xf32>
  %e1 = tensor.empty() : tensor<4x16x64x64xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<4x16x64x64xf32>) outs(%e1 : tensor<4x16x64x64xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16x64x64xf32>
  %e2 = tensor.empty() : tensor<4x64x1x1xf32>
  %bias2 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b2 : tensor<64xf32>) outs(%e2 : tensor<4x64x1x1xf32>) attrs = {tessel.fusion_group = 2 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x64x1x1xf32>
  %classes = linalg.generic {indexing_maps = [#classifier_in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%relu, %w2 : tensor<4x16x64x64xf32>, tensor<64x16x64x64xf32>) outs(%bias2 : tensor<4x64x1x1xf32>) attrs = {tessel.fusion_group = 2 : i64} {
  ^bb0(%in: f32, %f: f32, %out: f32):
    %m = arith.mulf %in, %f : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x64x1x1xf32>
  return %classes : tensor<4x64x1x1xf32>
}

// -----

#a = affine_map<(n, i, j, k) -> (n, i, k)>
#b = affine_map<(n, i, j, k) -> (n, k, j)>
#w = affine_map<(n, i, j, k) -> (k, j)>
#o = affine_map<(n, i, j, k) -> (n, i, j)>

// A batch of 64 [16, 64] x [64, 256] products of two activations (no
// weights: 1 MB of results for the batch) runs in a loop over the samples,
// with the fill it starts from; the product of their results by a
// [256, 1024] weight (1 MB, against 80 KB of one sample's activations)
// runs on the whole batch after the loop, and so does its fill, the
// kernel's prologue, though no fusion group says so.
// CHECK-LABEL: func.func @weights_outweigh
// CHECK:         %[[LOOP:.*]] = scf.for
// CHECK:           linalg.fill {{.*}} -> tensor<1x16x256xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x64xf32>, tensor<1x64x256xf32>)
// CHECK:         %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<64x16x1024xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[LOOP]], %{{.*}} : tensor<64x16x256xf32>, tensor<256x1024xf32>) outs(%[[FILL]] : tensor<64x16x1024xf32>)
func.func @weights_outweigh(%x: tensor<64x16x64xf32>, %y: tensor<64x64x256xf32>) -> tensor<64x16x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<256x1024xf32>
  %e1 = tensor.empty() : tensor<64x16x256xf32>
  %fill1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x16x256xf32>) -> tensor<64x16x256xf32>
  %p1 = linalg.generic {indexing_maps = [#a, #b, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<64x16x64xf32>, tensor<64x64x256xf32>) outs(%fill1 : tensor<64x16x256xf32>) {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x16x256xf32>
  %e2 = tensor.empty() : tensor<64x16x1024xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x16x1024xf32>) -> tensor<64x16x1024xf32>
  %p2 = linalg.generic {indexing_maps = [#a, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p1, %w : tensor<64x16x256xf32>, tensor<256x1024xf32>) outs(%fill2 : tensor<64x16x1024xf32>) {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x16x1024xf32>
  return %p2 : tensor<64x16x1024xf32>
}

// -----

#rows = affine_map<(r, c) -> (r, c)>
#sum = affine_map<(r, c) -> (r)>

// Rows of a matrix are not samples: a row-wise reduction of a [4096, 256]
// matrix (4 MB) runs as it is.
// CHECK-LABEL: func.func @rows
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4096x256xf32>)
func.func @rows(%x: tensor<4096x256xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x256xf32>) outs(%fill : tensor<4096xf32>) {
  ^bb0(%u: f32, %out: f32):
    %s = arith.addf %out, %u : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

#x = affine_map<(b, i, j, k) -> (b, i, k)>
#y = affine_map<(b, i, j, k) -> (b, k, j)>
#o = affine_map<(b, i, j, k) -> (b, i, j)>
#wrong = affine_map<(b, i, j, k) -> (i, b, k)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#idx = affine_map<(b, i, j) -> (b, i, j)>

// A batched product of two activations (no weights) runs per sample; one
// that reads its batch loop at another dimension of an operand, or a body
// that reads the sample's index, cannot, and ends the stretch: each of
// the two products before and after it is a loop of its own.
// CHECK-LABEL: func.func @breaks
// CHECK:         %[[FIRST:.*]] = scf.for
// CHECK:           linalg.fill {{.*}} -> tensor<1x256x256xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x256x256xf32>, tensor<1x256x256xf32>)
// CHECK:         linalg.fill {{.*}} -> tensor<2x256x256xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[FIRST]], %{{.*}} : tensor<2x256x256xf32>, tensor<256x2x256xf32>) outs(%{{.*}} : tensor<2x256x256xf32>)
// CHECK:         linalg.index 0
// CHECK:         scf.for
// CHECK:           linalg.fill {{.*}} -> tensor<1x256x256xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x256x256xf32>, tensor<1x256x256xf32>)
func.func @breaks(%a: tensor<2x256x256xf32>, %b: tensor<2x256x256xf32>, %t: tensor<256x2x256xf32>) -> tensor<2x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x256x256xf32>
  %fill = linalg.fill {tessel.fusion_group = 1 : i64} ins(%zero : f32) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %p = linalg.generic {indexing_maps = [#x, #y, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x256x256xf32>, tensor<2x256x256xf32>) outs(%fill : tensor<2x256x256xf32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x256x256xf32>
  %fill2 = linalg.fill {tessel.fusion_group = 2 : i64} ins(%zero : f32) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %q = linalg.generic {indexing_maps = [#x, #wrong, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %t : tensor<2x256x256xf32>, tensor<256x2x256xf32>) outs(%fill2 : tensor<2x256x256xf32>) attrs = {tessel.fusion_group = 2 : i64} {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x256x256xf32>
  %e2 = tensor.empty() : tensor<2x256x256xf32>
  %scaled = linalg.generic {indexing_maps = [#id3, #idx], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<2x256x256xf32>) outs(%e2 : tensor<2x256x256xf32>) {
  ^bb0(%u: f32, %out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.mulf %u, %f : f32
    linalg.yield %r : f32
  } -> tensor<2x256x256xf32>
  %fill3 = linalg.fill {tessel.fusion_group = 3 : i64} ins(%zero : f32) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %r = linalg.generic {indexing_maps = [#x, #y, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%scaled, %b : tensor<2x256x256xf32>, tensor<2x256x256xf32>) outs(%fill3 : tensor<2x256x256xf32>) attrs = {tessel.fusion_group = 3 : i64} {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x256x256xf32>
  return %r : tensor<2x256x256xf32>
}

// -----

#x = affine_map<(s, i, j, k) -> (s, i, k)>
#y = affine_map<(s, i, j, k) -> (s, k, j)>
#o = affine_map<(s, i, j, k) -> (s, i, j)>

// The outermost dimension of a sequence-first product ([S, N, D]: 512
// positions of a batch of 8, times a per-position [256, 256] matrix) is
// not the model's batch (8, the arguments' dimension 0): no loop over the
// 512 positions, though a sample of it reads more activations than
// weights. (Give %ids 512 rows and the positions become samples.)
// CHECK-LABEL: func.func @sequence_first
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<512x8x256xf32>)
// RUN: sed -e 's/tensor<8x512xi64>/tensor<512x512xi64>/' %s | tessel-opt --split-input-file --tessel-sample-loops | FileCheck %s --check-prefix=POSITIONS
// POSITIONS-LABEL: func.func @sequence_first
// POSITIONS:         scf.for
func.func @sequence_first(%ids: tensor<8x512xi64>, %a: tensor<8x512x256xf32>) -> tensor<512x8x256xf32> {
  %zero = arith.constant 0.0 : f32
  %y = arith.constant dense<0.5> : tensor<512x256x256xf32>
  %t = tensor.empty() : tensor<512x8x256xf32>
  %x = linalg.transpose ins(%a : tensor<8x512x256xf32>) outs(%t : tensor<512x8x256xf32>) permutation = [1, 0, 2]
  %e = tensor.empty() : tensor<512x8x256xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<512x8x256xf32>) -> tensor<512x8x256xf32>
  %p = linalg.generic {indexing_maps = [#x, #y, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<512x8x256xf32>, tensor<512x256x256xf32>) outs(%fill : tensor<512x8x256xf32>) {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x8x256xf32>
  return %p : tensor<512x8x256xf32>
}
