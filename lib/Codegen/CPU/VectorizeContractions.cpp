//===- VectorizeContractions.cpp - Register-tiled f32 contractions --------===//
//
// Tiles every static f32 contraction into register-sized output tiles and
// vectorizes each tile into a `vector.contract` whose accumulator is carried
// in registers across the reduction loop. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"

#include "KernelMarks.h"

#include "TileSizes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONTRACTIONSPASS
#include "tessel/Conversion/Passes.h.inc"
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
  /// KC x NR strip of the right-hand side stays in L1 while the MC x KC
  /// block of the left-hand side stays in L2.
  SmallVector<int64_t> cacheTileSizes;
  SmallVector<int64_t> cacheInterchange;
};

/// Cache block sizes (elements): MC rows, NC columns, KC reduction steps.
constexpr int64_t kRowBlock = 96, kColumnBlock = 256, kReductionBlock = 256;

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
  int64_t nTile = pickDivisor(ranges[*nDim], {3 * lanes, 2 * lanes, lanes},
                           3 * lanes);
  plan.tileSizes[*nDim] = nTile;
  int64_t vectorsPerRow = (nTile + lanes - 1) / lanes;
  int64_t maxRows = std::max<int64_t>(1, accumulators / vectorsPerRow);
  if (mDim)
    plan.tileSizes[*mDim] =
        pickDivisor(ranges[*mDim], {std::min<int64_t>(maxRows, 6), 4}, maxRows);

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
  // exist and some block is smaller than its loop.
  if (mDim && dims->k.size() == 1) {
    unsigned kDim = dims->k.front();
    int64_t rowBlock = pickBlock(ranges[*mDim], plan.tileSizes[*mDim], kRowBlock);
    int64_t columnBlock = pickBlock(ranges[*nDim], nTile, kColumnBlock);
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

struct VectorizeContractionsPass
    : tessel::impl::TesselVectorizeContractionsPassBase<VectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    int64_t lanes = std::max<int64_t>(1, vectorWidth);

    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
    bool changed = false;
    for (linalg::LinalgOp op : candidates) {
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
      Operation *target = op.getOperation();
      Location kernelLoc = target->getLoc();
      if (!plan->cacheTileSizes.empty()) {
        scf::SCFTilingOptions blocks;
        blocks.setTileSizes(getAsIndexOpFoldResult(
            ctx, ArrayRef<int64_t>(plan->cacheTileSizes)));
        blocks.setInterchange(plan->cacheInterchange);
        rewriter.setInsertionPoint(target);
        FailureOr<scf::SCFTilingResult> blocked = scf::tileUsingSCF(
            rewriter, cast<TilingInterface>(target), blocks);
        if (failed(blocked) || blocked->tiledOps.size() != 1)
          continue;
        rewriter.replaceOp(target, blocked->replacements);
        target = blocked->tiledOps.front();
        changed = true;
      }
      scf::SCFTilingOptions options;
      options.setTileSizes(
          getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>(plan->tileSizes)));
      options.setInterchange(plan->interchange);
      rewriter.setInsertionPoint(target);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(target), options);
      if (failed(tiled))
        continue;
      rewriter.replaceOp(target, tiled->replacements);
      changed = true;
      // The report counts the loop nest as one kernel (its structured op
      // is vectorized away below).
      tessel::cpu::recordKernel(func, "contraction", kernelLoc);
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
    }
    if (!changed)
      return;

    // Reads and writes of tensor slices become transfers of the whole
    // tensor; then the output tile moves out of the reduction loops.
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
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
    // BLAS libraries compute): vector arithmetic here comes only from the
    // products just vectorized.
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
