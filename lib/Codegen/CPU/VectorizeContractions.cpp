//===- VectorizeContractions.cpp - Register-tiled f32 contractions --------===//
//
// Tiles every static f32 contraction into register-sized output tiles and
// vectorizes each tile into a `vector.contract` whose accumulator is carried
// in registers across the reduction loop. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"

#include "KernelMarks.h"
#include "ParallelMarks.h"

#include "TileSizes.h"
#include "VectorCleanup.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONTRACTIONSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// How one contraction is tiled: a tile size per loop (0: not tiled) and
/// the loop order.
struct TilePlan {
  SmallVector<int64_t> tileSizes;
  SmallVector<int64_t> interchange;
  /// Cache blocking around the register tiles (empty: none): blocks of
  /// NC columns, KC reduction steps and MC rows, looped in that order, so a
  /// KC x NR strip of the right-hand side and the MC x KC block of the
  /// left-hand side stay in L2.
  SmallVector<int64_t> cacheTileSizes;
  SmallVector<int64_t> cacheInterchange;
};

/// Cache blocks (elements): at most MC rows and KC reduction steps, and
/// columns one register tile wide (AVX-512: 4 vectors of 16), so that each
/// KC x NR strip of the right-hand side (256 KiB) and the MC x KC block of
/// the left-hand side (512 KiB) stay in L2 together while the MC / MR
/// register tiles of the block stream the strip. Products whose operands
/// take at most kBlockingBytes run unblocked: their register tiles run the
/// fill and the epilogue in registers and store each output once.
/// Measured (Zen 4, 1 thread, bench/peak.c 114 GFLOP/s, best p50 of 4
/// rounds): the 1024^3 GEMM, MC/NC/KC 96/256/256 98 GFLOP/s, 128/128/1024
/// 97, 256/128/1024 100, 128/64/1024 107; MobileNetV2's 16 -> 96 pointwise
/// convolution at 112x112 ([96, 16] x [16, 12544], 0.8 MB) 0.79 ms blocked,
/// 0.54 ms not, and the whole network 8.6 -> 7.9 ms with a 2 MiB threshold
/// instead of 512 KiB; 512^3 (2 MiB) the same either way. Measured again
/// (1024^3, tessel-bench p50 over 4 interleaved rounds of 20 runs, ms):
/// 128/64/1024 20.0-20.3, 1024/64/512 20.3-21.2, 256/256/512
/// 21.5-22.7, 512/512/512 21.7-23.1; in a noisier round 128/64/1024
/// 20.1-21.4, 64/64/1024 20.3-22.2, 128/128/1024 22.1-23.0, 96/256/256
/// 21.2-23.1, 128/128/512 21.5-22.0.
constexpr int64_t kRowBlock = 128, kReductionBlock = 1024;
constexpr int64_t kBlockingBytes = 2 * 1024 * 1024;

/// The largest multiple of `tile` that divides `size` and is at most
/// `limit` (at least `tile`).
int64_t pickBlock(int64_t size, int64_t tile, int64_t limit) {
  int64_t best = tile;
  for (int64_t block = tile; block <= std::min(size, limit); block += tile)
    if (size % block == 0)
      best = block;
  return best;
}

/// The loop dimension that result `position` of `map` is, if a plain dim.
std::optional<unsigned> dimAt(AffineMap map, int64_t position) {
  if (position < 0 || position >= map.getNumResults())
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(position)))
    return dim.getPosition();
  return std::nullopt;
}

