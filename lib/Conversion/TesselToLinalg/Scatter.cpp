//===- Scatter.cpp - scatter_elements and scatter_nd to loops --------------===//
//
// A scatter writes each update to a computed position, so it is not a
// linalg op over the result. It lowers to an scf.for nest over the updates
// carrying the result tensor: each iteration reads the index (normalised and
// clamped like the gathers'), combines the update with the element there if
// the reduction asks, and inserts it. Bufferization turns the carried tensor
// into one buffer written in place (a copy of the input first).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Combines the update `update` with the element `old` it lands on.
Value combine(OpBuilder &b, Location loc, ScatterReduction reduction,
              Value old, Value update) {
  switch (reduction) {
  case ScatterReduction::Add:
    return createAdd(b, loc, old, update);
  case ScatterReduction::Mul:
    return createMul(b, loc, old, update);
  case ScatterReduction::Max:
    return createMax(b, loc, old, update);
  case ScatterReduction::Min:
    return createMin(b, loc, old, update);
  case ScatterReduction::None:
    break;
  }
  return update;
}

/// Builds the loop nest over `updates`; `position(b, loc, ivs)` gives the
/// result coordinates that the update at `ivs` goes to.
Value buildScatter(
    OpBuilder &b, Location loc, Value input, Value updates,
    ScatterReduction reduction,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        position) {
  auto updatesType = cast<RankedTensorType>(updates.getType());
  if (updatesType.getNumElements() == 0)
    return input;
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t extent : updatesType.getShape()) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, extent));
    steps.push_back(one);
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, input,
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange carried) -> scf::ValueVector {
        SmallVector<Value> at = position(nb, l, ivs);
        Value update = tensor::ExtractOp::create(nb, l, updates, ivs);
        if (reduction != ScatterReduction::None) {
          Value old = tensor::ExtractOp::create(nb, l, carried[0], at);
          update = combine(nb, l, reduction, old, update);
        }
        return {tensor::InsertOp::create(nb, l, update, carried[0], at)};
      });
  return nest.results.front();
}

struct ScatterElementsLowering : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterElementsOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    Value indices = op.getIndices();
    Value result = buildScatter(
        rewriter, op.getLoc(), op.getInput(), op.getUpdates(),
        op.getReduction(), [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at(ivs);
          Value raw = tensor::ExtractOp::create(b, l, indices, ivs);
          at[axis] = normalizeIndex(b, l, raw, type.getDimSize(axis));
          return at;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterNDLowering : OpRewritePattern<ScatterNDOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScatterNDOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t tuples = indicesType.getRank() - 1;
    int64_t m = indicesType.getShape().back();
    Value indices = op.getIndices();
    Value result = buildScatter(
        rewriter, op.getLoc(), op.getInput(), op.getUpdates(),
        op.getReduction(), [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at;
          SmallVector<Value> tuple(ivs.take_front(tuples));
          tuple.push_back(Value());
          for (int64_t j = 0; j < m; ++j) {
            tuple.back() = arith::ConstantIndexOp::create(b, l, j);
            Value raw = tensor::ExtractOp::create(b, l, indices, tuple);
            at.push_back(normalizeIndex(b, l, raw, type.getDimSize(j)));
          }
          llvm::append_range(at, ivs.drop_front(tuples));
          return at;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tessel::populateScatterToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScatterElementsLowering, ScatterNDLowering>(
      patterns.getContext());
}
