//===- Reduction.cpp - reduce_* and arg_max/arg_min to linalg -------------===//
//
// Each reduction is one linalg.generic over the input with the reduced axes
// as reduction iterators, folding a per-element map (|x|, x * x, ...) into
// the accumulator, then an optional elementwise map of the result (divide by
// the count, sqrt, log). The result has the reduced axes dropped; keepdims
// expands them back as extent 1.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The inputs of one reduction's lowering.
struct ReductionInput {
  Value input;
  ArrayRef<int64_t> axes;
  /// How many elements each result element reduces.
  int64_t count;
  /// The type sums and products accumulate in: the input's, or f32 for
  /// f16 and bf16 (each element extended as it is read).
  Type accumulator;
};

/// `args` extended to `accumulator` where they are narrower floats.
SmallVector<Value> widened(OpBuilder &b, Location l, ValueRange args,
                           Type accumulator) {
  SmallVector<Value> result;
  for (Value v : args)
    result.push_back(v.getType() != accumulator && isa<FloatType>(v.getType())
                         ? arith::ExtFOp::create(b, l, accumulator, v)
                         : v);
  return result;
}

Value sumOf(OpBuilder &b, Location loc, const ReductionInput &in,
            BodyBuilder pre) {
  return buildReduction(
      b, loc, in.input, in.axes, b.getZeroAttr(in.accumulator),
      [&](OpBuilder &nb, Location l, ValueRange args, Value acc) {
        return createAdd(nb, l,
                         pre(nb, l, widened(nb, l, args, in.accumulator)),
                         acc);
      });
}

/// Applies `body` to each element of `value`.
Value mapEach(OpBuilder &b, Location loc, ValueRange values, BodyBuilder body) {
  return buildElementwise(b, loc, cast<RankedTensorType>(values[0].getType()),
                          values, body);
}

Value identity(OpBuilder &, Location, ValueRange args) { return args[0]; }

Value lower(ReduceSumOp, OpBuilder &b, Location loc, const ReductionInput &in) {
  return sumOf(b, loc, in, identity);
}

Value lower(ReduceMeanOp, OpBuilder &b, Location loc,
            const ReductionInput &in) {
  Value sum = sumOf(b, loc, in, identity);
  return mapEach(b, loc, sum, [&](OpBuilder &nb, Location l, ValueRange a) {
    Type element = a[0].getType();
    if (isa<FloatType>(element)) {
      Value n = arith::ConstantOp::create(
          nb, l, nb.getFloatAttr(element, static_cast<double>(in.count)));
      return arith::DivFOp::create(nb, l, a[0], n).getResult();
    }
    Value n = arith::ConstantOp::create(
        nb, l, nb.getIntegerAttr(element, std::max<int64_t>(in.count, 1)));
    return arith::DivSIOp::create(nb, l, a[0], n).getResult();
  });
}

Value lower(ReduceMaxOp, OpBuilder &b, Location loc, const ReductionInput &in) {
  Type element = cast<RankedTensorType>(in.input.getType()).getElementType();
  return buildReduction(
      b, loc, in.input, in.axes, getExtremeAttr(element, /*lowest=*/true),
      [](OpBuilder &nb, Location l, ValueRange args, Value acc) {
        return createMax(nb, l, args[0], acc);
      });
}

Value lower(ReduceMinOp, OpBuilder &b, Location loc, const ReductionInput &in) {
  Type element = cast<RankedTensorType>(in.input.getType()).getElementType();
  return buildReduction(
      b, loc, in.input, in.axes, getExtremeAttr(element, /*lowest=*/false),
      [](OpBuilder &nb, Location l, ValueRange args, Value acc) {
        return createMin(nb, l, args[0], acc);
      });
}

Value lower(ReduceProdOp, OpBuilder &b, Location loc,
            const ReductionInput &in) {
  return buildReduction(
      b, loc, in.input, in.axes, b.getOneAttr(in.accumulator),
      [&](OpBuilder &nb, Location l, ValueRange args, Value acc) {
        return createMul(nb, l, widened(nb, l, args, in.accumulator)[0], acc);
      });
}

Value absolute(OpBuilder &b, Location l, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return math::AbsFOp::create(b, l, args[0]);
  return math::AbsIOp::create(b, l, args[0]);
}

Value square(OpBuilder &b, Location l, ValueRange args) {
  return createMul(b, l, args[0], args[0]);
}

Value lower(ReduceL1Op, OpBuilder &b, Location loc, const ReductionInput &in) {
  return sumOf(b, loc, in, absolute);
}

