//===- OverlapLastTile.cpp - Whole tiles over extents they do not divide --===//
//
// A tile loop whose tile does not divide its extent (6 rows of a layer's
// 256 filters) ends with a partial tile, of a size known only at run time,
// which no micro-kernel emits. Its register tiles may instead all be whole
// when the last one overlaps the one before it: the loop's tiles then
// start at min(iv, extent - tile) and are static. Only correct where a
// tile never reads what the loop writes (its accumulators start from its
// own fill or bias): the shared elements are then written twice with the
// same values.
//
//===----------------------------------------------------------------------===//

#include "ProductTiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

/// Whether every op in `loop` with a tensor result of a dynamic shape is
/// one that `overlapLastTile` gives a static shape.
static bool onlySlicesAndDestinations(scf::ForOp loop) {
  WalkResult walk = loop.getBody()->walk([](Operation *op) {
    bool dynamicResult = llvm::any_of(op->getResultTypes(), [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && !tensor.hasStaticShape();
    });
    if (!dynamicResult)
      return WalkResult::advance();
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return slice.getSourceType().getRank() == slice.getType().getRank()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (isa<tensor::EmptyOp>(op) || (isa<DestinationStyleOpInterface>(op) &&
                                     !isa<tensor::InsertSliceOp>(op)))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// Whether `min`, an `affine.min` of the clamped offset alone, is `tile`
/// for every offset in [0, last]: its results are affine in the offset, so
/// their minimum is concave and takes its least value at an end.
static bool isTileSize(affine::AffineMinOp min, int64_t last, int64_t tile) {
  auto at = [&](int64_t offset) -> std::optional<int64_t> {
    SmallVector<Attribute> operands = {
        IntegerAttr::get(IndexType::get(min.getContext()), offset)};
    SmallVector<Attribute> results;
    if (failed(min.getAffineMap().constantFold(operands, results)) ||
        results.empty())
      return std::nullopt;
    int64_t least = std::numeric_limits<int64_t>::max();
    for (Attribute result : results) {
      auto value = dyn_cast_or_null<IntegerAttr>(result);
      if (!value)
        return std::nullopt;
      least = std::min(least, value.getInt());
    }
    return least;
  };
  return at(0) == tile && at(last) == tile;
}

/// `values` with the constant ones as attributes.
static SmallVector<OpFoldResult> folded(SmallVector<OpFoldResult> values) {
  (void)foldDynamicIndexList(values);
  return values;
}

LogicalResult mlir::tessel::overlapLastTile(RewriterBase &rewriter,
                                            scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *lower != 0 || *step <= 0 ||
      *upper <= *step || *upper % *step == 0 ||
      !onlySlicesAndDestinations(loop))
    return failure();
  int64_t last = *upper - *step;
  Location loc = loop.getLoc();
  MLIRContext *ctx = loop.getContext();
  OpBuilder::InsertionGuard guard(rewriter);

  // The offset: the induction variable, clamped to the last whole tile.
  Value iv = loop.getInductionVar();
  rewriter.setInsertionPointToStart(loop.getBody());
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  auto offset = affine::AffineMinOp::create(
      rewriter, loc,
      AffineMap::get(1, 0, {d0, getAffineConstantExpr(last, ctx)}, ctx), iv);
  rewriter.replaceAllUsesExcept(iv, offset.getResult(), offset);

  // The sizes the tiling bounded by the extent are the tile's.
  SmallVector<affine::AffineMinOp> sizes;
  loop.getBody()->walk([&](affine::AffineMinOp min) {
    if (min != offset && min->getNumOperands() == 1 &&
        min->getOperand(0) == offset.getResult() &&
        isTileSize(min, last, *step))
      sizes.push_back(min);
  });
  for (affine::AffineMinOp min : sizes) {
    rewriter.setInsertionPoint(min);
    rewriter.replaceOp(
        min,
        arith::ConstantIndexOp::create(rewriter, loc, *step)->getResults());
  }

  // Then every slice and destination takes the static shape its constant
  // sizes give, in order, so that each op meets its operands' new types.
  SmallVector<Operation *> ops;
  loop.getBody()->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      if (slice.getType().hasStaticShape())
        continue;
      auto staticSlice = tensor::ExtractSliceOp::create(
          rewriter, slice.getLoc(), slice.getSource(),
          folded(slice.getMixedOffsets()), folded(slice.getMixedSizes()),
          folded(slice.getMixedStrides()));
      rewriter.replaceAllUsesWith(slice.getResult(), staticSlice.getResult());
      rewriter.eraseOp(slice);
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      if (insert.getSizes().empty())
        continue;
      rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
          insert, insert.getSource(), insert.getDest(),
          folded(insert.getMixedOffsets()), folded(insert.getMixedSizes()),
          folded(insert.getMixedStrides()));
    } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      if (empty.getType().hasStaticShape())
        continue;
      auto staticEmpty = tensor::EmptyOp::create(
          rewriter, empty.getLoc(), folded(empty.getMixedSizes()),
          empty.getType().getElementType());
      rewriter.replaceAllUsesWith(empty.getResult(), staticEmpty.getResult());
      rewriter.eraseOp(empty);
    } else if (auto destination = dyn_cast<DestinationStyleOpInterface>(op)) {
      rewriter.modifyOpInPlace(op, [&] {
        for (OpResult result : op->getResults())
          result.setType(
              destination.getDpsInitOperand(result.getResultNumber())
                  ->get()
                  .getType());
      });
    }
  }
  return success();
}
