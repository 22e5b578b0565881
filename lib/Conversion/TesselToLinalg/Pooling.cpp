//===- Pooling.cpp - Pooling ops to linalg --------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Geometry of a 2-D window op over NCHW.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

/// Pads `input` for a window op, adding end padding where ceil mode lets the
/// last window run past the padded input.
Value padForWindow(OpBuilder &b, Location loc, Value input,
                   RankedTensorType resultType, const Window &w,
                   TypedAttr padValue) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> pads = w.pads;
  for (int i = 0; i < 2; ++i) {
    int64_t needed = (resultType.getDimSize(2 + i) - 1) * w.strides[i] +
                     (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t have = type.getDimSize(2 + i) + pads[i] + pads[2 + i];
    pads[2 + i] += std::max<int64_t>(0, needed - have);
  }
  return padSpatial(b, loc, input, pads, padValue);
}

/// Reduces each window of the padded input into `init` with `combine`.
Value buildWindowReduction(OpBuilder &b, Location loc, Value padded,
                           Value init, const Window &w,
                           function_ref<Value(OpBuilder &, Location, Value,
                                              Value)>
                               combine) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  // The window tensor only gives the kernel loops their extents.
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, element);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0,
                     {d(0), d(1), d(2) * w.strides[0] + d(4) * w.dilations[0],
                      d(3) * w.strides[1] + d(5) * w.dilations[1]},
                     ctx),
      AffineMap::get(6, 0, {d(4), d(5)}, ctx),
      AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{padded, window}, init, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, combine(nb, l, args[2], args[0]));
             })
      .getResult(0);
}

struct MaxPool2DLowering : OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Window w{SmallVector<int64_t>(op.getKernel()),
             SmallVector<int64_t>(op.getStrides()),
             SmallVector<int64_t>(op.getPads()),
             SmallVector<int64_t>(op.getDilations())};
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
struct AvgPool2DLowering : OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Type element = resultType.getElementType();
    Window w{SmallVector<int64_t>(op.getKernel()),
             SmallVector<int64_t>(op.getStrides()),
             SmallVector<int64_t>(op.getPads()), SmallVector<int64_t>{1, 1}};
    Value padded = padForWindow(rewriter, loc, op.getInput(), resultType, w,
                                rewriter.getZeroAttr(element));
    Value init =
        buildFilled(rewriter, loc, resultType, rewriter.getZeroAttr(element));
    Value sums = buildWindowReduction(
        rewriter, loc, padded, init, w,
        [](OpBuilder &b, Location l, Value acc, Value x) -> Value {
          return arith::AddFOp::create(b, l, acc, x);
        });

    // Window sizes per output position: clipped to the padded input with
    // count_include_pad, to the real input without.
    auto counts = [&](int dim) {
      SmallVector<int64_t> result;
      int64_t extent = inputType.getDimSize(2 + dim);
      int64_t padBegin = w.pads[dim], padEnd = w.pads[2 + dim];
      for (int64_t o = 0; o < resultType.getDimSize(2 + dim); ++o) {
        int64_t start = o * w.strides[dim] - padBegin;
        int64_t end = std::min(start + w.kernel[dim], extent + padEnd);
        if (!op.getCountIncludePad()) {
          start = std::max<int64_t>(start, 0);
          end = std::min(end, extent);
        }
        result.push_back(std::max<int64_t>(end - start, 1));
      }
      return result;
    };
    SmallVector<int64_t> rows = counts(0), cols = counts(1);
    SmallVector<APFloat> divisors;
    auto floatType = cast<FloatType>(element);
    for (int64_t r : rows)
      for (int64_t c : cols) {
        APFloat v(static_cast<double>(r * c));
        bool lost;
        v.convert(floatType.getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        divisors.push_back(v);
      }
    auto tableType = RankedTensorType::get(
        {static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols.size())},
        element);
    Value table = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(tableType, divisors));
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, resultType, {sums, table},
                             [](OpBuilder &b, Location l, ValueRange args) {
                               return arith::DivFOp::create(b, l, args[0],
                                                            args[1])
                                   .getResult();
                             }));
    return success();
  }
};

/// Sums the spatial dims into [N, C], divides, and expands back to rank.
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
    auto reducedType = RankedTensorType::get(
        {inputType.getDimSize(0), inputType.getDimSize(1)}, element);
    Value init =
        buildFilled(rewriter, loc, reducedType, rewriter.getZeroAttr(element));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    iterators[0] = iterators[1] = utils::IteratorType::parallel;
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)},
                       ctx)};
    Value sums =
        linalg::GenericOp::create(
            rewriter, loc, reducedType, op.getInput(), init, maps, iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[1], args[0]).getResult());
            })
            .getResult(0);
    int64_t count = 1;
    for (int64_t extent : inputType.getShape().drop_front(2))
      count *= extent;
    Value means = buildElementwise(
        rewriter, loc, reducedType, sums,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value divisor = arith::ConstantOp::create(
              b, l, b.getFloatAttr(element, static_cast<double>(count)));
          return arith::DivFOp::create(b, l, args[0], divisor);
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
  patterns.add<MaxPool2DLowering, AvgPool2DLowering, GlobalAveragePoolLowering>(
      patterns.getContext());
}
