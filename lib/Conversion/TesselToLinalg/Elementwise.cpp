//===- Elementwise.cpp - Elementwise tessel ops to linalg.generic ---------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Lowers a unary op with `body(builder, loc, x)`.
template <typename OpTy> struct UnaryLowering : OpRewritePattern<OpTy> {
  using Fn = Value (*)(OpBuilder &, Location, OpTy, Value);
  UnaryLowering(MLIRContext *ctx, Fn fn)
      : OpRewritePattern<OpTy>(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, op->getOperands(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return fn(b, loc, op, args[0]);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
  Fn fn;
};

/// Lowers a broadcasting binary op with a float, a signed and an unsigned
/// integer body.
template <typename OpTy, typename FloatOp, typename IntOp,
          typename UIntOp = IntOp>
struct BinaryLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    bool isUnsigned = isUnsignedInteger(element);
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (isa<FloatType>(element))
            return FloatOp::create(b, loc, args[0], args[1]);
          if (isUnsigned)
            return UIntOp::create(b, loc, args[0], args[1]);
          return IntOp::create(b, loc, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value zeroLike(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

Value buildRelu(OpBuilder &b, Location loc, ReluOp op, Value x) {
  Value zero = zeroLike(b, loc, x.getType());
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, zero);
  if (isUnsignedInteger(op.getType()))
    return x;
  return arith::MaxSIOp::create(b, loc, x, zero);
}

Value buildSigmoid(OpBuilder &b, Location loc, SigmoidOp, Value x) {
  Type t = x.getType();
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 1.0));
  Value negated = arith::NegFOp::create(b, loc, x);
  Value e = math::ExpOp::create(b, loc, negated);
  Value denominator = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, denominator);
}

Value buildTanh(OpBuilder &b, Location loc, TanhOp, Value x) {
  return math::TanhOp::create(b, loc, x);
}

Value buildClip(OpBuilder &b, Location loc, ClipOp op, Value x) {
  Type t = x.getType();
  if (std::optional<APFloat> low = op.getMin()) {
    Value bound = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(t, low->convertToDouble()));
    x = arith::MaximumFOp::create(b, loc, x, bound);
  }
  if (std::optional<APFloat> high = op.getMax()) {
    Value bound = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(t, high->convertToDouble()));
    x = arith::MinimumFOp::create(b, loc, x, bound);
  }
  return x;
}

} // namespace

void mlir::tessel::populateElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UnaryLowering<ReluOp>>(ctx, buildRelu);
  patterns.add<UnaryLowering<SigmoidOp>>(ctx, buildSigmoid);
  patterns.add<UnaryLowering<TanhOp>>(ctx, buildTanh);
  patterns.add<UnaryLowering<ClipOp>>(ctx, buildClip);
  patterns.add<
      BinaryLowering<AddOp, arith::AddFOp, arith::AddIOp>,
      BinaryLowering<SubOp, arith::SubFOp, arith::SubIOp>,
      BinaryLowering<MulOp, arith::MulFOp, arith::MulIOp>,
      BinaryLowering<DivOp, arith::DivFOp, arith::DivSIOp, arith::DivUIOp>>(
      ctx);
}
