//===- Convolution.cpp - conv and conv_transpose to linalg ----------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

/// The output of a convolution before accumulation: the bias broadcast along
/// channels (dimension 1, or the last with `channelsLast`; extended to the
/// accumulator's type), or zero.
static Value buildConvInit(OpBuilder &b, Location loc,
                           RankedTensorType resultType, Value bias,
                           bool channelsLast) {
  Type element = resultType.getElementType();
  int64_t rank = resultType.getRank();
  if (!bias)
    return buildFilled(b, loc, resultType, b.getZeroAttr(element));
  MLIRContext *ctx = b.getContext();
  AffineMap channel = AffineMap::get(
      rank, 0, getAffineDimExpr(channelsLast ? rank - 1 : 1, ctx), ctx);
  Value empty =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), element);
  return linalg::GenericOp::create(
             b, loc, resultType, bias, empty,
             ArrayRef<AffineMap>{channel, b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [element](OpBuilder &nb, Location l, ValueRange args) {
               Value v = args[0];
               if (v.getType() != element)
                 v = arith::ExtFOp::create(nb, l, element, v);
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

/// [N, C, D1..Dk] x [OC, C / group, K1..Kk] -> [N, OC, O1..Ok] on an already
/// padded input, as one generic over (n, oc, o1..ok, c, k1..kk); with
/// `channelsLast`, the input and the output are [N, D1..Dk, C] and
/// [N, O1..Ok, OC] (same loops, the weights as they are). With groups,
/// filter `oc` reads input channel (oc / OCg) * Cg + c. float16 and bfloat16
/// convolutions accumulate in f32 and round once at the end: their own
/// precision loses digits over a window's sums.
static Value buildConvolution(OpBuilder &b, Location loc, Value input,
                              Value weight, Value bias,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations, int64_t group,
                              RankedTensorType resultType,
                              bool channelsLast = false) {
  MLIRContext *ctx = b.getContext();
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t k = resultType.getRank() - 2;
  int64_t channelsPerGroup = weightType.getDimSize(1);
  int64_t filtersPerGroup = weightType.getDimSize(0) / group;
  unsigned numDims = 3 + 2 * k;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n = d(0), oc = d(1), c = d(2 + k);
  AffineExpr inChannel =
      group == 1 ? c : oc.floorDiv(filtersPerGroup) * channelsPerGroup + c;
  SmallVector<AffineExpr> inExprs = {n, inChannel}, wExprs = {oc, c},
                          outExprs = {n, oc};
  for (int64_t i = 0; i < k; ++i) {
    AffineExpr o = d(2 + i), kk = d(3 + k + i);
    inExprs.push_back(o * strides[i] + kk * dilations[i]);
    wExprs.push_back(kk);
    outExprs.push_back(o);
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(numDims, 0, inLayout(inExprs, channelsLast), ctx),
      AffineMap::get(numDims, 0, wExprs, ctx),
      AffineMap::get(numDims, 0, inLayout(outExprs, channelsLast), ctx)};
  SmallVector<utils::IteratorType> iterators(2 + k,
                                             utils::IteratorType::parallel);
  iterators.append(1 + k, utils::IteratorType::reduction);
  Type element = resultType.getElementType();
  bool widen = sumsInF32(element);
  RankedTensorType accType =
      widen ? resultType.clone(b.getF32Type()) : resultType;
  Value init = buildConvInit(b, loc, accType, bias, channelsLast);
  Value acc =
      linalg::GenericOp::create(
          b, loc, accType, ValueRange{input, weight}, init, maps, iterators,
          [widen](OpBuilder &nb, Location l, ValueRange args) {
            Value x = args[0], w = args[1];
            if (widen) {
              x = arith::ExtFOp::create(nb, l, nb.getF32Type(), x);
              w = arith::ExtFOp::create(nb, l, nb.getF32Type(), w);
            }
            Value product = createMul(nb, l, x, w);
            linalg::YieldOp::create(nb, l, createAdd(nb, l, args[2], product));
          })
          .getResult(0);
  if (!widen)
    return acc;
  return buildElementwise(b, loc, resultType, acc,
                          [element](OpBuilder &nb, Location l,
                                    ValueRange args) -> Value {
                            return arith::TruncFOp::create(nb, l, element,
                                                           args[0]);
                          });
}

namespace {

/// Zero-pads the input and runs the convolution generic.
struct ConvLowering : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    bool channelsLast = op.getLayout() == Layout::NHWC;
    Value input = padSpatial(rewriter, op.getLoc(), op.getInput(), op.getPads(),
                             rewriter.getZeroAttr(resultType.getElementType()),
                             channelsLast);
    rewriter.replaceOp(
        op, buildConvolution(rewriter, op.getLoc(), input, op.getWeight(),
                             op.getBias(), op.getStrides(), op.getDilations(),
                             op.getGroup(), resultType, channelsLast));
    return success();
  }
};

/// A transposed convolution is a stride-1 convolution, with the same
/// dilations, of the input spread out by the strides (zeros between
/// elements) and padded by `(K - 1) * dilation` less the pads on each side,
/// with the kernel flipped and its channel axes swapped per group.
struct ConvTransposeLowering : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto weightType = cast<RankedTensorType>(op.getWeight().getType());
    Type element = resultType.getElementType();
    int64_t rank = resultType.getRank(), k = rank - 2;
    int64_t group = op.getGroup();
    int64_t channelsPerGroup = inputType.getDimSize(1) / group;
    int64_t filtersPerGroup = weightType.getDimSize(1);
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);

    // Weight [C, OC/g, K...] -> [OC, C/g, K...], flipped:
    // w'[o, c, kk] = w[(o / OCg) * Cg + c, o % OCg, K - 1 - kk].
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<int64_t> flippedShape = {resultType.getDimSize(1),
                                         channelsPerGroup};
    SmallVector<AffineExpr> gather = {d(1), d(0)};
    if (group != 1)
      gather = {d(0).floorDiv(filtersPerGroup) * channelsPerGroup + d(1),
                d(0) % filtersPerGroup};
    for (int64_t i = 0; i < k; ++i) {
      flippedShape.push_back(kernel[i]);
      gather.push_back(kernel[i] - 1 - d(2 + i));
    }
    auto flippedType = RankedTensorType::get(flippedShape, element);
    Value flipped =
        linalg::GenericOp::create(
            rewriter, loc, flippedType, op.getWeight(),
            tensor::EmptyOp::create(rewriter, loc, flippedShape, element)
                .getResult(),
            ArrayRef<AffineMap>{AffineMap::get(rank, 0, gather, ctx),
                                rewriter.getMultiDimIdentityMap(rank)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);

    // Input element i lands at L + i * stride of the spread tensor, of
    // extent O + (K - 1) * dilation, where L = (K - 1) * dilation - pad.
    // Elements landing outside (large pads) are cropped first.
    SmallVector<int64_t> spreadShape(inputType.getShape().take_front(2));
    SmallVector<OpFoldResult> cropOffsets(rank, rewriter.getIndexAttr(0)),
        cropSizes, placeOffsets(rank, rewriter.getIndexAttr(0)),
        placeStrides(rank, rewriter.getIndexAttr(1)),
        unitStrides(rank, rewriter.getIndexAttr(1));
    cropSizes.push_back(rewriter.getIndexAttr(inputType.getDimSize(0)));
    cropSizes.push_back(rewriter.getIndexAttr(inputType.getDimSize(1)));
    bool empty = false, cropped = false;
    for (int64_t i = 0; i < k; ++i) {
      int64_t extent = inputType.getDimSize(2 + i), s = strides[i];
      int64_t span = (kernel[i] - 1) * dilations[i];
      int64_t spread = resultType.getDimSize(2 + i) + span;
      int64_t first = span - pads[i];
      int64_t lo = first >= 0 ? 0 : (-first + s - 1) / s;
      int64_t hi = spread - 1 - first < 0
                       ? 0
                       : std::min(extent, (spread - 1 - first) / s + 1);
      empty |= hi <= lo;
      cropped |= lo != 0 || hi != extent;
      spreadShape.push_back(spread);
      cropOffsets[2 + i] = rewriter.getIndexAttr(lo);
      cropSizes.push_back(rewriter.getIndexAttr(std::max<int64_t>(hi - lo, 0)));
      placeOffsets[2 + i] = rewriter.getIndexAttr(first + lo * s);
      placeStrides[2 + i] = rewriter.getIndexAttr(s);
    }
    Value spread = buildFilled(rewriter, loc,
                               RankedTensorType::get(spreadShape, element),
                               rewriter.getZeroAttr(element));
    if (!empty) {
      Value source = op.getInput();
      if (cropped)
        source = tensor::ExtractSliceOp::create(rewriter, loc, source,
                                                cropOffsets, cropSizes,
                                                unitStrides);
      spread = tensor::InsertSliceOp::create(rewriter, loc, source, spread,
                                             placeOffsets, cropSizes,
                                             placeStrides);
    }
    SmallVector<int64_t> unit(k, 1);
    rewriter.replaceOp(op, buildConvolution(rewriter, loc, spread, flipped,
                                            op.getBias(), unit, dilations,
                                            group, resultType));
    return success();
  }
};

} // namespace

void mlir::tessel::populateConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConvLowering, ConvTransposeLowering>(patterns.getContext());
}