/// Whether `op` is a contraction this pass vectorizes, and its plan.
std::optional<TilePlan> planTiles(linalg::LinalgOp op, int64_t lanes,
                                  int64_t accumulators) {
  if (op->getNumResults() != 1 || op.getNumDpsInputs() != 2 ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType.getElementType().isF32() || resultType.getRank() < 1)
    return std::nullopt;
  for (Value input : op.getDpsInputs())
    if (!getElementTypeOrSelf(input.getType()).isF32())
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.empty() || dims->k.empty())
    return std::nullopt;

  // Vectors run along the output's innermost dimension, which must be a
  // column (n) dimension, read contiguously from the right-hand side too.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  std::optional<unsigned> nDim = dimAt(outMap, outMap.getNumResults() - 1);
  if (!nDim || !llvm::is_contained(dims->n, *nDim))
    return std::nullopt;
  AffineMap rhsMap = maps[1];
  if (dimAt(rhsMap, rhsMap.getNumResults() - 1) != nDim)
    return std::nullopt;
  // The row (m) dimension: the output's second-innermost dimension, if it
  // is one (a matrix-vector product has none).
  std::optional<unsigned> mDim = dimAt(outMap, outMap.getNumResults() - 2);
  if (mDim && !llvm::is_contained(dims->m, *mDim))
    mDim.reset();

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  TilePlan plan;
  plan.tileSizes.assign(numLoops, 1);
  // Rows of 4, 2 or 1 whole vectors (a power of two: LLVM splits other
  // widths into partial registers and shuffles them every step), the
  // widest that still leaves accumulators for 4 rows.
  // Columns that no whole vector divides (a classifier's 1000) take half
  // vectors (8 of AVX-512's 16 lanes fill a ymm register): a width such as
  // 50 would be split into partial registers reshuffled every step (that
  // tile took a quarter of MobileNetV2's time).
  int64_t columnLanes = lanes;
  if (ranges[*nDim] % lanes != 0 && lanes % 2 == 0 &&
      ranges[*nDim] % (lanes / 2) == 0)
    columnLanes = lanes / 2;
  SmallVector<int64_t> columnTiles;
  for (int64_t vectors : {4, 2, 1})
    if (vectors == 1 || accumulators / vectors >= 4)
      columnTiles.push_back(vectors * columnLanes);
  int64_t nTile = pickDivisor(ranges[*nDim], columnTiles, columnTiles.front());
  auto rowsFor = [&](int64_t columns) {
    int64_t vectorsPerRow = (columns + columnLanes - 1) / columnLanes;
    int64_t maxRows = std::max<int64_t>(1, accumulators / vectorsPerRow);
    return pickDivisor(ranges[*mDim], {std::min<int64_t>(maxRows, 6), 4},
                       maxRows);
  };
  if (mDim) {
    // Rows that only divide by few at the widest tile (7x7 feature maps
    // channels last: 49 rows, 1 x 4 vectors, one load per FMA) take
    // narrower columns when that fills more accumulators (7 x 2 vectors).
    int64_t best = rowsFor(nTile) * nTile;
    for (int64_t columns : columnTiles) {
      if (columns >= nTile || ranges[*nDim] % columns != 0)
        continue;
      int64_t filled = rowsFor(columns) * columns;
      if (filled > best) {
        best = filled;
        nTile = columns;
      }
    }
    plan.tileSizes[*mDim] = rowsFor(nTile);
  }
  plan.tileSizes[*nDim] = nTile;

  // Loop order: everything else, then columns, rows, and the reduction
  // innermost so that the output tile stays in registers across it.
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != *nDim && (!mDim || d != *mDim) && !llvm::is_contained(dims->k, d))
      plan.interchange.push_back(d);
  plan.interchange.push_back(*nDim);
  if (mDim)
    plan.interchange.push_back(*mDim);
  for (unsigned d : dims->k)
    plan.interchange.push_back(d);

  // Cache blocks, when a row, a column and a single reduction dimension
  // exist, the operands take more than kBlockingBytes, and some block is
  // smaller than its loop.
  if (mDim && dims->k.size() == 1 &&
      (ranges[*mDim] + ranges[*nDim]) * ranges[dims->k.front()] * 4 >
          kBlockingBytes) {
    unsigned kDim = dims->k.front();
    int64_t rowBlock =
        pickBlock(ranges[*mDim], plan.tileSizes[*mDim], kRowBlock);
    int64_t columnBlock = nTile;
    int64_t reductionBlock = pickBlock(ranges[kDim], 1, kReductionBlock);
    if (rowBlock < ranges[*mDim] || columnBlock < ranges[*nDim] ||
        reductionBlock < ranges[kDim]) {
      plan.cacheTileSizes.assign(numLoops, 0);
      plan.cacheTileSizes[*mDim] = rowBlock;
      plan.cacheTileSizes[*nDim] = columnBlock;
      plan.cacheTileSizes[kDim] = reductionBlock;
      for (unsigned d = 0; d < numLoops; ++d)
        if (d != *nDim && d != *mDim && d != kDim)
          plan.cacheInterchange.push_back(d);
      plan.cacheInterchange.append({*nDim, kDim, *mDim});
    }
  }
  return plan;
}

/// Transposes a constant right-hand side stored as [..., n, k] into
/// [..., k, n] so that its rows are contiguous along n, and updates the
/// op's indexing map. Returns whether it changed anything.
bool transposeConstantRhs(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap rhsMap = maps[1];
  int64_t rank = rhsMap.getNumResults();
  if (rank < 2 || !rhsMap.isProjectedPermutation())
    return false;
  DenseElementsAttr value;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !value.getElementType().isF32())
    return false;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  int64_t batch = type.getNumElements() / std::max<int64_t>(1, rows * cols);

  SmallVector<float> source(value.getValues<float>());
  SmallVector<float> transposed(source.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        transposed[b * rows * cols + c * rows + r] =
            source[b * rows * cols + r * cols + c];
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 2], shape[rank - 1]);
  auto newType = RankedTensorType::get(shape, type.getElementType());
  auto attr = DenseElementsAttr::get(newType, ArrayRef<float>(transposed));

  rewriter.setInsertionPoint(op);
  Value constant = arith::ConstantOp::create(rewriter, op.getLoc(), attr);
  SmallVector<AffineExpr> exprs(rhsMap.getResults());
  std::swap(exprs[rank - 2], exprs[rank - 1]);
  maps[1] = AffineMap::get(rhsMap.getNumDims(), 0, exprs, op.getContext());
  rewriter.modifyOpInPlace(op, [&] {
    op.getDpsInputOperand(1)->set(constant);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  return true;
}

/// Makes `operand` read past a collapse of an expand that restores its
/// type (the reshapes between two ops that both dropped the same unit
/// dimensions), and erases the reshapes once unused.
void skipReshapePair(RewriterBase &rewriter, OpOperand &operand) {
  auto collapse = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
  auto expand = collapse
                    ? collapse.getSrc().getDefiningOp<tensor::ExpandShapeOp>()
                    : nullptr;
  if (!expand || expand.getSrcType() != collapse.getResultType() ||
      expand.getReassociationIndices() != collapse.getReassociationIndices())
    return;
  rewriter.modifyOpInPlace(operand.getOwner(),
                           [&] { operand.set(expand.getSrc()); });
  if (collapse->use_empty())
    rewriter.eraseOp(collapse);
  if (expand->use_empty())
    rewriter.eraseOp(expand);
}

/// Drops the unit loops of `generic`, an elementwise neighbour of a product
/// whose unit loops were dropped, and reads the product's (or feeds it) its
/// values without the reshapes in between.
void dropNeighbourUnitLoops(RewriterBase &rewriter, linalg::GenericOp generic) {
  rewriter.setInsertionPoint(generic);
  linalg::ControlDropUnitDims control;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return;
  rewriter.replaceOp(generic, dropped->replacements);
  for (OpOperand &operand : dropped->resultOp->getOpOperands())
    skipReshapePair(rewriter, operand);
}

/// The product's initialiser without the unit dimensions the product
/// dropped: a fill of them is a fill of the collapsed tensor, a generic
/// drops them too.
void dropInitUnitLoops(RewriterBase &rewriter, linalg::LinalgOp product) {
  OpOperand &init = product.getDpsInitsMutable()[0];
  auto collapse = init.get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !collapse->hasOneUse())
    return;
  Operation *producer = collapse.getSrc().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    rewriter.setInsertionPoint(collapse);
    Value empty = tensor::EmptyOp::create(
        rewriter, fill.getLoc(), collapse.getResultType().getShape(),
        collapse.getResultType().getElementType());
    Value filled = linalg::FillOp::create(rewriter, fill.getLoc(),
                                          fill.getInputs()[0], empty)
                       .getResult(0);
    rewriter.modifyOpInPlace(product, [&] { init.set(filled); });
    rewriter.eraseOp(collapse);
    rewriter.eraseOp(fill);
    return;
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    dropNeighbourUnitLoops(rewriter, generic);
    skipReshapePair(rewriter, init);
  }
}

