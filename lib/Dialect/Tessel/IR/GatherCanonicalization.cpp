//===- GatherCanonicalization.cpp - Gather before elementwise ops ---------===//
//
// gather(f(x, s...), i) -> f(gather(x, i), s...) for an elementwise f whose
// other operands are single values: the op then runs on the gathered
// elements only (a QDQ model's dequantized embedding table: the rows of one
// run, not the whole table every run).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

struct GatherBeforeElementwise : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp gather,
                                PatternRewriter &rewriter) const override {
    Operation *producer = gather.getInput().getDefiningOp();
    if (!producer || !producer->hasTrait<ElementwiseTrait>() ||
        producer->getNumResults() != 1 || producer->getNumRegions() != 0 ||
        !producer->hasOneUse())
      return failure();
    auto input = cast<RankedTensorType>(gather.getInput().getType());
    auto result = cast<RankedTensorType>(gather.getType());
    // Not when the gather repeats elements: the op would run on more.
    if (!input.hasStaticShape() || !result.hasStaticShape() ||
        result.getNumElements() > input.getNumElements())
      return failure();
    // Operands of the input's shape are gathered; every other one must be
    // a single value (it broadcasts the same to any shape).
    bool gathersOne = false;
    for (Value operand : producer->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type || !type.hasStaticShape())
        return failure();
      if (type.getShape() == input.getShape())
        gathersOne = true;
      else if (type.getNumElements() != 1)
        return failure();
    }
    if (!gathersOne)
      return failure();

    SmallVector<Value> operands;
    for (Value operand : producer->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (type.getShape() != input.getShape()) {
        operands.push_back(operand);
        continue;
      }
      operands.push_back(GatherOp::create(
          rewriter, gather.getLoc(), result.clone(type.getElementType()),
          operand, gather.getIndices(), gather.getAxisAttr()));
    }
    OperationState state(producer->getLoc(), producer->getName().getStringRef(),
                         operands, TypeRange{result},
                         producer->getAttrs());
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(gather, moved->getResults());
    return success();
  }
};

} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<GatherBeforeElementwise>(context);
}
