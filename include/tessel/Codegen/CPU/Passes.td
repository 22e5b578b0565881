//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//

#ifndef TESSEL_CODEGEN_CPU_PASSES_TD
#define TESSEL_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselVectorizeContractionsPass
    : Pass<"tessel-vectorize-contractions", "func::FuncOp"> {
  let summary = "Register-tiles and vectorizes f32 matrix products on tensors";
  let description = [{
    CPU code generation for contractions (matmul, batch matmul, gemm: any
    `linalg` op whose body multiplies and adds, with static shapes and f32
    elements). Unit loops are dropped first, and a generic with plain
    (batch) matmul maps becomes `linalg.matmul`/`linalg.batch_matmul`. Each
    one is tiled into an `MR x NR` register tile of the output (`NR` 4, 2 or
    1 whole vectors, a power of two, the widest that leaves `accumulators`
    room for 4 rows; half vectors when no whole vector divides the columns,
    as a classifier's 1000; `MR` as many rows as the accumulators fit; when
    few rows divide the row count at that width, as 49 (a 7x7 feature map
    channels last), the narrower column tile that fills more accumulators:
    7 rows x 2 vectors), with loops
    ordered columns, rows, then the reduction innermost; the tile becomes a
    `vector.contract` whose accumulator stays in registers across the
    reduction loop (hoisted out of it).

    Products whose operands take more than 2 MiB get cache blocks around
    the register tiles: one register tile of columns, at most 1024
    reduction steps and 128 rows, looped columns, reduction, rows. A
    right-hand side computed at run time has each block (its rows `N`
    apart, one page each for a 1024^3 GEMM) copied into a contiguous buffer
    once per column block, outside the row-block loop whose register tiles
    all stream it; the copy (`linalg.copy`, marked `tessel.in_kernel`) is
    part of the product's kernel.

    With `fuse-epilogue` (the default), a product without cache blocks
    absorbs its neighbours: the one elementwise generic that consumes its
    result with identity maps (a bias add, an activation, a residual add,
    a scale) is tiled by the product's row and column tiles, and the
    product (its whole reduction) and the fill or broadcast generic that
    initialises its output are fused into those loops; the product's tile
    is then tiled along the reduction. The bias, the product and the
    activation are one kernel, the epilogue applied to the finished tile.
    With cache blocks, the consumer is tiled by the product's blocks of
    columns (whole rows) instead, the reduction blocked inside them; the
    initialiser's and consumer's block tiles are left, marked
    `tessel.in_kernel`, for `tessel-vectorize-generics` to tile into
    registers without counting another kernel.

    Unit loops and neighbours: when the product drops unit loops (a batch-1
    MatMul of a `[1, seq, d]` activation, torch's `[seq, 1, d]` attention
    projections), its initialiser and consumer drop the same unit loops, so
    that no reshape stands between them and the product. A product whose
    result reaches its consumer through an `expand_shape` that only adds
    unit dimensions (a Gemm's `[M, N]` reshaped to `[1, M, N]` before a
    residual add) has the consumer drop those unit loops, and absorbs it.

    A constant right-hand side stored transposed (ONNX `Gemm` with
    `transB = 1`, as torch exports `Linear`) is transposed once at compile
    time, so that every step loads a contiguous row of it. A matrix-vector
    product `[1, K] x [K, N]` with a constant matrix and more than one
    column tile of 4 vectors (`T` columns) runs on the matrix packed at
    compile time into panels `[P][K][T]` (zero columns pad the last one):
    each tile streams one contiguous panel (the rows of `[K, N]` are `N`
    apart: a classifier's tiles touched a new page every step) with 4
    vectors of independent accumulators. Its bias broadcast (or fill) and,
    when no column is padded, its elementwise consumer are rebuilt on the
    panels `[1, P, T]`; the result is the panels collapsed to a row (its
    first `N` columns).

    Tile sizes divide the loop sizes exactly (no padding or masking). Ops it
    does not handle (other element types, dynamic shapes, an output whose
    innermost dimension is not a column of the product, a scaled product)
    are left for `convert-linalg-to-loops`. `tessel-lower-vectors` lowers the
    vector ops after bufferization.

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
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselVectorizeWindowsPass
    : Pass<"tessel-vectorize-windows", "func::FuncOp"> {
  let summary = "Vector loops over output columns for 2-D pooling windows";
  let description = [{
    CPU code generation for the 2-D window reductions that pooling lowers
    to: a 6-loop `linalg.generic` (n, c, oh, ow, kh, kw) reading an NCHW
    f32 input (already padded) at `oh * sh + kh * dh`, `ow * sw + kw * dw`,
    with a window tensor that only gives the kernel loops their extents,
    and an elementwise body combining the input element into the
    accumulator (max pooling, the sum of average pooling). Windows of more
    than 64 taps are left alone (every tap is unrolled).

    It becomes loops over n, c, oh and tiles of `T` output columns (`T`
    the vector width, else half of it, else the largest divisor of the
    output width below it); per window tap the input row segment under the
    tile is read whole (rounded up to `T * stride` elements where the row
    allows), every stride-th lane kept by a `vector.shuffle`, and combined
    into the accumulator vector by the body applied to vectors. A max or
    min, exact in any order, combines the whole segments of all taps in a
    tree first and shuffles once. An output filled with a constant (-inf
    for max pooling) is not read: the accumulators start from the
    constant. A max (min) whose input is a `tensor.pad` by -inf (+inf),
    with dilation 1 and no window wholly in the padding, reads the unpadded
    input instead (no padded copy is made): each tap row is clamped into
    the input, the column tiles whose segments lie inside run in a loop, and
    the edge tiles read their segments inside the row and clamp their lanes
    by a shuffle. A clamped tap repeats an element of the same window, which
    leaves a maximum or minimum unchanged. The generic's vectorization would
    not apply: its input map is no projected permutation. Each rewrite is
    recorded as one kernel.

    Channels last (input and output indexed `[n, h, w, c]`, from
    `layout = #tessel.layout<nhwc>`, channels a multiple of the vector width
    or of half of it): loops over n, oh (parallel), ow and vectors of channels; each
    output position's tap positions are computed once (clamped into the
    unpadded input under the same conditions as above) and every tap reads
    one vector of channels, combined by the body.

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
    CPU code generation for the structured ops that the convolution and
    contraction vectorizers leave: elementwise `linalg.generic`s (bias adds,
    activations, residual adds, GELU), reductions (softmax, layer norm,
    pooling by reduction), `linalg.fill`, `linalg.transpose` and
    `linalg.copy`, with static shapes and f32 operands only, and bodies of
    `arith`/`math` ops (no `tensor.extract`: gathers stay scalar). A static
    f32 `tensor.pad` by a constant (the padding in front of convolutions and
    pooling) first becomes a `linalg.fill` of the padded tensor and a
    `linalg.copy` of the source into its interior, so both are vectorized;
    bufferized as a pad it would be a strided `memref.copy` that only scalar
    loops lower.

    Each op is tiled from its innermost loop outwards: whole loops while the
    tile holds at most `max-vector-elements` elements (default: 8 vector
    registers), then the largest divisor of the next loop that fits,
    preferring multiples of the vector width, then 1. Every tile becomes
    vector ops of its shape (`vector.transfer_read`, arithmetic, a
    `vector.multi_reduction` for a reduced loop, `vector.transfer_write`).
    Tiles divide loops exactly, so nothing is masked. Each op it vectorizes
    is recorded as one kernel for the compile report, except the ones
    marked `tessel.in_kernel` (tiles of a kernel already recorded).

    With `fuse-reductions` (the default), an elementwise generic that reads
    a reduction with its identity map (the reduction having no other user
    and starting from a `linalg.fill` with no other user) is tiled by the
    reduction's tile sizes along the dimensions the reduction's result
    keeps, when those tiles hold whole reductions (a reduction over outer
    loops, as channels-last global average pooling over H and W, takes
    tiles of its whole reduced loops x one vector of its innermost parallel
    loop instead, up to 64 vectors); the fill and the
    reduction are fused into its loops and all three tiles vectorized, one
    kernel: global average pooling's sum and division, say.

    Row groups (also `fuse-reductions`): an elementwise consumer that reads
    a reduction broadcast along the innermost dimension (softmax's division
    by the row sum, layer norm's final scale), together with every
    elementwise op, reduction and fill it reads, transitively, whose users
    are all in the group, is tiled by rows: the dimensions it reads some
    group member without (the reduced ones, the innermost among them) are
    whole, the others 1. Each member fuses into the row's loop and works on
    whole rows (a reduction over the row's elements per row, an elementwise
    op per element or per row: nothing is computed twice across rows); a
    row of at most 4 x `max-vector-elements` elements. Softmax (two fills,
    max, exp, sum, division) and layer norm (mean, variance, scale) are one
    kernel each.

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

def TesselVectorizeConvolutionsPass
    : Pass<"tessel-vectorize-convolutions", "func::FuncOp"> {
  let summary = "Direct NCHW or NHWC f32 convolutions with register-resident output tiles";
  let description = [{
    CPU code generation for the 2-D convolution that
    `tessel-convert-tessel-to-linalg` emits: a 7-loop `linalg.generic`
    (n, f, oh, ow, c, kh, kw) over an NCHW input (padded), FCHW
    weights and an NCHW output, any strides, dilations and groups, static
    shapes, f32. It becomes loops over output tiles whose accumulators are
    vectors carried through a loop over the group's input channels, in which
    every filter tap is unrolled. A pointwise convolution is instead left as
    a product, and the others get one of two tilings:

    - As a product: a 1x1, stride-1, unpadded, ungrouped convolution of one
      image whose output plane (H*W) is a multiple of 4 vectors becomes the
      `linalg.generic` product `[F, C] x [C, H*W]` on collapsed views, which
      `tessel-vectorize-contractions` then tiles along the contiguous
      planes. With `fuse-epilogue`, its bias broadcast (or zero fill) and
      its elementwise consumer are rebuilt on the `[F, H*W]` views, where
      that pass fuses them into the product's tiles.
    - Over filters, when the weights are constant and a group's filters fill
      whole vectors (or, with 16 lanes, half vectors: 24 or 40 filters):
      tiles of 1-3 vectors of filters x `P` consecutive output
      positions (row-major; `P` divides the output's area). The weights are
      packed at compile time as `[F/B][C][KH][KW][B]` (`B` filters per tile),
      so per tap the tile loads its weight vectors and broadcasts one input
      value per position. Accumulators are read along the filter dimension;
      when the positions are consecutive columns of one row (`P` at most a
      vector), the tile transposes them in registers (log2 rounds of
      two-source shuffles) and writes one row vector per filter; row-major
      tiles that cross rows do the same into the output viewed as
      `[N, F, H*W]` when the accumulators start from the bias or 0; else
      the tile writes along the filter dimension. When the input is a `tensor.pad` of the rows and columns by
      0, the kernel reads the unpadded input instead (no padded copy is
      made): the positions are then `P` columns of one output row, the tap
      rows that read inside the input for that row are a loop's range (with
      at most 14 output rows, the rows that read the padding are emitted on
      their own instead, their tap rows unrolled), and
      a tap column that reads the padding in some tiles reads a clamped
      column and selects 0 outside (one that always does is left out).
    - Over columns otherwise (depthwise convolutions, weights computed at run
      time): tiles of `Fr` filters x `OHr` rows x `OWr` columns, `OWr`
      two or one whole vectors where that divides the output width; else,
      when the accumulators start from the bias or 0, one whole or half
      vector, the last tile overlapping the one before it (a column computed
      twice is written twice alike); else a divisor of the width. Per
      tap, one input row segment per output row (a strided row is read whole,
      `OWr * stride` elements, and its lanes picked by a shuffle) and one
      broadcast weight per filter.
      A zero-padded input is read unpadded here too: a tap row that reads
      the padding in some row tiles reads a clamped row and selects 0
      outside, and the column tiles whose segments leave the row are
      emitted one by one, each segment read inside the row and its padded
      lanes shuffled in from a zero vector.

    Filter tiles fill the accumulator budget (`accumulators` vector
    registers; at most 12 for kernels larger than 3x3, whose unrolled taps
    ran slower with more), column tiles at most 12 of it. Of the NCHW
    filter tiles that fill it alike, one of exactly a vector of positions
    is taken (each filter's outputs are then written as one whole vector,
    not as halves written by neighbouring tiles; measurements in
    bench/notes/vectorize-convolutions.md); otherwise, and channels last,
    the fewest filter vectors and positions.

    Channels last (the generic with the input indexed `[n, h, w, c]` and
    the output `[n, oh, ow, f]`, from `layout = #tessel.layout<nhwc>`): a
    1x1, stride-1, unpadded, ungrouped convolution becomes the product `[N*H*W, C] x
    [C, F]` (constant weights as a constant `[F, C]`, which
    `tessel-vectorize-contractions` transposes), with its bias and consumer
    rebuilt on the `[N*H*W, F]` views; the others run over filters as
    above, their accumulators stored straight along the (contiguous) filter
    dimension; a depthwise convolution's tile runs over vectors of channels
    (the filters of as many groups), each tap reading a vector of channels
    instead of broadcasting one value (edge taps: a clamped column and a
    select of a zero vector). The zero padding is read through the same way;
    no per-channel shift. Other channels-last convolutions stay loops.

    With `fuse-epilogue` (the default), the convolution absorbs two
    neighbours, so that it and they are one kernel: the accumulators start
    from the bias (the broadcast generic that initialised the output, or a
    zero fill, is dropped), and the one all-parallel generic that consumes
    the result with identity maps (an activation, a residual add, a chain of
    them after `--tessel-fuse-elementwise`) runs on the finished
    accumulators before they are stored. Each rewrite is reported as one
    kernel, at the locations of everything it absorbed, by a `kernel`
    remark (for `tessel-compile --report`; tessel-opt prints them with
    `--remarks-filter=tessel --remark-format=emitRemark`).

    Other generics are left alone. Run it before bufferization.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register (8: AVX2, 16: AVX-512)">,
    Option<"accumulators", "accumulators", "int64_t", /*default=*/"12",
           "vector registers the output tile may occupy">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "start the accumulators from the bias (or 0) and run the "
           "consuming elementwise generic on them before the store">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
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
    never share bytes; a lifetime runs from the allocation to the last
    top-level op that uses the buffer or anything derived from it (views,
    casts, region results). A buffer that may escape (returned, passed to a
    call) keeps its allocation. The module attribute
    `tessel.workspace_size` records N; the artifact's descriptor carries it
    as `workspace_size`, and the runtime allocates one workspace per
    concurrent run of a session and reuses it, so a run allocates nothing.

    First, a static allocation inside a nest of `scf.for` loops whose buffer
    lives within one iteration (nothing derived from it is yielded, passed
    to a call or returned) moves to the top-level block, before the loop:
    one buffer for all iterations instead of an allocation in each
    (`tessel-fuse-attention`'s loop over heads allocates a head's scores).
    A loop marked `tessel.parallel` (iterations run at the same time on
    different threads) with constant bounds instead gets one buffer before
    it, of trip count x the bytes its body allocates, and each static
    allocation directly in its body whose buffer lives within one iteration
    becomes a `memref.view` of the iteration's own slice
    (`(iv - lower) / step * bytes + offset`), unless the slices would take
    more than 64 MiB.
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
    (measurements in bench/notes/prefetch-stores.md).
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
    their warm time). Before each 1-D f32 `vector.transfer_read` of a
    `memref.get_global` at `[p, ...]` (rank 2 or more, static, in bounds,
    unmasked) inside an `scf.for` that repeats and in which no index varies
    (none depends on its induction variable or loop-carried values), with
    `p` computed outside that loop,
    adds `memref.prefetch ... read, locality<2>` of the same lines of the
    next panel, `[min(p + 1, P - 1), ...]`, one per 64-byte line of the
    vector. A read outside such a loop (a matrix-vector product's weights,
    each read once) is left to the hardware prefetcher.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
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
    function with constant bounds and more than one iteration, the body
    becomes a function `void tessel_parallel_body_N(ptr ctx, i64 begin,
    i64 end)` that runs iterations [begin, end), named
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
    a tree of vector operations rather than one after another.
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

#endif // TESSEL_CODEGEN_CPU_PASSES_TD