/// Drops the unit loops of a generic contraction (torch's attention
/// projections multiply [seq, 1, d] by [d, 3d]): the row loop is then the
/// long one, not the unit batch dimension, and the register tile gets its
/// rows. The neighbours the product's tiles are to absorb (its elementwise
/// `consumer`, its initialiser `withInit`) drop the same unit loops, so
/// that no reshape stands between them and the product. Returns the op to
/// vectorize (`op` itself when nothing dropped).
linalg::LinalgOp dropUnitLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                               linalg::GenericOp consumer = nullptr,
                               bool withInit = false) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  auto isF32 = [](Value v) { return getElementTypeOrSelf(v).isF32(); };
  if (!generic || !linalg::isaContractionOpInterface(op) ||
      op.hasDynamicShape() || !llvm::all_of(op->getOperands(), isF32) ||
      !llvm::is_contained(op.getStaticLoopRanges(), 1))
    return op;
  rewriter.setInsertionPoint(generic);
  linalg::ControlDropUnitDims control;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return op;
  auto result = dyn_cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
  if (!result || !linalg::isaContractionOpInterface(result)) {
    // No longer a contraction (a product with a unit reduction): keep the
    // original; the reshapes built for the new one are dead.
    for (Value replacement : dropped->replacements)
      if (Operation *expand = replacement.getDefiningOp();
          expand && expand != dropped->resultOp.getOperation() &&
          expand->use_empty())
        rewriter.eraseOp(expand);
    if (dropped->resultOp && dropped->resultOp->use_empty())
      rewriter.eraseOp(dropped->resultOp);
    return op;
  }
  rewriter.replaceOp(generic, dropped->replacements);
  if (withInit)
    dropInitUnitLoops(rewriter, result);
  if (consumer)
    dropNeighbourUnitLoops(rewriter, consumer);
  return result;
}

/// Whether every unit loop of contraction `op` is a row (m) loop and no
/// row loop is longer: [1, K] x [K, N].
bool hasOnlyUnitRows(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.hasDynamicShape())
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned d = 0; d < ranges.size(); ++d)
    if ((ranges[d] == 1) != llvm::is_contained(dims->m, d))
      return false;
  return true;
}

/// Whether `op` indexes its operands as a plain (batch) matmul does:
/// (m, k), (k, n) -> (m, n), with leading batch loops. LLVM 22's
/// specialization turns other products (a transposed operand) into a
/// matmul with the default maps, which computes something else.
bool hasPlainProductMaps(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops != 3 && loops != 4)
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> batch;
  if (loops == 4)
    batch.push_back(getAffineDimExpr(0, ctx));
  unsigned first = loops - 3;
  AffineExpr m = getAffineDimExpr(first, ctx),
             n = getAffineDimExpr(first + 1, ctx),
             k = getAffineDimExpr(first + 2, ctx);
  auto map = [&](AffineExpr a, AffineExpr b) {
    SmallVector<AffineExpr> exprs(batch);
    exprs.append({a, b});
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  SmallVector<AffineMap> expected = {map(m, k), map(k, n), map(m, n)};
  return op.getIndexingMapsArray() == expected;
}

/// Turns a generic contraction into the named op it is (matmul,
/// batch_matmul), whose vectorization is a `vector.contract` of row, column
/// and reduction vectors; a generic's reads instead take the whole
/// iteration space, which unrolls into single lanes. Returns `op` when it
/// is no named contraction.
linalg::LinalgOp specialize(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !linalg::isaContractionOpInterface(op) ||
      !hasPlainProductMaps(op))
    return op;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::LinalgOp> named =
      linalg::specializeGenericOp(rewriter, generic);
  if (failed(named))
    return op;
  return *named;
}

