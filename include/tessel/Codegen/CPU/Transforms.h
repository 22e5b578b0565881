//===- Transforms.h - CPU code generation transformations -------*- C++ -*-===//
//
// The transformations the CPU code generation passes drive, as plain
// functions (`FailureOr<...> f(RewriterBase &, ...)`) in the manner of
// upstream Linalg's Transforms.h: each can be called from a pattern, a pass
// or a test without the pass around it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_TRANSFORMS_H
#define TESSEL_CODEGEN_CPU_TRANSFORMS_H

#include "tessel/Codegen/CPU/TargetInfo.h"
#include "tessel/Codegen/KernelGroup.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

class MicroKernel;

//===----------------------------------------------------------------------===//
// Matrix products (tessel-vectorize-contractions)
//===----------------------------------------------------------------------===//

/// The extents of a matrix product that its tiles are planned from.
struct ProductShape {
  /// Rows (M): the output's second-innermost loop; none for a
  /// matrix-vector product.
  std::optional<int64_t> rows;
  /// Columns (N): the output's innermost loop, along which vectors run.
  int64_t columns = 1;
  /// The reduction (K) when it is a single loop; none when it spans
  /// several (such a product gets no cache blocks).
  std::optional<int64_t> reduction;
  /// Whether the last row tile may overlap the one before it instead of
  /// dividing the rows: true when each register tile starts its
  /// accumulators from its own prologue (a fill or bias) and never reads
  /// the output, so the rows two tiles share are written twice with the
  /// same values.
  bool overlappingRows = false;
  /// Whether, with `overlappingRows`, the last column tile may overlap the
  /// one before it too, where no whole vector divides the columns (50
  /// attention keys): only where the column loop is not the one split
  /// across threads (a product inside an attention block's loop over
  /// heads), so that no two threads write the columns two tiles share.
  bool overlappingColumns = false;
};

/// Cache blocks around the register tiles (elements): looped columns,
/// reduction, rows.
struct ProductCacheBlocks {
  int64_t rows = 0;
  int64_t columns = 0;
  int64_t reduction = 0;
};

/// The tiles `planProductTiles` chooses for a product.
struct ProductTilePlan {
  /// The register tile: `rows` (MR, 1 without rows) x `columns` (NR)
  /// output elements, `columns` a multiple of `columnLanes`.
  int64_t rows = 1;
  int64_t columns = 1;
  /// Lanes of each vector of the tile's rows: the target's lanes, or half
  /// of them when no whole vector divides the columns (a classifier's 1000).
  int64_t columnLanes = 1;
  /// Cache blocks, when the operands take more than 2 MiB and some block is
  /// smaller than its loop; none otherwise.
  std::optional<ProductCacheBlocks> cacheBlocks;
};

/// Plans the register tile and cache blocks of a product of `shape` whose
/// vectors hold `lanes` accumulator lanes, `accumulators` of which the
/// register tile may occupy, and whose operand elements take `elementBytes`
/// bytes (what the cache-blocking threshold is measured in), on a core
/// whose FMA and load throughput `core` describes (the register-tile cost
/// model's input: estimateTileStepCycles). Tiles divide their loops
/// exactly, except that with `shape.overlappingRows` the rows may take a
/// tile that does not divide them (the last one then overlaps), and with
/// `shape.overlappingColumns` the columns too, when no whole vector
/// divides them.
ProductTilePlan planProductTiles(const ProductShape &shape, int64_t lanes,
                                 int64_t accumulators, int64_t elementBytes,
                                 const CpuTargetInfo &core = CpuTargetInfo());

/// What the product transformations plan their register tiles for.
struct ProductTilingOptions {
  /// The target whose micro-kernel the product's element types must have.
  CpuTargetInfo target;
  /// f32 lanes per vector register (the pass's `vector-width`).
  int64_t lanes = 8;
  /// Vector registers the register tile may occupy.
  int64_t accumulators = 12;
  /// ProductShape::overlappingRows for the products planned.
  bool overlappingRows = false;
  /// ProductShape::overlappingColumns for the products planned.
  bool overlappingColumns = false;
};

/// How one product's loops are tiled: a tile size per loop (0: not tiled)
/// and the loop order, for the register tiles and (when
/// `cacheTileSizes` is not empty) the cache blocks around them (blocks of
/// NC columns, KC reduction steps and MC rows, looped in that order).
struct ProductLoopTiles {
  /// What runs on each register tile (MicroKernel.h).
  const MicroKernel *microKernel = nullptr;
  SmallVector<int64_t> tileSizes;
  SmallVector<int64_t> interchange;
  SmallVector<int64_t> cacheTileSizes;
  SmallVector<int64_t> cacheInterchange;
};

