//===- Softmax.cpp - softmax, log_softmax and hardmax to linalg -----------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// exp(x - max) / sum(exp(x - max)) along `axis`, as four generics: max,
/// exp, sum, divide. The reductions produce the input shape without `axis`;
/// the exponentials are materialised once rather than recomputed.
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

    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap dropAxis = identity.dropResult(axis);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);

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

    Value max = buildReduction(
        rewriter, loc, op.getInput(), {axis}, getLowestAttr(element),
        [](OpBuilder &b, Location l, ValueRange args, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, acc, args[0]);
        });
    Value exps = broadcastApply(
        op.getInput(), max, [](OpBuilder &b, Location l, Value x, Value m) {
          Value shifted = arith::SubFOp::create(b, l, x, m);
          return math::ExpOp::create(b, l, shifted).getResult();
        });
    Value sums = buildReduction(
        rewriter, loc, exps, {axis}, rewriter.getZeroAttr(element),
        [](OpBuilder &b, Location l, ValueRange args, Value acc) -> Value {
          return arith::AddFOp::create(b, l, acc, args[0]);
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

/// x - max - log(sum(exp(x - max))) along `axis`: a max reduction, a sum
/// reduction reading the max broadcast, and one elementwise generic reading
/// both broadcast along the axis.
struct LogSoftmaxLowering : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t axis = op.getAxis();
    Value x = op.getInput();
    Value max = buildReduction(
        rewriter, loc, x, {axis}, getLowestAttr(element),
        [](OpBuilder &b, Location l, ValueRange args, Value acc) -> Value {
          return arith::MaximumFOp::create(b, l, args[0], acc);
        });
    Value sum = buildReduction(
        rewriter, loc, ValueRange{x, max}, {axis},
        rewriter.getZeroAttr(element),
        [](OpBuilder &b, Location l, ValueRange args, Value acc) -> Value {
          Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
          Value e = math::ExpOp::create(b, l, shifted);
          return arith::AddFOp::create(b, l, e, acc);
        });
    SmallVector<int64_t> keptShape(type.getShape());
    keptShape[axis] = 1;
    auto keptType = RankedTensorType::get(keptShape, element);
    Value keptMax = expandReducedDims(rewriter, loc, max, keptType, {axis});
    Value keptSum = expandReducedDims(rewriter, loc, sum, keptType, {axis});
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type, ValueRange{x, keptMax, keptSum},
                [](OpBuilder &b, Location l, ValueRange args) -> Value {
                  Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
                  Value log = math::LogOp::create(b, l, args[2]);
                  return arith::SubFOp::create(b, l, shifted, log);
                }));
    return success();
  }
};

/// An arg-max along `axis` (first maximum), then 1 where the index along
/// `axis` equals it and 0 elsewhere.
struct HardmaxLowering : OpRewritePattern<HardmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(HardmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t axis = op.getAxis();
    Value indices = buildArgReduction(rewriter, loc, op.getInput(), axis,
                                      /*max=*/true, /*selectLast=*/false);
    SmallVector<int64_t> keptShape(type.getShape());
    keptShape[axis] = 1;
    Value kept = expandReducedDims(
        rewriter, loc, indices,
        RankedTensorType::get(keptShape, rewriter.getI64Type()), {axis});
    rewriter.replaceOp(
        op,
        buildElementwise(
            rewriter, loc, type, kept,
            [&](OpBuilder &b, Location l, ValueRange args) -> Value {
              Value index = arith::IndexCastOp::create(
                  b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
              Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                index, args[0]);
              Value one =
                  arith::ConstantOp::create(b, l, b.getFloatAttr(element, 1.0));
              Value zero =
                  arith::ConstantOp::create(b, l, b.getFloatAttr(element, 0.0));
              return arith::SelectOp::create(b, l, hit, one, zero);
            }));
    return success();
  }
};

} // namespace

void mlir::tessel::populateSoftmaxToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering, LogSoftmaxLowering, HardmaxLowering>(
      patterns.getContext());
}
