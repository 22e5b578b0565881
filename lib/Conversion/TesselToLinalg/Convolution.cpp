//===- Convolution.cpp - conv2d to linalg ---------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// NCHW x OIHW -> NCHW, as one generic over (n, oc, oh, ow, c, kh, kw) on the
/// zero-padded input. The output starts as the broadcast bias (or zero).
/// With groups, filter `oc` reads input channel (oc / OCg) * Cg + c.
struct Conv2DLowering : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    auto weightType = cast<RankedTensorType>(op.getWeight().getType());
    int64_t group = op.getGroup();
    int64_t channelsPerGroup = weightType.getDimSize(1);
    int64_t filtersPerGroup = weightType.getDimSize(0) / group;

    Value input = padSpatial(rewriter, loc, op.getInput(), op.getPads(),
                             rewriter.getZeroAttr(element));
    Value init;
    if (Value bias = op.getBias()) {
      AffineMap channel = AffineMap::get(4, 0, getAffineDimExpr(1, ctx), ctx);
      Value empty = tensor::EmptyOp::create(rewriter, loc,
                                            resultType.getShape(), element);
      init = linalg::GenericOp::create(
                 rewriter, loc, resultType, bias, empty,
                 ArrayRef<AffineMap>{channel,
                                     rewriter.getMultiDimIdentityMap(4)},
                 SmallVector<utils::IteratorType>(4,
                                                  utils::IteratorType::parallel),
                 [](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, args[0]);
                 })
                 .getResult(0);
    } else {
      init = buildFilled(rewriter, loc, resultType, rewriter.getZeroAttr(element));
    }

    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr n = d(0), oc = d(1), oh = d(2), ow = d(3), c = d(4), kh = d(5),
               kw = d(6);
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    AffineExpr inChannel =
        group == 1 ? c : oc.floorDiv(filtersPerGroup) * channelsPerGroup + c;
    SmallVector<AffineMap> maps = {
        AffineMap::get(7, 0,
                       {n, inChannel, oh * strides[0] + kh * dilations[0],
                        ow * strides[1] + kw * dilations[1]},
                       ctx),
        AffineMap::get(7, 0, {oc, c, kh, kw}, ctx),
        AffineMap::get(7, 0, {n, oc, oh, ow}, ctx)};
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.append(3, utils::IteratorType::reduction);

    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{input, op.getWeight()}, init,
        maps, iterators, [](OpBuilder &b, Location l, ValueRange args) {
          Value product = createMul(b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, createAdd(b, l, args[2], product));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::tessel::populateConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Conv2DLowering>(patterns.getContext());
}