/// The loop tiles of `op` when it is a static contraction the target has a
/// micro-kernel for (f32 today), whose output's innermost dimension is a
/// column read contiguously from the right-hand side; none otherwise.
std::optional<ProductLoopTiles>
planProductLoopTiles(linalg::LinalgOp op, const ProductTilingOptions &options);

/// Transposes a constant right-hand side stored as [..., n, k] into
/// [..., k, n] so that its rows are contiguous along n, and updates the
/// op's indexing map. Fails when it changes nothing.
LogicalResult transposeConstantRhs(RewriterBase &rewriter,
                                   linalg::GenericOp op);

/// Drops the unit loops of a generic f32 contraction, and those of the
/// neighbours its tiles are to absorb (its elementwise `consumer`, its
/// initialiser when `withInit`). Returns the op to vectorize: `op` itself
/// when nothing dropped.
linalg::LinalgOp dropProductUnitLoops(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      linalg::GenericOp consumer = nullptr,
                                      bool withInit = false);

/// Collapses the row (m) loops of a generic contraction into one when it
/// has several and both its left-hand side and its output read them
/// consecutively, in loop order (a channels-last [H, W, C] x [C, F] runs as
/// [H*W, C] x [C, F]: the register tile's rows then come from H*W, not W);
/// so do its elementwise `consumer` and its initialiser when `withInit`.
/// Returns the op to vectorize: `op` itself when nothing collapsed.
linalg::LinalgOp collapseProductRows(RewriterBase &rewriter,
                                     linalg::LinalgOp op,
                                     linalg::GenericOp consumer = nullptr,
                                     bool withInit = false);

/// Whether every unit loop of contraction `op` is a row (m) loop and no
/// row loop is longer: [1, K] x [K, N].
bool hasOnlyUnitRows(linalg::LinalgOp op);

/// For a micro-kernel that sums `group` reduction steps per lane (VNNI):
/// packs the constant i8 right-hand side `[K, N]` of the plain product
/// `[M, K] x [K, N]` as `[K/group, N, group]`, views the left-hand side as
/// `[M, K/group, group]`, and rebuilds the product over (m, n, k0, k1).
/// Fails, changing nothing, on anything else.
FailureOr<linalg::GenericOp> packGroupedWeights(RewriterBase &rewriter,
                                                linalg::LinalgOp op,
                                                int64_t group);

/// Turns a generic contraction with plain (batch) matmul maps into
/// `linalg.matmul` / `linalg.batch_matmul`. Returns `op` when it is no
/// named contraction.
linalg::LinalgOp specializeProduct(RewriterBase &rewriter, linalg::LinalgOp op);

/// Whether `op` is a matrix-vector product (only unit rows) whose constant
/// f32 matrix packMatrixPanels would pack: more columns than one panel of
/// 4 vectors of `lanes`.
bool isPanelledMatrixVector(linalg::LinalgOp op, int64_t lanes);

/// Packs the constant matrix of a product `[M, K] x [K, N]` into panels
/// `[N/T][K][T]`: T is 4 vectors of `lanes` for a matrix-vector product
/// (the last panel padded with zero columns), else `tileColumns` (the
/// register tile's width; N must be a multiple). Rebuilds its initialiser
/// (and elementwise consumer) on them. Returns the packed product, or `op`
/// when nothing changed.
linalg::LinalgOp packMatrixPanels(RewriterBase &rewriter, linalg::LinalgOp op,
                                  int64_t lanes, int64_t tileColumns);

/// The kernel `op`'s register tiles form (`getKernelGroup`), keeping the
/// neighbours they can run: an epilogue whose body is arith/math on f32
/// operands (bias add, activation, residual add, a scale), and a prologue
/// that is a fill or an arith/math generic (a bias broadcast).
KernelGroup getProductKernel(linalg::LinalgOp op);

/// When the result of `op` (with no unit dimensions) reaches its one
/// elementwise consumer through an expand_shape that only adds unit
/// dimensions, the consumer drops those unit loops and reads the result
/// directly.
void absorbUnitExpand(RewriterBase &rewriter, linalg::LinalgOp op);

/// Tiles `op` by `tiles` (cache blocks, then register tiles) and vectorizes
/// its tiles.
LogicalResult tileProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                          const ProductLoopTiles &tiles);

/// Runs `op`'s neighbours in its loops, one kernel: the consumer is tiled
/// along the product's register tiles (or its blocks of columns), the
/// product and its initialiser fused into those loops, the product's tile
/// tiled like any product. Records the kernel on the function unless
/// `inKernel`.
LogicalResult fuseProductNeighbours(RewriterBase &rewriter, linalg::LinalgOp op,
                                    const ProductLoopTiles &tiles,
                                    const KernelGroup &kernel,
                                    const ProductTilingOptions &options,
                                    bool inKernel);

