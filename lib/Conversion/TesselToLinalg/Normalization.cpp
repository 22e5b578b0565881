//===- Normalization.cpp - batch_norm, instance_norm, layer_norm to linalg ===//
//
// batch_norm is one elementwise generic reading the per-channel parameters
// along dimension 1. instance_norm and layer_norm normalise over the trailing
// dimensions from an axis: a sum, a mean, a sum of squared deviations (two
// passes, which is more accurate than E[x^2] - E[x]^2), the inverse standard
// deviation, then one elementwise generic applying scale and bias.
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

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// Mean and inverse standard deviation of `input` over dimensions `axis..`,
/// both in the input shape truncated to its first `axis` dimensions.
std::pair<Value, Value> buildMoments(OpBuilder &b, Location loc, Value input,
                                     int64_t axis, double epsilon) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = axis; d < type.getRank(); ++d) {
    axes.push_back(d);
    count *= type.getDimSize(d);
  }
  auto statType =
      RankedTensorType::get(type.getShape().take_front(axis), element);
  Value sum = buildReduction(
      b, loc, input, axes, b.getZeroAttr(element),
      [](OpBuilder &nb, Location l, ValueRange args, Value acc) -> Value {
        return arith::AddFOp::create(nb, l, args[0], acc);
      });
  Value mean =
      buildElementwise(b, loc, statType, sum,
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(
                             nb, l, a[0], constant(nb, l, element, count));
                       });
  Value squares = buildReduction(
      b, loc, ValueRange{input, mean}, axes, b.getZeroAttr(element),
      [](OpBuilder &nb, Location l, ValueRange args, Value acc) -> Value {
        Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
        Value dd = arith::MulFOp::create(nb, l, d, d);
        return arith::AddFOp::create(nb, l, dd, acc);
      });
  Value invStd =
      buildElementwise(b, loc, statType, squares,
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value var = arith::DivFOp::create(
                             nb, l, a[0], constant(nb, l, element, count));
                         Value shifted = arith::AddFOp::create(
                             nb, l, var, constant(nb, l, element, epsilon));
                         return math::RsqrtOp::create(nb, l, shifted);
                       });
  return {mean, invStd};
}

/// (x - mean) * invStd * scale (+ bias) over the input's shape; the moments
/// are read along the first `axis` dimensions, scale and the optional bias
/// through their maps.
Value applyMoments(OpBuilder &b, Location loc, Value input, int64_t axis,
                   Value mean, Value invStd, Value scale, Value bias,
                   AffineMap scaleMap, AffineMap biasMap) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineExpr> leading;
  for (int64_t d = 0; d < axis; ++d)
    leading.push_back(b.getAffineDimExpr(d));
  AffineMap statMap = AffineMap::get(rank, 0, leading, b.getContext());
  SmallVector<Value> inputs = {input, mean, invStd, scale};
  SmallVector<AffineMap> maps = {identity, statMap, statMap, scaleMap};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(biasMap);
  }
  maps.push_back(identity);
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, init, maps, parallel,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
               Value n = arith::MulFOp::create(nb, l, d, args[2]);
               Value y = arith::MulFOp::create(nb, l, n, args[3]);
               if (bias)
                 y = arith::AddFOp::create(nb, l, y, args[4]);
               linalg::YieldOp::create(nb, l, y);
             })
      .getResult(0);
}

/// The map reading a 1-D per-channel operand at dimension 1.
AffineMap channelMap(OpBuilder &b, int64_t rank) {
  return AffineMap::get(rank, 0, b.getAffineDimExpr(1), b.getContext());
}

struct BatchNormLowering : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap channel = channelMap(rewriter, rank);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    double epsilon = op.getEpsilon().convertToDouble();
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value y = linalg::GenericOp::create(
                  rewriter, loc, type,
                  ValueRange{op.getInput(), op.getScale(), op.getBias(),
                             op.getMean(), op.getVar()},
                  init,
                  ArrayRef<AffineMap>{identity, channel, channel, channel,
                                      channel, identity},
                  parallel,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value x = args[0], scale = args[1], bias = args[2],
                          mean = args[3], var = args[4];
                    Value shifted = arith::AddFOp::create(
                        b, l, var, constant(b, l, x.getType(), epsilon));
                    Value invStd = math::RsqrtOp::create(b, l, shifted);
                    Value d = arith::SubFOp::create(b, l, x, mean);
                    Value n = arith::MulFOp::create(b, l, d, invStd);
                    Value s = arith::MulFOp::create(b, l, n, scale);
                    linalg::YieldOp::create(
                        b, l, arith::AddFOp::create(b, l, s, bias).getResult());
                  })
                  .getResult(0);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct InstanceNormLowering : OpRewritePattern<InstanceNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(InstanceNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rank = op.getInput().getType().getRank();
    auto [mean, invStd] = buildMoments(rewriter, loc, op.getInput(), 2,
                                       op.getEpsilon().convertToDouble());
    AffineMap channel = channelMap(rewriter, rank);
    rewriter.replaceOp(op, applyMoments(rewriter, loc, op.getInput(), 2, mean,
                                        invStd, op.getScale(), op.getBias(),
                                        channel, channel));
    return success();
  }
};

struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    auto [mean, invStd] = buildMoments(rewriter, loc, op.getInput(), axis,
                                       op.getEpsilon().convertToDouble());
    auto paramMap = [&](Value v) {
      if (!v)
        return AffineMap();
      return getBroadcastMap(rewriter.getContext(),
                             cast<RankedTensorType>(v.getType()).getShape(),
                             type.getShape());
    };
    Value y = applyMoments(rewriter, loc, op.getInput(), axis, mean, invStd,
                           op.getScale(), op.getBias(), paramMap(op.getScale()),
                           paramMap(op.getBias()));
    SmallVector<int64_t> axes;
    for (int64_t d = axis; d < type.getRank(); ++d)
      axes.push_back(d);
    auto statType = cast<RankedTensorType>(op.getMean().getType());
    rewriter.replaceOp(
        op, {y, expandReducedDims(rewriter, loc, mean, statType, axes),
             expandReducedDims(rewriter, loc, invStd, statType, axes)});
    return success();
  }
};

} // namespace

void mlir::tessel::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, InstanceNormLowering, LayerNormLowering>(
      patterns.getContext());
}
