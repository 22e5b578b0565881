//===- FuseProductEpilogue.cpp - Products absorbing their neighbours ------===//
//
// A product's register tiles run its neighbours: the fill or broadcast that
// initialises its output, and the elementwise op that consumes its result
// (a bias add, an activation, a residual add, a scale). The bias, the
// product and the activation are one kernel.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"
#include "tessel/Codegen/KernelGroup.h"
#include "tessel/Support/Remarks.h"

#include "KernelMarks.h"
#include "VectorTypes.h"
#include "ParallelMarks.h"
#include "ProductTiling.h"
#include "TileSizes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel;

/// Whether `op`'s body is arith/math on its arguments and the yield.
static bool isComputeOnly(linalg::LinalgOp op) {
  for (Operation &nested : op.getBlock()->getOperations()) {
    if (isa<linalg::YieldOp>(nested))
      continue;
    if (nested.getNumRegions() != 0 || !nested.getDialect() ||
        !isa<arith::ArithDialect, math::MathDialect>(nested.getDialect()))
      return false;
  }
  return true;
}

/// Whether the register tiles can run `epilogue`: an arith/math body on
/// values the vectorizers vectorize (f32; an integer product's i32
/// accumulator, requantized to i8).
static bool canRunEpilogue(linalg::GenericOp epilogue) {
  return epilogue && isComputeOnly(epilogue) && cpu::hasVectorTypes(epilogue);
}

/// Whether the register tiles can start from `prologue`: a fill, or a
/// generic with an arith/math body.
static bool canRunPrologue(linalg::LinalgOp prologue) {
  return prologue && (isa<linalg::FillOp>(prologue) ||
                      (isa<linalg::GenericOp>(prologue) &&
                       isComputeOnly(prologue)));
}

bool mlir::tessel::readsItsOutput(linalg::LinalgOp op) {
  return op && llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.payloadUsesValueFromOperand(&init);
         });
}

void mlir::tessel::absorbUnitExpand(RewriterBase &rewriter,
                                    linalg::LinalgOp op) {
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
  if (linalg::GenericOp epilogue = getKernelEpilogue(op, expand.getResult());
      canRunEpilogue(epilogue))
    dropNeighbourUnitLoops(rewriter, epilogue);
}

KernelGroup mlir::tessel::getProductKernel(linalg::LinalgOp op) {
  KernelGroup kernel = getKernelGroup(op);
  if (!canRunEpilogue(kernel.epilogue))
    kernel.epilogue = nullptr;
  if (!canRunPrologue(kernel.prologue))
    kernel.prologue = nullptr;
  return kernel;
}

// The consumer is tiled along the product's register tiles (or, with cache
// blocks, its blocks of columns: the reduction is blocked inside them), and
// the product (whole reduction) and its initialiser are fused into those
// loops; the product's tile is then tiled like any product, and the
// initialiser's and consumer's tiles vectorized.
LogicalResult mlir::tessel::fuseProductNeighbours(
    RewriterBase &rewriter, linalg::LinalgOp op, const ProductLoopTiles &plan,
    const KernelGroup &kernel, const ProductTilingOptions &options,
    bool inKernel) {
  MLIRContext *ctx = op.getContext();
  auto func = op->getParentOfType<func::FuncOp>();
  linalg::GenericOp consumer = kernel.epilogue;
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
  // Measurements: bench/notes/vectorize-contractions.md.
  bool blocked = llvm::any_of(
      llvm::seq<unsigned>(0, plan.cacheTileSizes.size()), [&](unsigned d) {
        return iterators[d] == utils::IteratorType::reduction &&
               plan.cacheTileSizes[d] != 0 &&
               plan.cacheTileSizes[d] < opRanges[d];
      });
  bool packRhs = !blocked && shouldPackRhsBlocks(op, plan);
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
  if (kernel.prologue)
    locs.push_back(kernel.prologue->getLoc());
  locs.push_back(op->getLoc());
  if (consumer)
    locs.push_back(consumer->getLoc());
  Location kernelLoc = FusedLoc::get(ctx, locs);
  Operation *product = op.getOperation(), *init = kernel.prologue;
  int64_t work = tessel::cpu::workOf(opRanges);

  // Tiles that do not divide their loop need tiles that only write.
  SmallVector<int64_t> rootRanges =
      cast<linalg::LinalgOp>(root).getStaticLoopRanges();
  bool overlapping = llvm::any_of(interchange, [&](int64_t d) {
    return sizes[d] != 0 && rootRanges[d] % sizes[d] != 0;
  });
  if (overlapping && (!init || blocked || readsItsOutput(kernel.prologue) ||
                      readsItsOutput(consumer)))
    return failure();
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tessel::tileWithProduct(rewriter, root, sizes, interchange, product,
                              init);
  if (failed(fused))
    return failure();
  // A tile that does not divide its loop (the plan's overlapping rows)
  // overlaps the one before it: the tiles start from the initialiser and
  // only write the output. (The loops are the interchange's tiled ones.)
  if (overlapping) {
    unsigned at = 0;
    for (int64_t d : interchange) {
      if (sizes[d] == 0)
        continue;
      auto loop = dyn_cast<scf::ForOp>(fused->loops[at++].getOperation());
      if (loop && rootRanges[d] % sizes[d] != 0)
        (void)overlapLastTile(rewriter, loop);
    }
  }
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
  std::optional<ProductLoopTiles> tilePlan =
      planProductLoopTiles(productTile, options);
  if (!tilePlan)
    return failure();
  // One copy per column of register tiles, out of the row loop.
  if (packRhs && !fused->loops.empty())
    packRhsBlock(rewriter, productTile, fused->loops.back());
  if (failed(tileProduct(rewriter, productTile, *tilePlan)))
    return failure();
  // One parallel loop: the outermost fused loop that runs more than once,
  // when it has the work; where every fused loop runs once, the product
  // tile's own (a row-block loop inside blocks of the reduction).
  if (!fused->loops.empty()) {
    if (std::optional<unsigned> at = firstParallelLoop(
            interchange, sizes,
            cast<linalg::LinalgOp>(root).getStaticLoopRanges(),
            [&](int64_t d) { return consumer || tileOf(d) != 0; });
        at && *at < fused->loops.size()) {
      fused->loops.front()->walk([](scf::ForOp loop) {
        loop->removeAttr(tessel::cpu::kParallelAttr);
      });
      tessel::cpu::markParallel(fused->loops[*at].getOperation(), work);
    }
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
    tessel::reportKernel(func, "contraction", kernelLoc);
  // The originals are dead; the canonicalization erases them.
  return success();
}

FailureOr<scf::SCFTileAndFuseResult>
mlir::tessel::tileWithProduct(RewriterBase &rewriter, Operation *root,
                              ArrayRef<int64_t> sizes,
                              ArrayRef<int64_t> interchange,
                              Operation *product, Operation *init) {
  auto tileable = dyn_cast<TilingInterface>(root);
  if (!tileable)
    return failure();
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(root->getContext(), sizes));
  if (!interchange.empty())
    tiling.setInterchange(interchange);
  scf::SCFTileAndFuseOptions fuseOptions;
  fuseOptions.setTilingOptions(tiling);
  fuseOptions.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner() == product ||
            (init && producer.getOwner() == init))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(root);
  return scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tileable,
                                                   fuseOptions);
}
