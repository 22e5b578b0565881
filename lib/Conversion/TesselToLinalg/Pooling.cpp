//===- Pooling.cpp - Pooling ops to linalg --------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Geometry of a window op over [N, C, D1, ..., Dk] (or, `channelsLast`,
/// [N, D1, D2, C]).
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
  bool channelsLast = false;

  template <typename OpTy>
  static Window of(OpTy op) {
    return {SmallVector<int64_t>(op.getKernel()),
            SmallVector<int64_t>(op.getStrides()),
            SmallVector<int64_t>(op.getPads()),
            SmallVector<int64_t>(op.getDilations()),
            op.getLayout() == Layout::NHWC};
  }
  int64_t rank() const { return kernel.size(); }
  /// The tensor dimension of spatial dimension `i`.
  int64_t spatialDim(int64_t i) const { return (channelsLast ? 1 : 2) + i; }
};

/// Pads `input` for a window op, adding end padding where ceil mode lets the
/// last window run past the padded input.
Value padForWindow(OpBuilder &b, Location loc, Value input,
                   RankedTensorType resultType, const Window &w,
                   TypedAttr padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t k = w.rank();
  SmallVector<int64_t> pads = w.pads;
  for (int64_t i = 0; i < k; ++i) {
    int64_t needed =
        (resultType.getDimSize(w.spatialDim(i)) - 1) * w.strides[i] +
        (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t have = type.getDimSize(w.spatialDim(i)) + pads[i] + pads[k + i];
    pads[k + i] += std::max<int64_t>(0, needed - have);
  }
  return padSpatial(b, loc, input, pads, padValue, w.channelsLast);
}

/// Reduces each window of the padded input into `init` with `combine`, as
/// one generic over (n, c, o1..ok, k1..kk) (the same loops channels last).
Value buildWindowReduction(OpBuilder &b, Location loc, Value padded,
                           Value init, const Window &w,
                           function_ref<Value(OpBuilder &, Location, Value,
                                              Value)>
                               combine) {
  MLIRContext *ctx = b.getContext();
  int64_t k = w.rank();
  unsigned numDims = 2 + 2 * k;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  // The window tensor only gives the kernel loops their extents.
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, element);
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, windowExprs,
                          outExprs = {d(0), d(1)};
  for (int64_t i = 0; i < k; ++i) {
    inExprs.push_back(d(2 + i) * w.strides[i] + d(2 + k + i) * w.dilations[i]);
    windowExprs.push_back(d(2 + k + i));
    outExprs.push_back(d(2 + i));
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(numDims, 0, inLayout(inExprs, w.channelsLast), ctx),
      AffineMap::get(numDims, 0, windowExprs, ctx),
      AffineMap::get(numDims, 0, inLayout(outExprs, w.channelsLast), ctx)};
  SmallVector<utils::IteratorType> iterators(2 + k,
                                             utils::IteratorType::parallel);
  iterators.append(k, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{padded, window}, init, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, combine(nb, l, args[2], args[0]));
             })
      .getResult(0);
}

struct MaxPoolLowering : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Window w = Window::of(op);
    Type element = resultType.getElementType();
    TypedAttr lowest = isa<FloatType>(element) ? getLowestAttr(element)
                       : isUnsignedInteger(element)
                           ? TypedAttr(rewriter.getZeroAttr(element))
                           : getExtremeAttr(element, /*lowest=*/true);
    Value padded =
        padForWindow(rewriter, loc, op.getInput(), resultType, w, lowest);
    Value init = buildFilled(rewriter, loc, resultType, lowest);
    rewriter.replaceOp(
        op, buildWindowReduction(rewriter, loc, padded, init, w,
                                 [](OpBuilder &b, Location l, Value acc,
                                    Value x) -> Value {
                                   return createMax(b, l, acc, x);
                                 }));
    return success();
  }
};

