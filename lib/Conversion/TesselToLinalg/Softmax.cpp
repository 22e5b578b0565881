//===- Softmax.cpp - softmax to linalg ------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// exp(x - max) / sum(exp(x - max)) along `axis`, as four generics: max,
/// exp, sum, divide. The reductions produce the input shape without `axis`.
struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    if (rank == 0)
      return rewriter.notifyMatchFailure(op, "softmax of a scalar");

    SmallVector<int64_t> reducedShape(type.getShape());
    reducedShape.erase(reducedShape.begin() + axis);
    auto reducedType = RankedTensorType::get(reducedShape, element);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap dropAxis = identity.dropResult(axis);
    SmallVector<utils::IteratorType> reduceIterators(
        rank, utils::IteratorType::parallel);
    reduceIterators[axis] = utils::IteratorType::reduction;
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);

    auto reduce = [&](Value input, TypedAttr initValue, auto combine) {
      Value init = buildFilled(rewriter, loc, reducedType, initValue);
      return linalg::GenericOp::create(
                 rewriter, loc, reducedType, input, init,
                 ArrayRef<AffineMap>{identity, dropAxis}, reduceIterators,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, combine(b, l, args[1], args[0]));
                 })
          .getResult(0);
    };
    // Applies `body(x, r)` with `r` the reduced value broadcast along axis.
    auto broadcastApply = [&](Value input, Value reduced, auto body) {
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, type.getShape(), element);
      return linalg::GenericOp::create(
                 rewriter, loc, type, ValueRange{input, reduced}, empty,
                 ArrayRef<AffineMap>{identity, dropAxis, identity}, parallel,
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, body(b, l, args[0], args[1]));
                 })
          .getResult(0);
    };

    Value max = reduce(op.getInput(), getLowestAttr(element),
                       [](OpBuilder &b, Location l, Value acc, Value x) {
                         return arith::MaximumFOp::create(b, l, acc, x)
                             .getResult();
                       });
    Value exps = broadcastApply(
        op.getInput(), max, [](OpBuilder &b, Location l, Value x, Value m) {
          Value shifted = arith::SubFOp::create(b, l, x, m);
          return math::ExpOp::create(b, l, shifted).getResult();
        });
    Value sums = reduce(exps, rewriter.getZeroAttr(element),
                        [](OpBuilder &b, Location l, Value acc, Value x) {
                          return arith::AddFOp::create(b, l, acc, x).getResult();
                        });
    rewriter.replaceOp(op, broadcastApply(exps, sums,
                                          [](OpBuilder &b, Location l, Value e,
                                             Value s) {
                                            return arith::DivFOp::create(b, l,
                                                                         e, s)
                                                .getResult();
                                          }));
    return success();
  }
};

} // namespace

void mlir::tessel::populateSoftmaxToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering>(patterns.getContext());
}