/// Marks the first loop of `tiling` that runs more than once when every
/// loop up to it is over a row, column or batch dimension of `op` (their
/// iterations write disjoint tiles of the output).
void markParallelLoop(scf::SCFTilingResult &tiling,
                      ArrayRef<int64_t> interchange,
                      ArrayRef<int64_t> tileSizes, linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> at =
      firstParallelLoop(interchange, tileSizes, ranges, [&](int64_t d) {
        return iterators[d] == utils::IteratorType::parallel;
      });
  if (at && *at < tiling.loops.size())
    tessel::cpu::markParallel(tiling.loops[*at].getOperation(),
                              tessel::cpu::workOf(ranges));
}

/// The neighbours a product's register tiles absorb: the one elementwise
/// generic consuming its result with identity maps (bias add, activation,
/// residual add, a scale) and the fill or broadcast generic initialising its
/// output, when each has no other user.
struct ProductNeighbours {
  linalg::GenericOp consumer;
  Operation *init = nullptr;
};

/// Whether `op`'s body is arith/math on its arguments and the yield.
bool isComputeOnly(linalg::LinalgOp op) {
  for (Operation &nested : op.getBlock()->getOperations()) {
    if (isa<linalg::YieldOp>(nested))
      continue;
    if (nested.getNumRegions() != 0 || !nested.getDialect() ||
        !isa<arith::ArithDialect, math::MathDialect>(nested.getDialect()))
      return false;
  }
  return true;
}

/// The one user of `result` when it is an elementwise f32 generic reading
/// it with the identity map into a result of the same type.
linalg::GenericOp elementwiseUserOf(Value result) {
  if (!result.hasOneUse())
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || consumer->getNumResults() != 1 ||
      consumer.getNumReductionLoops() != 0 ||
      !consumer.hasPureTensorSemantics() ||
      consumer->getResult(0).getType() != result.getType() ||
      !isComputeOnly(consumer))
    return nullptr;
  for (OpOperand &operand : consumer->getOpOperands()) {
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return nullptr;
    if (operand.get() == result &&
        !consumer.getMatchingIndexingMap(&operand).isIdentity())
      return nullptr;
  }
  if (!consumer.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return nullptr;
  return consumer;
}

/// The consumer `op`'s register tiles can run: the one elementwise generic
/// reading its result with the identity map.
linalg::GenericOp consumerOf(linalg::LinalgOp op) {
  linalg::GenericOp consumer = elementwiseUserOf(op->getResult(0));
  return consumer && tessel::mayFuse(op, consumer) ? consumer : nullptr;
}

/// When the result of `op` (with no unit dimensions) reaches its one
/// elementwise consumer through an expand_shape that only adds unit
/// dimensions (a Gemm's [M, N] reshaped to [1, M, N] before a residual
/// add), the consumer drops those unit loops and reads the result directly.
void absorbUnitExpand(RewriterBase &rewriter, linalg::LinalgOp op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand)
    return;
  auto isUnit = [](int64_t extent) { return extent == 1; };
  ArrayRef<int64_t> from = expand.getSrcType().getShape(),
                    to = expand.getResultType().getShape();
  if (llvm::any_of(from, isUnit) ||
      int64_t(to.size()) - llvm::count_if(to, isUnit) != int64_t(from.size()))
    return;
  if (linalg::GenericOp consumer = elementwiseUserOf(expand.getResult());
      consumer && tessel::mayFuse(op, consumer))
    dropNeighbourUnitLoops(rewriter, consumer);
}

/// `op`'s neighbours: its consumer and its initialiser, either or both.
std::optional<ProductNeighbours> neighboursOf(linalg::LinalgOp op) {
  ProductNeighbours neighbours{consumerOf(op), nullptr};
  Operation *init = op.getDpsInits()[0].getDefiningOp();
  if (init && init->hasOneUse() && tessel::mayFuse(op, init)) {
    auto producer = dyn_cast<linalg::LinalgOp>(init);
    if (producer && producer.getNumReductionLoops() == 0 &&
        producer->getNumResults() == 1 &&
        (isa<linalg::FillOp>(init) ||
         (isa<linalg::GenericOp>(init) && isComputeOnly(producer))))
      neighbours.init = init;
  }
  if (!neighbours.consumer && !neighbours.init)
    return std::nullopt;
  return neighbours;
}

/// The initialiser of a matrix-vector product `[1, N]` rebuilt on its
/// panels `[1, P, T]` (N padded to P * T columns): a fill, or a broadcast
/// of a constant (the bias) padded with zeros; null when `init` is
/// neither.
Value panelInit(RewriterBase &rewriter, Value init, int64_t panels,
                int64_t width) {
  Operation *producer = init.getDefiningOp();
  auto type = cast<RankedTensorType>(init.getType());
  int64_t columns = type.getDimSize(1);
  if (!producer || !producer->hasOneUse())
    return Value();
  Location loc = producer->getLoc();
  auto emptyPanels = [&] {
    rewriter.setInsertionPoint(producer);
    return tensor::EmptyOp::create(rewriter, loc, {1, panels, width},
                                   type.getElementType());
  };
  if (auto fill = dyn_cast<linalg::FillOp>(producer))
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                  Value(emptyPanels()))
        .getResult(0);
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  DenseElementsAttr value;
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      generic.getIndexingMapsArray() !=
          SmallVector<AffineMap>{AffineMap::get(2, 0, d(1), ctx),
                                 AffineMap::getMultiDimIdentityMap(2, ctx)} ||
      !matchPattern(generic.getDpsInputs()[0], m_Constant(&value)) ||
      !value.getElementType().isF32() || value.getNumElements() != columns)
    return Value();
  // Built only once the producer qualifies: a refused one leaves no ops.
  Value empty = emptyPanels();
  SmallVector<float> values(value.getValues<float>());
  values.resize(panels * width, 0.0f);
  Value constant = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({panels, width}, value.getElementType()),
          ArrayRef<float>(values)));
  auto rebuilt = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, ValueRange{constant},
      ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                          AffineMap::getMultiDimIdentityMap(3, ctx)},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
  IRMapping mapping;
  generic.getRegion().cloneInto(&rebuilt.getRegion(), mapping);
  return rebuilt.getResult(0);
}