/// Sums each window, then divides by a compile-time table of window sizes.
struct AvgPoolLowering : OpRewritePattern<AvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Type element = resultType.getElementType();
    Window w = Window::of(op);
    int64_t k = w.rank();
    Value padded = padForWindow(rewriter, loc, op.getInput(), resultType, w,
                                rewriter.getZeroAttr(element));
    // f16 and bf16 windows sum in f32 (each tap extended), divided in f32
    // and rounded once.
    Type sumElement = sumsInF32(element) ? rewriter.getF32Type() : element;
    auto sumType = resultType.clone(sumElement);
    Value init =
        buildFilled(rewriter, loc, sumType, rewriter.getZeroAttr(sumElement));
    Value sums = buildWindowReduction(
        rewriter, loc, padded, init, w,
        [](OpBuilder &b, Location l, Value acc, Value x) -> Value {
          if (x.getType() != acc.getType())
            x = arith::ExtFOp::create(b, l, acc.getType(), x);
          return arith::AddFOp::create(b, l, acc, x);
        });

    // Taps per output position and spatial dimension: those inside the
    // padded input with count_include_pad, those on the real input without
    // (ceil mode's extra end padding never counts).
    auto counts = [&](int64_t dim) {
      SmallVector<int64_t> result;
      int64_t extent = inputType.getDimSize(w.spatialDim(dim));
      int64_t padBegin = w.pads[dim], padEnd = w.pads[k + dim];
      int64_t lo = op.getCountIncludePad() ? -padBegin : 0;
      int64_t hi = op.getCountIncludePad() ? extent + padEnd : extent;
      for (int64_t o = 0; o < resultType.getDimSize(w.spatialDim(dim)); ++o) {
        int64_t taps = 0;
        for (int64_t t = 0; t < w.kernel[dim]; ++t) {
          int64_t at = o * w.strides[dim] - padBegin + t * w.dilations[dim];
          taps += at >= lo && at < hi;
        }
        result.push_back(std::max<int64_t>(taps, 1));
      }
      return result;
    };
    SmallVector<SmallVector<int64_t>> perDim;
    SmallVector<int64_t> tableShape;
    for (int64_t i = 0; i < k; ++i) {
      perDim.push_back(counts(i));
      tableShape.push_back(perDim.back().size());
    }
    // The table is the outer product of the per-dimension counts.
    SmallVector<int64_t> products = {1};
    for (ArrayRef<int64_t> dimCounts : perDim) {
      SmallVector<int64_t> next;
      for (int64_t p : products)
        for (int64_t c : dimCounts)
          next.push_back(p * c);
      products = std::move(next);
    }
    auto floatType = cast<FloatType>(sumElement);
    SmallVector<APFloat> divisors;
    for (int64_t p : products) {
      APFloat v(static_cast<double>(p));
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      divisors.push_back(v);
    }
    // Channels last, the table is [O1, ..., Ok, 1] against [N, O..., C].
    if (w.channelsLast)
      tableShape.push_back(1);
    auto tableType = RankedTensorType::get(tableShape, sumElement);
    Value table = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(tableType, divisors));
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, resultType, {sums, table},
                [element](OpBuilder &b, Location l, ValueRange args) -> Value {
                  Value mean = arith::DivFOp::create(b, l, args[0], args[1]);
                  if (mean.getType() != element)
                    mean = arith::TruncFOp::create(b, l, element, mean);
                  return mean;
                }));
    return success();
  }
};

/// Sums the spatial dims into [N, C], divides, and expands back to rank
/// ([N, C, 1...] or, channels last, [N, 1, 1, C]: the same reassociation).
struct GlobalAveragePoolLowering : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GlobalAveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    int64_t rank = inputType.getRank();
    // The channel dimension: 1, or the last one channels last.
    int64_t channel = op.getLayout() == Layout::NHWC ? rank - 1 : 1;
    // f16 and bf16 sum in f32 and round once, after the division.
    Type sumElement = sumsInF32(element) ? rewriter.getF32Type() : element;
    auto reducedType = RankedTensorType::get(
        {inputType.getDimSize(0), inputType.getDimSize(channel)}, sumElement);
    Value init = buildFilled(rewriter, loc, reducedType,
                             rewriter.getZeroAttr(sumElement));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    iterators[0] = iterators[channel] = utils::IteratorType::parallel;
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(
            rank, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(channel, ctx)},
            ctx)};
    Value sums =
        linalg::GenericOp::create(
            rewriter, loc, reducedType, op.getInput(), init, maps, iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              Value x = args[0];
              if (x.getType() != args[1].getType())
                x = arith::ExtFOp::create(b, l, args[1].getType(), x);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[1], x).getResult());
            })
            .getResult(0);
    int64_t count = 1;
    for (int64_t i = 1; i < rank; ++i)
      if (i != channel)
        count *= inputType.getDimSize(i);
    Value means = buildElementwise(
        rewriter, loc, reducedType.clone(element), sums,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value divisor = arith::ConstantOp::create(
              b, l, b.getFloatAttr(sumElement, static_cast<double>(count)));
          Value mean = arith::DivFOp::create(b, l, args[0], divisor);
          if (mean.getType() != element)
            mean = arith::TruncFOp::create(b, l, element, mean);
          return mean;
        });
    SmallVector<ReassociationIndices> reassociation = {{0}, {}};
    for (int64_t i = 1; i < rank; ++i)
      reassociation[1].push_back(i);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, means,
                                                       reassociation);
    return success();
  }
};

} // namespace

void mlir::tessel::populatePoolingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AvgPoolLowering, GlobalAveragePoolLowering>(
      patterns.getContext());
}
