//===- TileProduct.cpp - Cache blocks and register tiles of a product -----===//
//
// A product is tiled into cache blocks (when it has them) and register
// tiles, and each register tile vectorized into a `vector.contract`. The
// first loop with independent iterations is marked parallel, and a
// right-hand side computed at run time has each block copied contiguously.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "KernelMarks.h"
#include "ParallelMarks.h"
#include "ProductTiling.h"
#include "TileSizes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;
using namespace mlir::tessel;

/// Marks the first loop of `tiling` that runs more than once when every
/// loop up to it is over a row, column or batch dimension of `op` (their
/// iterations write disjoint tiles of the output). With `insideReduction`,
/// loops over blocks of the reduction may come first: they run in sequence
/// around the marked loop, whose iterations each add their block into
/// their own tiles (the cache blocks of a product whose reduction they
/// split: ConvNeXt's [196, 1536] x [1536, 384] ran on one thread).
static void markParallelLoop(scf::SCFTilingResult &tiling,
                             ArrayRef<int64_t> interchange,
                             ArrayRef<int64_t> tileSizes, linalg::LinalgOp op,
                             bool insideReduction = false) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> at = firstParallelLoop(
      interchange, tileSizes, ranges,
      [&](int64_t d) { return iterators[d] == utils::IteratorType::parallel; },
      /*pastSequential=*/insideReduction);
  if (at && *at < tiling.loops.size())
    tessel::cpu::markParallel(tiling.loops[*at].getOperation(),
                              tessel::cpu::workOf(ranges));
}

/// Whether `tiling` marked one of its loops parallel.
static bool isMarked(scf::SCFTilingResult &tiling) {
  return llvm::any_of(tiling.loops, [](LoopLikeOpInterface loop) {
    return loop->hasAttr(tessel::cpu::kParallelAttr);
  });
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
void mlir::tessel::packRhsBlock(RewriterBase &rewriter, linalg::LinalgOp op,
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

bool mlir::tessel::shouldPackRhsBlocks(linalg::LinalgOp op,
                                       const ProductLoopTiles &plan) {
  if (plan.cacheTileSizes.empty())
    return false;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant()))
    return true;
  // The row blocks: the innermost block loop.
  int64_t rowDim = plan.cacheInterchange.back();
  int64_t rows = op.getStaticLoopRanges()[rowDim];
  int64_t block = plan.cacheTileSizes[rowDim];
  return block != 0 && rows > block;
}

LogicalResult mlir::tessel::tileProduct(RewriterBase &rewriter,
                                        linalg::LinalgOp op,
                                        const ProductLoopTiles &plan) {
  MLIRContext *ctx = op.getContext();
  Operation *target = op.getOperation();
  bool parallelMarked = false;
  // (Decided now: blocking replaces `op`.)
  bool packRhs = shouldPackRhsBlocks(op, plan);
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
    markParallelLoop(*blocked, plan.cacheInterchange, plan.cacheTileSizes, op,
                     /*insideReduction=*/true);
    parallelMarked = isMarked(*blocked);
    rewriter.replaceOp(target, blocked->replacements);
    target = blocked->tiledOps.front();
    if (packRhs)
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
  // Each register tile runs on the plan's micro-kernel (a tile it cannot
  // emit stays a structured op, lowered to loops).
  for (Operation *tiledOp : tiled->tiledOps)
    if (auto tile = dyn_cast<linalg::LinalgOp>(tiledOp))
      (void)plan.microKernel->emitProductTile(rewriter, tile);
  return success();
}