//===----------------------------------------------------------------------===//
// Convolutions (tessel-vectorize-convolutions)
//===----------------------------------------------------------------------===//
//
// Each transformation takes the 2-D convolution generic that
// tessel-convert-tessel-to-linalg emits (NCHW or NHWC, f32, static shapes)
// and fails, changing nothing, on any other op or where its kernel does not
// apply. See the pass description in Passes.td for the kernels.

/// What the convolution kernels size their register tiles for: the options
/// of tessel-vectorize-convolutions, which the pipeline fills from the
/// target's `CpuTargetInfo` (`getF32Lanes`, `getConvolutionAccumulators`).
struct ConvolutionTilingOptions {
  /// What runs on each register tile (MicroKernel.h). `vectorizeConvolution`
  /// picks it for the convolution's element types when null.
  const MicroKernel *microKernel = nullptr;
  /// f32 lanes per vector register (at least 1).
  int64_t vectorWidth = 8;
  /// Vector registers an output tile may hold.
  int64_t accumulators = 12;
  /// Start the accumulators from the bias (or 0) the output was
  /// initialised with, and run the consuming elementwise generic on them
  /// before the store: the kernel absorbs both.
  bool fuseEpilogue = true;
  /// The target runs bf16 products on AMX tiles: a bf16 convolution run as
  /// a product on its gathered windows pads them to whole tile rows
  /// (amx_tiles::padReductionToTileRows).
  bool bf16TileRows = false;
  /// A convolution run as a product of its gathered windows runs in blocks
  /// of rows, each block's windows gathered just before it is multiplied
  /// (while they are in the core's L2), in a parallel loop.
  bool blockGatheredRows = true;
};

/// Rewrites an ungrouped NCHW convolution with constant f32 weights whose
/// filters (at least 4 vectors of `lanes`) end in a half vector as two
/// convolutions on slices of its output: the filters that fill whole
/// vectors, and the half vector, which it returns in that order.
FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>>
splitFilterRemainder(RewriterBase &rewriter, linalg::GenericOp op,
                     int64_t lanes);

/// Rewrites a 1x1 convolution with a stride over 1 (ungrouped, its input
/// not padded) as a copy of the input positions it reads, a generic of the
/// output's plane, and the same convolution at stride 1 on the copy, which
/// it returns (rewriteConvolutionAsProduct then takes it where the plane
/// allows).
FailureOr<linalg::GenericOp> subsampleStridedPointwise(RewriterBase &rewriter,
                                                       linalg::GenericOp op);

/// Rewrites a 1x1, stride-1, unpadded, ungrouped convolution as a product
/// on collapsed views, for tessel-vectorize-contractions: NCHW (one image,
/// its output plane a multiple of a vector) `[F, C] x [C, H*W]`, channels
/// last `[N*H*W, C] x [C, F]`. Channels last, an ungrouped i32 convolution
/// of 8-bit values with constant weights (tessel-narrow-integer-products)
/// of any window becomes `[N*OH*OW, KH*KW*C] x [KH*KW*C, F]` on its
/// gathered input windows. With `fuseEpilogue`, its initialiser (bias
/// broadcast, fill, zero-point correction) and elementwise consumer are
/// rebuilt on the product's views. Returns the product.
FailureOr<linalg::GenericOp>
rewriteConvolutionAsProduct(RewriterBase &rewriter, linalg::GenericOp conv,
                            const ConvolutionTilingOptions &options);

/// Rewrites a convolution with constant weights whose groups' filters fill
/// whole vectors (or, with 16 lanes or more, half vectors) into loops over
/// output tiles of 1-3 filter vectors x consecutive positions, the weights
/// packed at compile time. Returns the value that replaced the convolution
/// (or its fused epilogue).
FailureOr<Value>
vectorizeConvolutionOverFilters(RewriterBase &rewriter, linalg::GenericOp conv,
                                const ConvolutionTilingOptions &options);

/// Rewrites an NCHW convolution into loops over output tiles of filters x
/// rows x columns, vectorized along the columns. Returns the value that
/// replaced the convolution (or its fused epilogue).
FailureOr<Value>
vectorizeConvolutionOverColumns(RewriterBase &rewriter, linalg::GenericOp conv,
                                const ConvolutionTilingOptions &options);

/// What tessel-vectorize-convolutions does to each convolution: a strided
/// 1x1 one is first subsampled (subsampleStridedPointwise), then the first
/// of the product, over-filters and over-columns kernels that applies runs
/// it, except that filters ending in a half vector are first split in two
/// (splitFilterRemainder), each part taking the same path. Fails when no
/// kernel applies (channels-last convolutions that are neither stay loops);
/// the subsampling or split, equivalent rewrites, may then remain.
LogicalResult vectorizeConvolution(RewriterBase &rewriter,
                                   linalg::GenericOp conv,
                                   const ConvolutionTilingOptions &options);

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_CPU_TRANSFORMS_H