/// A matrix-vector product `[1, K] x [K, N]` with a constant matrix and
/// more than one column tile of 4 vectors (T columns) runs on the matrix
/// packed at compile time into panels `[P][K][T]`, zero columns padding
/// the last one: out `[1, P, T]`, whose first N columns are the result.
/// Each tile then streams one contiguous panel (the rows of a [K, N]
/// matrix are N apart: a 1000-class classifier's tiles touched a new page
/// per step, out of the hardware prefetchers' reach), and carries 4
/// independent accumulators (1000 columns took 125 tiles of one 8-lane
/// chain). Its initialiser and, when no column is padded, its elementwise
/// consumer are rebuilt on the panels too. Returns the packed product, or
/// `op` when nothing changed.
linalg::LinalgOp packMatrixPanels(RewriterBase &rewriter, linalg::LinalgOp op,
                                  int64_t lanes) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](unsigned loops, ArrayRef<AffineExpr> results) {
    return AffineMap::get(loops, 0, results, ctx);
  };
  DenseElementsAttr value;
  if (!generic || !hasOnlyUnitRows(op) ||
      op.getIndexingMapsArray() !=
          SmallVector<AffineMap>{map(3, {d(0), d(2)}), map(3, {d(2), d(1)}),
                                 map(3, {d(0), d(1)})} ||
      !matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !value.getElementType().isF32())
    return op;
  int64_t width = 4 * lanes;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  if (columns <= width)
    return op;
  int64_t panels = llvm::divideCeil(columns, width);
  bool padded = panels * width != columns;
  // A consumer is rebuilt on the panels when every operand it reads is a
  // [1, N] tensor read as it is (a residual, not a broadcast bias).
  linalg::GenericOp consumer = consumerOf(op);
  if (consumer &&
      (padded || !llvm::all_of(consumer->getOpOperands(), [&](OpOperand &o) {
        return o.get().getType() == op->getResult(0).getType() &&
               consumer.getMatchingIndexingMap(&o).isIdentity();
      })))
    return op;
  Value init = panelInit(rewriter, op.getDpsInits()[0], panels, width);
  if (!init)
    return op;
  SmallVector<float> source(value.getValues<float>());
  SmallVector<float> packed(panels * rows * width, 0.0f);
  for (int64_t k = 0; k < rows; ++k)
    for (int64_t n = 0; n < columns; ++n)
      packed[((n / width) * rows + k) * width + n % width] =
          source[k * columns + n];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value weights = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({panels, rows, width}, type.getElementType()),
          ArrayRef<float>(packed)));
  // Loops (m, panel, column in the panel, k).
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()},
      ValueRange{op.getDpsInputs()[0], weights}, ValueRange{init},
      ArrayRef<AffineMap>{map(4, {d(0), d(3)}), map(4, {d(1), d(3), d(2)}),
                          map(4, {d(0), d(1), d(2)})},
      ArrayRef<utils::IteratorType>{
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::parallel, utils::IteratorType::reduction});
  IRMapping mapping;
  generic.getRegion().cloneInto(&product.getRegion(), mapping);
  SmallVector<ReassociationIndices> panelsToRow = {{0}, {1, 2}};
  auto rowType =
      RankedTensorType::get({1, panels * width}, type.getElementType());
  Operation *oldInit = op.getDpsInits()[0].getDefiningOp();
  if (consumer) {
    // The consumer on the panels: its other operands (and its output)
    // viewed as [1, P, T].
    rewriter.setInsertionPoint(consumer);
    SmallVector<Value> inputs;
    for (Value input : consumer.getDpsInputs())
      inputs.push_back(input == op->getResult(0)
                           ? product.getResult(0)
                           : tensor::ExpandShapeOp::create(
                                 rewriter, loc, init.getType(), input,
                                 panelsToRow)
                                 .getResult());
    Value out = tensor::ExpandShapeOp::create(
        rewriter, loc, init.getType(), consumer.getDpsInits()[0], panelsToRow);
    auto rebuilt = linalg::GenericOp::create(
        rewriter, consumer.getLoc(), TypeRange{init.getType()}, inputs,
        ValueRange{out},
        SmallVector<AffineMap>(inputs.size() + 1,
                               AffineMap::getMultiDimIdentityMap(3, ctx)),
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
    IRMapping consumerMapping;
    consumer.getRegion().cloneInto(&rebuilt.getRegion(), consumerMapping);
    Value row = tensor::CollapseShapeOp::create(
        rewriter, loc, rowType, rebuilt.getResult(0), panelsToRow);
    rewriter.replaceOp(consumer, row);
    rewriter.eraseOp(op);
  } else {
    Value row = tensor::CollapseShapeOp::create(
        rewriter, loc, rowType, product.getResult(0), panelsToRow);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (padded)
      row = tensor::ExtractSliceOp::create(
          rewriter, loc, resultType, row,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                                 rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(columns)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, row);
  }
  rewriter.eraseOp(oldInit);
  return cast<linalg::LinalgOp>(product.getOperation());
}

