//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//

#ifndef TESSEL_CODEGEN_CPU_PASSES_TD
#define TESSEL_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselVectorizeContractionsPass
    : Pass<"tessel-vectorize-contractions", "func::FuncOp"> {
  let summary = "Register-tiles and vectorizes matrix products on tensors";
  let description = [{
    Register-tiles and vectorizes f32 contractions: any `linalg` op whose
    body multiplies and adds (matmul, batch matmul, gemm; a generic with
    plain maps becomes `linalg.matmul`/`linalg.batch_matmul`). Each product
    is tiled into an `MR x NR` register tile of the output, loops ordered
    columns, rows, reduction; the tile becomes a `vector.contract` whose
    accumulator stays in registers across the reduction loop. Products over
    2 MiB get cache blocks, constant right-hand sides stored transposed are
    transposed at compile time, and matrix-vector products with a constant
    matrix run on panels packed at compile time.

    Runs on tensors before bufferization, after `tessel-vectorize-convolutions`
    (which hands it pointwise convolutions as products). Static shapes; f32,
    i8 x i8 -> i32 with `vnni` (or AVX2), and f16 or bf16 operands summed in
    f32 (on the kernels the options name, else the widened FMA: the operands
    converted to f32 in registers); tiles divide the loops exactly (no
    masking), except that a tile that starts from its fused fill or bias
    and never reads its output may overlap the one before it: over rows
    when the column loop outside them runs more than once, and over
    columns that no whole vector divides inside an attention block's loop
    over heads (`tessel.in_kernel`); other ops are left for
    `convert-linalg-to-loops`.
    `tessel-lower-vectors` lowers its vector ops.

    Options:
    - `vector-width`: f32 elements per vector register (8: AVX2, 16: AVX-512).
    - `accumulators`: vector registers the output tile may occupy.
    - `fuse-epilogue`: run its initialiser and consumer in its register tiles.
    - `fmas-per-cycle`, `fma-latency`, `loads-per-cycle`: the core's
      throughput, which the register-tile cost model weighs a tile's rows
      with (`estimateTileStepCycles`, TargetInfo.h); the pipeline sets them
      from LLVM's scheduling model of the target CPU.
    - `l2-cache-bytes`: one core's L2; products whose operands take more
      than twice that, and at most 2 MiB, run in cache blocks.
    - `vnni`: the target has VNNI; i8 x i8 -> i32 products (after
      `tessel-narrow-integer-products`) run on `vpdpbusd`, 4 reduction steps
      per lane, constant weights packed as `[K/4, N, 4]`.
    - `amx`: the target has AMX-INT8; i8 products of constant weights in
      whole tiles (rows and columns in 16s, the reduction in 64s) run on
      2 x 2 blocks of AMX tiles (`tdpbssd` and its unsigned forms), the
      others on `vpdpbusd`. `tessel-lower-amx` lowers the tiles.
    - `bf16`, `amx-bf16`: bf16 products on `vdpbf16ps` (where it beats the
      FMA) and on AMX-BF16 tiles (whole tiles).
    - `fp16`: f16 products with columns in 16s and reductions in 8s on
      `vfmadd231ph` (F16MicroKernel.cpp): 7 x 32 tiles walk the reduction in
      blocks summed in f16 (at most 32 steps per lane), the blocks in f32;
      constant weights read from panels with each pair of reduction steps
      interleaved per column.

    Details: docs/codegen-cpu.md#tessel-vectorize-contractions

    ```mlir
    // Before: 128x256 = 128x64 * 64x256
    %0 = linalg.generic {... iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>)
    // After (vector-width=8): scf.for %j step 16 { scf.for %i step 4 {
    //   %acc = vector.transfer_read ... vector<4x16xf32>
    //   scf.for %k step 1 iter_args(%v = %acc) { vector.contract ... } } }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register (8: AVX2, 16: AVX-512)">,
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"12",
           "vector registers the output tile may occupy">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "run the product's initialiser and its consuming elementwise op "
           "in its register tiles">,
    Option<"vnni", "vnni", "bool", /*default=*/"false",
           "the target has VNNI: i8 x i8 -> i32 products run on vpdpbusd">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "the target has AVX512-BF16: bf16 x bf16 -> f32 products run on "
           "vdpbf16ps">,
    Option<"amx", "amx", "bool", /*default=*/"false",
           "the target has AMX-INT8 (with AVX-512): i8 x i8 -> i32 products "
           "of whole tiles run on tdpb[su][su]d">,
    Option<"amxBf16", "amx-bf16", "bool", /*default=*/"false",
           "the target has AMX-BF16 (with AVX-512): bf16 x bf16 -> f32 "
           "products of whole tiles run on tdpbf16ps">,
    Option<"fp16", "fp16", "bool", /*default=*/"false",
           "the target has AVX512-FP16: f16 x f16 -> f32 products with "
           "columns in 16s and the reduction in 8s run on vfmadd231ph, "
           "summing blocks of up to 64 steps (32 per f16 lane) in f16 and "
           "the blocks in f32">,
    Option<"fmasPerCycle", "fmas-per-cycle", "double", /*default=*/"0",
           "f32 vector FMAs the core issues per cycle, for the register-tile "
           "cost model (0: an AVX-512 Intel server core's 2)">,
    Option<"fmaLatency", "fma-latency", "int64_t", /*default=*/"0",
           "the FMA's latency in cycles, for the cost model (0: 4)">,
    Option<"loadsPerCycle", "loads-per-cycle", "double", /*default=*/"0",
           "vector loads the core issues per cycle, for the cost model (0: 2)">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", /*default=*/"0",
           "one core's L2 cache in bytes: products whose operands take "
           "more than twice that (at most 2 MiB) get cache blocks (0: 1 MiB)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::amx::AMXDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselVectorizeWindowsPass
    : Pass<"tessel-vectorize-windows", "func::FuncOp"> {
  let summary = "Vector loops over output columns for 2-D pooling windows";
  let description = [{
    Vectorizes the 2-D window reductions that pooling lowers to (max
    pooling, average pooling's sum): a 6-loop `linalg.generic` (n, c, oh,
    ow, kh, kw) reading the input at `oh * sh + kh * dh`, `ow * sw + kw * dw`
    and combining each element into the accumulator with an elementwise
    body. NCHW becomes loops over tiles of output columns: per window tap
    the row segment under the tile is read whole and every stride-th lane
    kept by a `vector.shuffle`; where the output is only written, widths
    that no vector divides end with a tile that overlaps the one before it.
    Channels last (`#tessel.layout<nhwc>`) reads
    a vector of channels per tap. A max (min) of a `tensor.pad` by -inf
    (+inf) reads the unpadded input. Each rewrite is one kernel.

    Runs on tensors before bufferization, after the convolution and
    contraction vectorizers and before `tessel-vectorize-generics` (whose
    vectorization would not apply: the input map is no projected
    permutation). Static shapes and f32 only; windows of more than 64 taps
    are left alone (every tap is unrolled).

    Options:
    - `vector-width`: f32 elements per vector register (8: AVX2, 16: AVX-512).

    Details: docs/codegen-cpu.md#tessel-vectorize-windows

    ```mlir
    // 3x3 max pooling, stride 2, vector-width=16: per tile of 16 columns
    %seg = vector.transfer_read %in[%n, %c, %row, %col] ... vector<31xf32>
    %v = vector.shuffle %seg, %seg [0, 2, 4, ..., 30]
    %acc1 = arith.maximumf %v, %acc0 : vector<16xf32>
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register (8: AVX2, 16: AVX-512)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselVectorizeGenericsPass
    : Pass<"tessel-vectorize-generics", "func::FuncOp"> {
  let summary = "Vectorizes elementwise ops, reductions, fills and transposes on tensors";
  let description = [{
    Vectorizes what the other vectorizers leave: elementwise generics (bias
    adds, activations, residual adds, GELU), reductions (softmax, layer norm,
    pooling by reduction), `linalg.fill`, `linalg.transpose` and
    `linalg.copy`; a constant f32 `tensor.pad` first becomes a fill and a
    copy. Each op is tiled from its innermost loop outwards into tiles of at
    most `max-vector-elements` elements, each tile becoming vector ops of its
    shape (`vector.transfer_read`, arithmetic, `vector.multi_reduction`,
    `vector.transfer_write`). With `fuse-reductions`, a reduction and its
    fill run in the loops of their elementwise consumer, and softmax and
    layer norm run row by row, one kernel each.

    Runs on tensors before bufferization, after the other vectorizers and
    before `tessel-approximate-math`. Static shapes, f32 operands and
    `arith`/`math` bodies, with single-element reads of other tensors
    (`tensor.extract`: a Gather's rows, read as `vector.gather`s or, where
    the vectorizer proves them contiguous, as vector loads);
    tiles divide loops exactly, so nothing is masked.

    Options:
    - `vector-width`: f32 elements per vector register (8: AVX2, 16: AVX-512).
    - `max-vector-elements`: elements of one tile (0: 8 vector registers).
    - `fuse-reductions`: fuse a reduction and its fill into its consumer.

    Details: docs/codegen-cpu.md#tessel-vectorize-generics

    ```mlir
    // Before: softmax's row maximum over 4x128x128
    %m = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]} ...
    // After (vector-width=16): scf.for %i { scf.for %j {
    //   %v = vector.transfer_read ... vector<1x1x128xf32>
    //   vector.multi_reduction <maxnumf>, %v, %acc [2] ... } }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register (8: AVX2, 16: AVX-512)">,
    Option<"maxVectorElements", "max-vector-elements", "int64_t",
           /*default=*/"0",
           "elements of one tile (0: 8 vector registers)">,
    Option<"fuseReductions", "fuse-reductions", "bool", /*default=*/"true",
           "fuse a reduction and its fill into the loops of the elementwise "
           "op that consumes it">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselApproximateMathPass
    : Pass<"tessel-approximate-math", "func::FuncOp"> {
  let summary = "Polynomial approximations of f32 vector exp, erf, tanh and log";
  let description = [{
    Rewrites `math.exp`, `math.erf`, `math.tanh` and `math.log` on f32
    vectors into MLIR's polynomial approximations (FMAs, compares, selects
    and bit manipulation), which stay vectors down to LLVM. Without it LLVM
    splits each vector op into one libm call per lane. Scalar math ops keep
    their libm calls. The approximations keep NaN, infinities, overflow to
    +inf and underflow to 0; within a few ulp elsewhere (the ONNX
    conformance suites and the benchmark's torch comparisons check them).

    ```mlir
    %y = math.erf %x : vector<16xf32>
    // After: arith.mulf / math.fma / arith.select ... : vector<16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselSampleLoopsPass : Pass<"tessel-sample-loops", "func::FuncOp"> {
  let summary = "Runs the activation-heavy ops of a batch one sample at a time";
  let description = [{
    On tensors, before the code generators. A model compiled for a batch
    of N > 1 runs each layer on all N samples: the layers whose
    activations outweigh their weights (a CNN's early layers) then pass N
    times the activations of batch 1 from one layer to the next, out of
    the core's L2 (MobileNetV2's 112 x 112 expansion: 4.8 MB a sample).
    This pass puts the longest stretches of such ops, in program order,
    into one `scf.for` over the samples: each iteration runs the stretch
    on one sample (`tensor.extract_slice` of dimension 0 for what it reads
    from before the loop, `tensor.insert_slice` into the loop's results
    for what is read after it), and every kernel inside sees batch 1.

    An op can run one sample at a time when its outermost dimension is the
    samples: a `linalg` op on tensors whose first loop is parallel, reads
    dimension 0 (and no other) of every operand that depends on it, every
    output among them, and no `linalg.index 0`; a `tensor.pad`,
    `collapse_shape`, `expand_shape`, `extract_slice` or `insert_slice`
    that keeps dimension 0 whole and apart, the samples' extent being that
    of dimension 0 of one of the function's arguments (the model's batch:
    not the sequence of a sequence-first `[S, N, D]` attention). Each
    tensor it slices has rank 3 or more (a sample is at least a matrix: `[N, C, H, W]`, `[N, S, D]`;
    the rows of a rank-2 tensor are a product's or a layer norm's, which
    run best together). A product (an op with a reduction loop) whose
    weights (the operands it reads whole) take more bytes than one
    sample's activations (the operands it slices, and its result) runs on
    the whole batch instead, each weight read once for all samples, and so
    do its kernel's prologue and epilogue (`getKernelGroup`), every op of
    its fusion group, and every op of the group of an op that cannot run
    per sample. Constants and `tensor.empty` do not break a stretch; every
    other op does. A stretch becomes a loop when it holds a product and
    one of its ops reads and writes more than 1 MiB of activations for the
    whole batch: below, they stay in the core's L2 from one layer to the
    next anyway, and kernels of the whole batch split better across
    threads. A pad or reshape at the stretch's end that only later ops read
    moves after the loop (it has no destination to write in place); an op
    whose result leaves the loop and that writes an empty tensor writes the
    loop result's sample instead, so that the insertion is in place.

    At batch 8 (Xeon EMR, 1 thread, interleaved), against each layer on
    the whole batch: ResNet-18 0.89x, MobileNetV2 0.73x (with
    `tessel-plan-memory` reusing the body's bytes), the BERT-like encoder
    0.97x (`bench/batch-results.md`).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def TesselVerifySampleIndependencePass
    : Pass<"tessel-verify-sample-independence", "func::FuncOp"> {
  let summary = "Checks that a batch's samples are computed apart";
  let description = [{
    On tensors, after the lowering to `linalg`, in a build of a model with a
    dynamic batch (`tessel-compile --dim-range`) at a batch of 2 or more.
    The artifact runs a batch of any size as chunks of the batch sizes it
    was compiled for, which is right only when no sample's results depend
    on another sample, nor on its position in the batch or on the batch's
    size. This pass proves it or fails with an error at the first op that
    mixes the samples.

    Every argument of the function holds the batch in its dimension 0.
    Each value computed from them holds it somewhere: in one dimension,
    whose index is `... + n * stride + ...` for sample `n` (a transpose
    moves it; a reshape that folds it into a wider dimension, `[S, N, D]`
    collapsed to `[S * N, D]`, keeps sample `n` in rows `s * N + n`). A
    `linalg` op that reads such a value must walk its batch, and that of
    every other, with one parallel loop, at one stride, without
    `linalg.index` of that loop, and write it to every result; what else
    that loop walks must be the same for every sample (an empty tensor, a
    splat constant, a broadcast of values the loop does not walk). A
    reshape (`collapse_shape`, `expand_shape`, `tensor.reshape` with a shape
    that does not depend on the samples) keeps the elements' row-major
    order: the samples must land in one dimension whose extent is a whole
    number of batches at their stride. A pad or slice must keep the batch's
    dimension whole. Any other op that reads the samples, or a region that
    captures them, fails; so does a result of the function that does not
    hold the samples, one each, in its dimension 0.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "The batch; 0: dimension 0 of the first argument">
  ];
}

def TesselMaskPaddedPositionsPass
    : Pass<"tessel-mask-padded-positions", "func::FuncOp"> {
  let summary = "Keeps a padded sequence's reductions to its valid positions";
  let description = [{
    On tensors, right after the lowering to `linalg`, in a build of a model
    with a padded dimension (`tessel-compile --dim-range` on a dimension
    other than the batch, such as a sequence). The artifact runs a sequence
    of any valid length up to the build's length L on inputs padded to L,
    and this pass makes that exact, or fails at the first op that would
    let a padded position change a valid one.

    The function's arguments marked `tessel.padded_dim = d` hold the
    positions in dimension `d`, all padded to the same length L; the pass
    appends one argument, `tensor<i64>` marked `tessel.valid_length`: the
    run's valid length, at most L. Each value computed from the padded
    arguments holds the positions in one or more dimensions (an
    attention's scores hold the queries' and the keys'), each at a stride
    (a reshape may fold them into a wider dimension). A `linalg` op that
    reads such a value walks each of its position dimensions with a loop:
    - a parallel loop keeps the positions apart; its results hold them;
    - a reduction loop (a softmax's max and sum over the keys, the product
      of the probabilities and the values) reads, instead of the operand,
      a copy with the reduction's neutral element at every padded position
      (`-inf` for a max, 0 for a sum or either side of a product), so a
      padded position adds nothing whatever it holds, NaN included. Only
      contractions and one-input reductions whose body combines the input
      with the accumulator (add, mul, max, min, and their integer forms)
      are masked; any other reduction over the positions fails.
    What else such a loop walks must be the same at every position or be a
    constant table with one entry per position (a position embedding; the
    driver checks that a longer build's table starts with a shorter one's).
    A loop may not read `linalg.index` of a position loop. Reshapes must
    keep the positions in one dimension, pads and slices must keep their
    dimension whole, except a slice that takes only positions below
    `min-length` (the first token), which every run holds valid. A result
    of the function that holds positions holds them in one dimension of
    their own (stride 1, extent L), which the pass records as
    `tessel.padded_dim` on it (the runtime copies out the valid ones). Any
    other op that reads the positions fails.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", /*default=*/"1",
           "The fewest valid positions a run may have">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TesselVectorizeConvolutionsPass
    : Pass<"tessel-vectorize-convolutions", "func::FuncOp"> {
  let summary = "Direct NCHW or NHWC f32 convolutions with register-resident output tiles";
  let description = [{
    Direct convolutions for the 2-D f32 convolution that
    `tessel-convert-tessel-to-linalg` emits: a 7-loop `linalg.generic`
    (n, f, oh, ow, c, kh, kw), NCHW or channels last, any strides,
    dilations and groups. Output tiles keep their accumulators in vector
    registers through a loop over the group's input channels, every filter
    tap unrolled (a wide window whose unrolled taps would fill the
    registers loops over its tap columns instead, a loop that LLVM is told
    not to unroll). Tiles run over filters (constant weights, packed at
    compile time) or over output columns (depthwise, run-time weights);
    pointwise ones (1x1, stride 1, unpadded) become products for
    `tessel-vectorize-contractions`; strided 1x1 ones first copy the
    positions they read and run at stride 1 on the copy. A zero-padded input is read unpadded.
    Kernels over filters whose tiles would read their weights and input
    lines from the L2 at every tile (many channels: ResNet-50's late 1x1
    layers, 3x3 layers at 28x28) run every tile of positions once per chunk
    of channels that fits the L1, with the partial sums in a scratch
    buffer between chunks.
    Each rewrite is reported as one kernel (a `kernel` remark).

    Runs on tensors before bufferization, the first CPU code generator.
    Static shapes and f32 only; other generics are left alone.

    Options:
    - `vector-width`: f32 elements per vector register (8: AVX2, 16: AVX-512).
    - `accumulators`: vector registers the output tile may occupy.
    - `fuse-epilogue`: start from the bias, run the consumer before the store.
    - `bf16-tile-rows`: pad a bf16 convolution's gathered windows to whole
      AMX tile rows (`include/tessel/Codegen/CPU/AmxTiles.h`).
    - `block-gathered-rows`: gather a convolution's windows block by block
      of the product's rows, in the loop that multiplies them.

    Details: docs/codegen-cpu.md#tessel-vectorize-convolutions

    ```mlir
    // Before: 3x3, 2 channels -> 4 filters, 6x8 output, run-time weights
    %0 = linalg.generic {... iterator_types = [4 x "parallel", 3 x "reduction"]}
        ins(%x, %w : tensor<1x2x8x10xf32>, tensor<4x2x3x3xf32>)
        outs(%init : tensor<1x4x6x8xf32>)
    // After (vector-width=8), over columns: 4 filters x 3 rows x 8 columns
    // scf.for %f step 4 { scf.for %oh step 3 { scf.for %ow step 8 { scf.for %c
    //   iter_args(12 x vector<8xf32>) { 9 taps x 12 vector.fma } } } } }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register (8: AVX2, 16: AVX-512)">,
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"12",
           "vector registers the output tile may occupy">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "start the accumulators from the bias (or 0) and run the "
           "consuming elementwise generic on them before the store">,
    Option<"bf16TileRows", "bf16-tile-rows", "bool", /*default=*/"false",
           "the target runs bf16 products on AMX tiles: a bf16 "
           "convolution's gathered windows are padded with zeros to whole "
           "64-byte tile rows where that adds at most a quarter to its "
           "taps">,
    Option<"blockGatheredRows", "block-gathered-rows", "bool",
           /*default=*/"true",
           "a convolution run as a product of its gathered windows runs in "
           "blocks of rows (up to 256 KiB of windows, rows in 16s), each "
           "block gathered just before it is multiplied, in a parallel "
           "loop; off, every window is gathered first">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselFuseAttentionPass
    : Pass<"tessel-fuse-attention", "func::FuncOp"> {
  let summary = "Runs each attention block as one loop over its heads";
  let description = [{
    Finds attention blocks, MatMul -> scale -> (mask add) -> Softmax ->
    MatMul on tensors whose leading (batch) loops are the heads, and makes
    each one loop over the heads whose iteration computes one head from
    start to end: the scores product with its epilogue, the softmax, the
    value product, and the transposes that bring the heads to the front
    (`[seq, heads, d] -> [heads, seq, d]`) and back. The scores of a head
    (`seq x seq`) stay in cache between the two products, and the block is
    one kernel.

    A block is rooted at a batched f32 contraction (the value product) or,
    when that product's only user is an all-parallel op reading it with a
    permutation (the transpose back), at that op. Its members are the
    structured ops the root reads, transitively, whose users are all in the
    block; it is an attention block when they include another contraction
    and a reduction. The root is tiled by 1 along the heads and every member
    whose tile is one head's share joins the loop (upstream's tile and fuse);
    a member the loop would read whole (a mask shared by all heads) stays
    outside, computed once.

    The ops in the loop are marked `tessel.in_kernel`: the vectorizers after
    this pass register-tile and vectorize them as they would on their own
    (`tessel-vectorize-contractions`, `tessel-vectorize-generics`' row
    groups) but record no kernels for them; this pass records the block as
    one kernel of kind `attention`, with the locations of all its ops. The
    loop over heads runs on the thread pool when the block is large enough.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TesselPlanMemoryPass : Pass<"tessel-plan-memory", "ModuleOp"> {
  let summary = "Places intermediate buffers in one reused workspace";
  let description = [{
    After bufferization, before buffer deallocation: every `memref.alloc` in
    the entry function's top-level block (`@tessel_model_main`) with a
    static shape, an identity layout and whole-byte int or float elements
    becomes a `memref.view` into a workspace that the function takes as its
    last argument (`memref<Nxi8>`). Offsets are 64-byte aligned and chosen
    first-fit, largest buffer first, so that buffers whose lifetimes overlap
    never share bytes; a lifetime runs, in program order, from the
    allocation to the end of the last op of the allocation's block that
    uses the buffer or anything derived from it (views, casts, region
    results): a use inside a loop of that block holds the buffer for the
    whole loop. A buffer that may escape (returned, passed to a call) keeps
    its allocation. The module attribute
    `tessel.workspace_size` records N; the artifact's descriptor carries it
    as `workspace_size`, and the runtime allocates one workspace per
    concurrent run of a session and reuses it, so a run allocates nothing.

    First, a static allocation inside a nest of `scf.for` loops whose buffer
    lives within one iteration (nothing derived from it is yielded, passed
    to a call or returned) moves to the top-level block, before the loop:
    one buffer for all iterations instead of an allocation in each
    (`tessel-fuse-attention`'s loop over heads allocates a head's scores).
    Its lifetime stays the one in the loop's body, where it was allocated:
    the buffers of one iteration share bytes as the top-level ones do
    (`tessel-sample-loops`' body, one sample's layers: MobileNetV2 at batch
    8 took a 20.3 MB workspace, now 6.9 MB, against 6.0 MB at batch 1, and
    ran 0.90x the time, Xeon EMR, 1 thread).
    A loop marked `tessel.parallel` (iterations run at the same time on
    different threads) with constant bounds instead gets one buffer before
    it, of trip count x the bytes its body allocates, and each static
    allocation in its body, or in sequential loops there, whose buffer
    lives within one iteration (of the loop around it) becomes a
    `memref.view` of the iteration's own slice
    (`(iv - lower) / step * bytes + offset`), which the inner loops'
    iterations reuse, unless the slices would take more than 64 MiB (a
    product's tile of i32 sums before its requantization was a malloc and
    a free per tile). Within a slice, buffers whose lifetimes do not
    overlap share bytes, as in the workspace.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TesselPrefetchStoresPass
    : Pass<"tessel-prefetch-stores", "func::FuncOp"> {
  let summary = "Prefetches for writing the lines a tile loop's next iteration stores";
  let description = [{
    After bufferization. Before each store of an f32 vector tile
    (`vector.transfer_write` of a 1-D vector or a 2-D one of at most 8
    rows, whole 64-byte lines per row, unmasked, in bounds) into a
    row-major buffer at `[..., i, j]` with `j` the induction variable of an
    `scf.for` of constant bounds and step S (two iterations or more), adds
    `memref.prefetch ... write` of the lines `[i .. i+R, n .. n+C)` with
    `n = min(j + S, last)` (`last` the start of its last iteration): what
    the same rows store one iteration later, and every address inside the
    buffer. A large output (a 1x1 convolution's, written as a
    product `[F, H*W]`) starts out of the caches inside a model, and each of
    a tile's rows is a stream of its own (16 filters, 16 rows 50 KB apart):
    the stores' read-for-ownership misses waited on memory one by one
    (measurements in bench/notes/prefetch-stores.md). Each read of the same
    block before the store, of another buffer, at the same indices and of
    the same vector type (an operand of the tile's epilogue: the residual a
    ResNet block adds to its last 1x1 convolution) gets the same lines
    prefetched for reading (`locality<3>`) before it: its rows are as far
    apart, and the adds waited on them.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TesselPrefetchWeightsPass
    : Pass<"tessel-prefetch-weights", "func::FuncOp"> {
  let summary = "Prefetches the next panel of a packed weight constant";
  let description = [{
    After bufferization. A code generator packs a convolution's or a
    product's constant weights as panels `[P, ...]`, one per block of
    output channels, and reads a panel again in every iteration of the
    loop over output pixel (or row) tiles. Only that loop's first
    iteration finds the panel out of the caches: inside a model each
    weight is read once per run, so it comes from memory, and the tile
    waits on it (MobileNetV2's 7x7 1x1 layers in the model ran 1.2-1.3x
    their warm time). Before each f32 `vector.transfer_read` of a
    `memref.get_global` at `[p, ...]` (rank 2 or more, static, in bounds,
    unmasked) that reads one run of the innermost dimension (its other
    vector dimensions unit or broadcast: a product tile's
    `vector<R x 1 x T x 1>`), inside an `scf.for` R that repeats and in
    which no index varies (none depends on its induction variable or
    loop-carried values), with `p` computed outside R,
    adds `memref.prefetch ... read, locality<2>` of the same lines of the
    next panel, `[min(p + 1, P - 1), ...]`, one per 64-byte line of the
    run. Only R's first iteration prefetches: the op of R's body that
    holds the reads (the reduction loop) runs in two versions under an
    `scf.if` on R's induction variable, with the prefetches and without
    (prefetching the same lines in each of R's iterations made a 50-row
    product 11% slower when its weights were in the caches already); a
    holder of more than 64 ops (a convolution tile's unrolled taps, whose
    copies made ResNet-50 compile in 23 s instead of 18) prefetches in
    every iteration instead. A read outside such a loop (a matrix-vector product's weights, each read
    once) is left to the hardware prefetcher.

    The same holds for an activation read in place by a product's row
    tiles: an f32 read of a run of any other buffer (identity layout,
    static, in bounds, unmasked) at `[..., j]`, `j` the induction variable
    of a loop J over column blocks (constant bounds, step S, two iterations
    or more), inside a loop R inside J that repeats and in which no index
    varies (a 1x1 convolution's input `[C, H*W]`, reread by each row tile
    of a column block, its rows a page or more apart). R's first iteration
    prefetches the same rows of the next column block,
    `[..., min(j + S, last)]`, `last` the start of J's last iteration.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TesselOutlineKernelsPass
    : Pass<"tessel-outline-kernels", "ModuleOp"> {
  let summary = "Moves each kernel's loop nest into a function of its own, "
                "one function per distinct kernel";
  let description = [{
    After bufferization and memory planning, before
    `tessel-parallelize-loops`. Every top-level `scf.for` of the entry
    function (`tessel_model_main`) without results, that is one kernel's
    loop nest, becomes a private function `tessel_kernel_N` (or
    `tessel_kernel_N:NODES`, named after the model nodes its ops come from
    as the parallel bodies are) marked `tessel.kernel`, and the loop
    becomes a call of it. Constants and `ub.poison` are cloned into
    the function; every other value the nest uses (memrefs with their
    types, weights read through `memref.get_global`, indices) is an
    argument, so that nests that differ only in the buffers they touch are
    the same function. (A view's static offset is part of its type: nests
    on views of one shape at different offsets stay apart. They cannot take
    a dynamic offset instead: the entry's calls pass bare pointers,
    `use-bare-ptr-memref-call-conv`.)

    Kernels that come out identical (the same ops, types and attributes,
    locations aside) share one function: an unrolled recurrent network's
    steps, a transformer's layers or a ResNet's repeated blocks are compiled
    once each. LLVM then optimises and selects machine code for many small
    functions instead of one function as large as the model, whose register
    allocation grew faster than its size. The function a kernel shares is
    named after the first node that has it.

    The LLVM translation marks the kernels `noinline`: inlined back into
    the entry, LLVM would again optimise one function as large as the
    model.

    ```mlir
    scf.for %i = %c0 to %c4 step %c1 { ... %w ... %v ... }
    // After:
    func.call @"tessel_kernel_0:/rnn/LSTM"(%w, %v) : (...) -> ()
    ```
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TesselParallelizeLoopsPass
    : Pass<"tessel-parallelize-loops", "ModuleOp"> {
  let summary = "Runs the marked parallel loops on the runtime's parallel_for";
  let description = [{
    After bufferization. The code generators mark the loops whose
    iterations write disjoint parts of their output (`tessel.parallel`: a
    convolution's filter blocks, a product's column or row blocks, the
    outermost parallel tile loop of an elementwise op or reduction, a
    pooling's channels). For each outermost marked `scf.for` of the entry
    function or of a kernel function (`tessel.kernel`, from
    `tessel-outline-kernels`) with constant bounds and more than one
    iteration, the body becomes a function `void
    tessel_parallel_body_N(ptr ctx, i64 begin, i64 end)` that runs
    iterations [begin, end), named
    `tessel_parallel_body_N:NODES` when its ops' locations name model nodes
    (`NameLoc`s, joined by '+' in the order they first appear, the loop's
    own last; bytes outside printable ASCII, quotes and backslashes become
    '_'; cut at 160 characters with "+..."): `tessel-bench --profile`,
    perf and debuggers show the kernel by its nodes. The values it uses travel
    in a stack struct (memref descriptors, indices as i64, scalars) and
    constants are cloned into it. The loop becomes a call of the
    `parallel_for` of the runtime services
    (`runtime/include/tessel/abi.h`), read from the thread-local global
    `tessel_services` that the artifact's entry point fills, with grain 1.
    The runtime splits the range over the session's threads (and runs it
    inline with one). Marks on other loops are dropped.

    ```mlir
    scf.for %f = %c0 to %c64 step %c16 { ... } {tessel.parallel}
    // After: llvm.call %parallel_for(%runtime_ctx, 0, 4, 1, @tessel_parallel_body_0, %ctx)
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TesselLowerVectorsPass : Pass<"tessel-lower-vectors", "func::FuncOp"> {
  let summary = "Lowers vector contractions and transfers towards LLVM";
  let description = [{
    After bufferization: `vector.contract` becomes outer products and those
    become FMAs on 1-D vectors; 1-D transfers become loads and stores;
    broadcasts, transposes and shape casts are unrolled to 1-D vector ops
    that `convert-vector-to-llvm` maps onto LLVM vectors. Multi-reductions
    become `vector.reduction`s along the innermost dimension; float sums
    and products among them are marked `reassoc`, so LLVM adds the lanes in
    a tree of vector operations rather than one after another. A transfer
    read that broadcasts along some of its dimensions (a constant 0 in its
    permutation map) reads them at size 1 and broadcasts the value, instead
    of upstream's transpose of the broadcast dimensions, element by element.
    A reduction along a length that is no power of two reduces power-of-two
    vectors instead (its chunks of the largest power of two that divides
    the length, 8 or more, combined lane by lane first; else its
    power-of-two pieces in turn): LLVM expanded a 112-lane sum into scalar
    loads and adds.
    Run `convert-vector-to-scf{full-unroll=true}` after it: it unrolls the
    n-D transfers into 1-D ones (without the full unroll it would put a
    stack buffer inside the loops).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselWidenBf16VectorMathPass
    : Pass<"tessel-widen-bf16-vector-math", "func::FuncOp"> {
  let summary = "Computes bf16 vector reductions and FMAs in f32";
  let description = [{
    x86 has no bf16 arithmetic. LLVM promotes a bf16 `vector.reduction` or
    `vector.fma` to f32 and rounds each result back with a call to
    `__truncsfbf2` where the CPU lacks AVX512-BF16; the libgcc an artifact
    links against may lack that function (Debian 12's gcc 12), and the
    link fails. After `tessel-lower-vectors`, this pass extends the
    operands of every such op to f32, computes it in f32 and rounds the
    result once (`arith.truncf`, which `arith-expand` turns into integer
    code), as `arith-emulate-unsupported-floats` does for the arith ops. A
    sum of bf16 lanes is then one f32 sum rounded once, the rule every
    Tessel lowering follows for half-precision sums.

    ```mlir
    %s = vector.reduction <add>, %v, %acc : vector<8xbf16> into bf16
    // becomes
    %w = arith.extf %v : vector<8xbf16> to vector<8xf32>
    %a = arith.extf %acc : bf16 to f32
    %r = vector.reduction <add>, %w, %a : vector<8xf32> into f32
    %s = arith.truncf %r : f32 to bf16
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselLowerAmxPass : Pass<"tessel-lower-amx", "ModuleOp"> {
  let summary = "Lowers AMX tiles, and the branches that carry them, to LLVM";
  let description = [{
    After `convert-scf-to-cf`: the `amx` ops that
    `tessel-vectorize-contractions{amx}` writes become the LLVM intrinsics
    they stand for (`llvm.x86.tileloadd64.internal`, `tdpbssd.internal`,
    ...), `!amx.tile` becomes `!llvm.x86_amx`, and the `cf` branches that
    carry tiles between blocks (a reduction loop's accumulators) are
    converted with them: the per-dialect conversions that run later know no
    tile type. Their memref and index operands are bridged by casts that
    the later conversions resolve. LLVM's X86 backend writes the tile
    configuration (`ldtilecfg`) from the tiles' static shapes. A module
    without `amx` ops is left alone.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

#endif // TESSEL_CODEGEN_CPU_PASSES_TD