Value lower(ReduceSumSquareOp, OpBuilder &b, Location loc,
            const ReductionInput &in) {
  return sumOf(b, loc, in, square);
}

Value lower(ReduceL2Op, OpBuilder &b, Location loc, const ReductionInput &in) {
  return mapEach(b, loc, sumOf(b, loc, in, square),
                 [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return math::SqrtOp::create(nb, l, a[0]);
                 });
}

Value lower(ReduceLogSumOp, OpBuilder &b, Location loc,
            const ReductionInput &in) {
  return mapEach(b, loc, sumOf(b, loc, in, identity),
                 [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return math::LogOp::create(nb, l, a[0]);
                 });
}

/// m + log(sum(exp(x - m))) with m = max(x); m is replaced by 0 where it is
/// infinite, so that all -inf inputs give -inf rather than NaN.
Value lower(ReduceLogSumExpOp, OpBuilder &b, Location loc,
            const ReductionInput &in) {
  Value max = lower(ReduceMaxOp(), b, loc, in);
  Value shift = mapEach(
      b, loc, max, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value inf = arith::ConstantOp::create(
            nb, l, getExtremeAttr(a[0].getType(), false));
        Value zero =
            arith::ConstantOp::create(nb, l, nb.getZeroAttr(a[0].getType()));
        Value magnitude = math::AbsFOp::create(nb, l, a[0]);
        Value infinite = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                               magnitude, inf);
        return arith::SelectOp::create(nb, l, infinite, zero, a[0]);
      });
  Value sum = buildReduction(
      b, loc, ValueRange{in.input, shift}, in.axes,
      b.getZeroAttr(in.accumulator),
      [&](OpBuilder &nb, Location l, ValueRange args, Value acc) -> Value {
        SmallVector<Value> x = widened(nb, l, args, in.accumulator);
        Value shifted = arith::SubFOp::create(nb, l, x[0], x[1]);
        Value e = math::ExpOp::create(nb, l, shifted);
        return arith::AddFOp::create(nb, l, e, acc);
      });
  return mapEach(b, loc, ValueRange{sum, shift},
                 [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   Value log = math::LogOp::create(nb, l, a[0]);
                   return arith::AddFOp::create(
                       nb, l, log, widened(nb, l, a[1], in.accumulator)[0]);
                 });
}

template <typename OpTy> struct ReductionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    ArrayRef<int64_t> axes = op.getAxes();
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= inputType.getDimSize(axis);
    // f16 and bf16 sum (and multiply) in f32, each element extended as it
    // is read and the result rounded once, as their products do: a 16-bit
    // running sum loses the small terms once it is large (2048 + 1 is 2048
    // in f16). Max and min are exact either way.
    Location loc = op.getLoc();
    Type element = inputType.getElementType();
    bool widen = sumsInF32(element) &&
                 !isa<ReduceMaxOp, ReduceMinOp>(op.getOperation());
    Type accumulator = widen ? rewriter.getF32Type() : element;
    Value reduced =
        lower(op, rewriter, loc, {op.getInput(), axes, count, accumulator});
    if (widen)
      reduced = buildElementwise(
          rewriter, loc,
          cast<RankedTensorType>(reduced.getType()).clone(element), reduced,
          [element](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::TruncFOp::create(b, l, element, args[0]);
          });
    auto resultType = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(
        op, expandReducedDims(rewriter, loc, reduced, resultType, axes));
    return success();
  }
};

template <typename OpTy, bool Max>
struct ArgReductionLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    int64_t axis = op.getAxis();
    Value indices = buildArgReduction(rewriter, op.getLoc(), op.getInput(),
                                      axis, Max, op.getSelectLastIndex());
    rewriter.replaceOp(
        op, expandReducedDims(rewriter, op.getLoc(), indices,
                              cast<RankedTensorType>(op.getType()), {axis}));
    return success();
  }
};

} // namespace

void mlir::tessel::populateReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<ReduceSumOp>, ReductionLowering<ReduceMeanOp>,
               ReductionLowering<ReduceMaxOp>, ReductionLowering<ReduceMinOp>,
               ReductionLowering<ReduceProdOp>, ReductionLowering<ReduceL1Op>,
               ReductionLowering<ReduceL2Op>, ReductionLowering<ReduceLogSumOp>,
               ReductionLowering<ReduceLogSumExpOp>,
               ReductionLowering<ReduceSumSquareOp>,
               ArgReductionLowering<ArgMaxOp, true>,
               ArgReductionLowering<ArgMinOp, false>>(patterns.getContext());
}