bool isMarked(scf::SCFTilingResult &tiling) {
  return llvm::any_of(tiling.loops, [](LoopLikeOpInterface loop) {
    return loop->hasAttr(tessel::cpu::kParallelAttr);
  });
}

struct VectorizeContractionsPass
    : tessel::impl::TesselVectorizeContractionsPassBase<
          VectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    int64_t lanes = std::max<int64_t>(1, vectorWidth);

    // Only contractions: the rewrites below erase the elementwise ops
    // around them.
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        candidates.push_back(op);
    });
    bool changed = false;
    for (linalg::LinalgOp op : candidates) {
      // A part of a kernel already recorded (a head's product in
      // tessel-fuse-attention's loop) is vectorized alike but records no
      // kernel of its own. (Dropping unit loops rebuilds the op without
      // the mark.)
      bool inKernel = op->hasAttr(tessel::cpu::kInKernelAttr);
      // Unit loops are dropped (their reshapes would stand between the
      // product and its neighbours) unless the product only has unit rows
      // (a matrix-vector product: 1-row tiles either way) and neighbours.
      // With epilogue fusion the neighbours drop the same unit loops.
      if (fuseEpilogue)
        absorbUnitExpand(rewriter, op);
      std::optional<ProductNeighbours> around =
          fuseEpilogue ? neighboursOf(op) : std::nullopt;
      if (!(around && hasOnlyUnitRows(op)))
        op = around ? dropUnitLoops(rewriter, op, around->consumer,
                                    around->init != nullptr)
                    : dropUnitLoops(rewriter, op);
      std::optional<TilePlan> plan = planTiles(op, lanes, accumulators);
      if (!plan) {
        // A right-hand side stored transposed may qualify once transposed.
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        if (!generic || !linalg::isaContractionOpInterface(op))
          continue;
        IRRewriter::InsertionGuard guard(rewriter);
        if (!transposeConstantRhs(rewriter, generic))
          continue;
        plan = planTiles(op, lanes, accumulators);
        if (!plan)
          continue;
      }
      if (linalg::LinalgOp packed = packMatrixPanels(rewriter, op, lanes);
          packed != op) {
        op = packed;
        plan = planTiles(op, lanes, accumulators);
        if (!plan)
          continue;
      }
      // Same loops and maps: the plan holds for the named op too.
      op = specialize(rewriter, op);
      if (fuseEpilogue)
        if (std::optional<ProductNeighbours> neighbours = neighboursOf(op))
          if (succeeded(
                  fuseNeighbours(rewriter, op, *plan, *neighbours, inKernel))) {
            changed = true;
            continue;
          }
      Location kernelLoc = op->getLoc();
      if (succeeded(tileProduct(rewriter, op, *plan))) {
        // The report counts the loop nest as one kernel (its structured op
        // is vectorized away).
        if (!inKernel)
          tessel::cpu::recordKernel(func, "contraction", kernelLoc);
        changed = true;
      }
    }
    if (!changed)
      return;
    finishVectorization(func);
  }

  /// Copies the right-hand side's block that the blocked tile `op` reads
  /// (KC rows of one register tile's columns, rows N apart in the operand)
  /// into a contiguous buffer, once per block: the copy is hoisted out of
  /// `rowLoop` (the row-block loop, the innermost block loop; or the row
  /// loop of register tiles fused with their neighbours), whose register
  /// tiles all stream the same block.
  /// Read in place, each of the block's rows was a page of its own for the
  /// 1024^3 GEMM (1024 TLB entries per block, no hardware prefetch across
  /// them). The copy is part of the product's kernel.
  void packRhsBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                    LoopLikeOpInterface rowLoop) {
    OpOperand *rhs = op.getDpsInputOperand(1);
    auto type = cast<RankedTensorType>(rhs->get().getType());
    if (type.getRank() != 2 || !type.hasStaticShape())
      return;
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    auto copy = linalg::CopyOp::create(rewriter, loc, rhs->get(), empty);
    copy->setAttr(tessel::cpu::kInKernelAttr,
                  UnitAttr::get(rewriter.getContext()));
    rewriter.modifyOpInPlace(op, [&] { rhs->set(copy.getResult(0)); });
    // Out of the row loop only: a buffer hoisted out of the parallel
    // column loop would be shared by its threads.
    if (rowLoop)
      moveLoopInvariantCode(rowLoop);
  }

  /// Tiles `op` by `plan` (cache blocks, then register tiles) and
  /// vectorizes its tiles.
  LogicalResult tileProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                            const TilePlan &plan) {
    MLIRContext *ctx = op.getContext();
    Operation *target = op.getOperation();
    bool parallelMarked = false;
    // (Read now: blocking replaces `op`.)
    bool constantRhs = matchPattern(op.getDpsInputs()[1], m_Constant());
    if (!plan.cacheTileSizes.empty()) {
      scf::SCFTilingOptions blocks;
      blocks.setTileSizes(
          getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>(plan.cacheTileSizes)));
      blocks.setInterchange(plan.cacheInterchange);
      rewriter.setInsertionPoint(target);
      FailureOr<scf::SCFTilingResult> blocked =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(target), blocks);
      if (failed(blocked) || blocked->tiledOps.size() != 1)
        return failure();
      markParallelLoop(*blocked, plan.cacheInterchange, plan.cacheTileSizes,
                       op);
      parallelMarked = isMarked(*blocked);
      rewriter.replaceOp(target, blocked->replacements);
      target = blocked->tiledOps.front();
      if (!constantRhs)
        packRhsBlock(rewriter, cast<linalg::LinalgOp>(target),
                     blocked->loops.empty() ? LoopLikeOpInterface()
                                            : blocked->loops.back());
    }
    scf::SCFTilingOptions options;
    options.setTileSizes(
        getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>(plan.tileSizes)));
    options.setInterchange(plan.interchange);
    rewriter.setInsertionPoint(target);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(target), options);
    if (failed(tiled))
      return failure();
    if (!parallelMarked)
      markParallelLoop(*tiled, plan.interchange, plan.tileSizes,
                       cast<linalg::LinalgOp>(target));
    rewriter.replaceOp(target, tiled->replacements);
    for (Operation *tiledOp : tiled->tiledOps) {
      rewriter.setInsertionPoint(tiledOp);
      FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
          rewriter, tiledOp, /*inputVectorSizes=*/{},
          /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
          /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (succeeded(vectorized))
        rewriter.replaceOp(tiledOp, vectorized->replacements);
    }
    return success();
  }

  /// `op` runs its neighbours in its loops, one kernel: the consumer is
  /// tiled along the product's register tiles (or, with cache blocks, its
  /// blocks of columns: the reduction is blocked inside them), and the
  /// product (whole reduction) and its initialiser are fused into those
  /// loops; the product's tile is then tiled like any product, and the
  /// initialiser's and consumer's tiles vectorized.
  LogicalResult fuseNeighbours(RewriterBase &rewriter, linalg::LinalgOp op,
                               const TilePlan &plan,
                               const ProductNeighbours &neighbours,
                               bool inKernel) {
    MLIRContext *ctx = op.getContext();
    linalg::GenericOp consumer = neighbours.consumer;
    AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
    if (!outMap.isProjectedPermutation())
      return failure();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> opRanges = op.getStaticLoopRanges();
    // Register tiles, or with cache blocks that split the reduction the
    // blocks of columns. Cache blocks that keep the whole reduction (K <=
    // KC) only split the row loop, which the register tiles walk in the
    // same order: the neighbours then run in the register tiles (the fill
    // starts the accumulators instead of zeroing the output for them to
    // load), and only the right-hand side's column block is still packed.
    // The 1024^3 GEMM: the time outside the inner loop fell from 9.8% to
    // 5.8% (perf), and calls alternating with the blocked fill's in one
    // process took 0.964-0.972 of their time (paired medians, 2 x 100).
    bool blocked = llvm::any_of(
        llvm::seq<unsigned>(0, plan.cacheTileSizes.size()), [&](unsigned d) {
          return iterators[d] == utils::IteratorType::reduction &&
                 plan.cacheTileSizes[d] != 0 &&
                 plan.cacheTileSizes[d] < opRanges[d];
        });
    bool packRhs = !plan.cacheTileSizes.empty() && !blocked &&
                   !matchPattern(op.getDpsInputs()[1], m_Constant());
    ArrayRef<int64_t> opSizes = blocked ? plan.cacheTileSizes : plan.tileSizes;
    ArrayRef<int64_t> opOrder =
        blocked ? plan.cacheInterchange : plan.interchange;
    // The tiled root: the consumer (its loops are the output's
    // dimensions), else the product itself (its reduction not tiled).
    Operation *root = consumer ? consumer.getOperation() : op.getOperation();
    auto tileOf = [&](unsigned d) -> int64_t {
      // Blocked: whole rows (the row block is the innermost cache loop).
      if (iterators[d] == utils::IteratorType::reduction ||
          (blocked && d == unsigned(plan.cacheInterchange.back())))
        return 0;
      return opSizes[d];
    };
    SmallVector<int64_t> sizes, interchange;
    if (consumer) {
      for (AffineExpr dim : outMap.getResults())
        sizes.push_back(tileOf(cast<AffineDimExpr>(dim).getPosition()));
      for (int64_t d : opOrder)
        if (std::optional<unsigned> at =
                outMap.getResultPosition(getAffineDimExpr(d, ctx)))
          interchange.push_back(*at);
    } else {
      for (unsigned d = 0; d < iterators.size(); ++d)
        sizes.push_back(tileOf(d));
      interchange.assign(opOrder.begin(), opOrder.end());
    }
    if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
      return failure();
    SmallVector<Location> locs;
    if (neighbours.init)
      locs.push_back(neighbours.init->getLoc());
    locs.push_back(op->getLoc());
    if (consumer)
      locs.push_back(consumer->getLoc());
    Location kernelLoc = FusedLoc::get(ctx, locs);
    Operation *product = op.getOperation(), *init = neighbours.init;
    int64_t work = tessel::cpu::workOf(opRanges);

    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>(sizes)));
    tiling.setInterchange(interchange);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (producer.getOwner() == product ||
              (init && producer.getOwner() == init))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root), options);
    if (failed(fused))
      return failure();
    Value replacement = fused->replacements.lookup(root->getResult(0));
    linalg::LinalgOp productTile;
    for (Operation *tile : fused->tiledAndFusedOps)
      if (auto linalgTile = dyn_cast<linalg::LinalgOp>(tile);
          linalgTile && linalgTile.getNumReductionLoops() > 0)
        productTile = linalgTile;
    if (!replacement || !productTile)
      return failure();
    rewriter.replaceAllUsesWith(root->getResult(0), replacement);
    // The initialiser's tile writes where the consumer's tile will: the
    // consumer's slice of the loop's output (fusion took a slice of the
    // initialiser's own tensor, which bufferization would have to copy
    // when that is the output's tensor too).
    if (consumer && init) {
      auto consumerTile =
          cast<DestinationStyleOpInterface>(fused->tiledAndFusedOps[0]);
      auto target =
          consumerTile.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
      for (Operation *tile : fused->tiledAndFusedOps) {
        auto initTile = dyn_cast<DestinationStyleOpInterface>(tile);
        if (!target || !initTile || tile == consumerTile.getOperation() ||
            tile == productTile.getOperation())
          continue;
        auto slice =
            initTile.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
        // The consumer's slice moves up to the initialiser (its operands,
        // the loop's iteration values, dominate both).
        bool movable = llvm::all_of(target->getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return !def || def->getBlock() != target->getBlock() ||
                 def->isBeforeInBlock(tile);
        });
        if (slice && movable && slice.getType() == target.getType() &&
            slice.getMixedOffsets() == target.getMixedOffsets() &&
            slice.getMixedSizes() == target.getMixedSizes() &&
            slice.getMixedStrides() == target.getMixedStrides() &&
            target->getBlock() == tile->getBlock()) {
          if (!target->isBeforeInBlock(tile))
            rewriter.moveOpBefore(target, tile);
          rewriter.modifyOpInPlace(tile, [&] {
            initTile.getDpsInitsMutable()[0].set(target.getResult());
          });
        }
      }
    }

    // The product's tile, tiled like any product (its own plan: within a
    // register tile, the reduction steps only), inside the fused loops.
    SmallVector<Operation *> others;
    for (Operation *tile : fused->tiledAndFusedOps)
      if (tile != productTile.getOperation())
        others.push_back(tile);
    std::optional<TilePlan> tilePlan =
        planTiles(productTile, std::max<int64_t>(1, vectorWidth), accumulators);
    if (!tilePlan)
      return failure();
    // One copy per column of register tiles, out of the row loop.
    if (packRhs && !fused->loops.empty())
      packRhsBlock(rewriter, productTile, fused->loops.back());
    if (failed(tileProduct(rewriter, productTile, *tilePlan)))
      return failure();
    // One parallel loop: the outermost fused loop, when it has the work.
    if (!fused->loops.empty()) {
      Operation *outer = fused->loops.front().getOperation();
      outer->walk([](scf::ForOp loop) {
        loop->removeAttr(tessel::cpu::kParallelAttr);
      });
      if (std::optional<unsigned> at = firstParallelLoop(
              interchange, sizes,
              cast<linalg::LinalgOp>(root).getStaticLoopRanges(),
              [&](int64_t d) { return consumer || tileOf(d) != 0; });
          at && *at < fused->loops.size())
        tessel::cpu::markParallel(fused->loops[*at].getOperation(), work);
    }
    for (Operation *tile : others) {
      // A block's tiles (whole rows x a block of columns) would be one huge
      // vector: tessel-vectorize-generics tiles them into registers, as
      // part of this kernel.
      if (blocked) {
        tile->setAttr(tessel::cpu::kInKernelAttr, UnitAttr::get(ctx));
        continue;
      }
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile);
      if (succeeded(vectorized))
        rewriter.replaceOp(tile, vectorized->replacements);
    }
    if (!inKernel)
      tessel::cpu::recordKernel(getOperation(), "contraction", kernelLoc);
    // The originals are dead; the canonicalization erases them.
    return success();
  }

  void finishVectorization(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    IRRewriter rewriter(ctx);
    // Reads and writes of tensor slices become transfers of the whole
    // tensor; then the output tile moves out of the reduction loops.
    if (failed(cpu::foldSubsetsAndCanonicalize(func)))
      return signalPassFailure();

    // The output tile is read and written at the same loop-invariant
    // indices in every reduction step: it becomes a vector carried by the
    // loop. Post-order: inner loops first. (A unit reduction tile leaves no
    // vector.contract: it folds to a broadcast multiply and add.)
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      bool vectorized = false;
      loop.walk([&](vector::TransferWriteOp) { vectorized = true; });
      if (vectorized)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      hoistLoopInvariantSubsets(rewriter, loop);

    // The tile's multiply-adds may contract into FMAs (one rounding, as
    // BLAS libraries compute). Vector arithmetic here comes from the
    // products just vectorized and the epilogues fused into them or into
    // convolutions, whose multiply-adds may contract alike.
    func.walk([&](Operation *op) {
      if (!isa<arith::MulFOp, arith::AddFOp>(op) ||
          !isa<VectorType>(op->getResult(0).getType()))
        return;
      auto fmf = cast<arith::ArithFastMathInterface>(op);
      op->setAttr(fmf.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      ctx, fmf.getFastMathFlagsAttr().getValue() |
                               arith::FastMathFlags::contract));
    });
  }
};

} // namespace
