//===- NormalizationImporters.cpp - LogSoftmax, Hardmax, *Normalization ---===//
//
// LogSoftmax, Hardmax, BatchNormalization, InstanceNormalization and
// LayerNormalization import as one tessel op each (see each op's
// description for why). LpNormalization and MeanVarianceNormalization are
// compositions of reductions and broadcasting arithmetic: nothing downstream
// wants to see them whole.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// LogSoftmax and Hardmax, like Softmax: along one axis from opset 13;
/// before, the input is coerced to 2-D at `axis` and each row normalised,
/// which reshapes around the op on axis 1.
template <typename OpTy>
LogicalResult importSoftmaxLike(NodeContext &ctx,
                                SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("needs a floating-point input");
  int64_t rank = x.getRank();
  if (rank == 0)
    return ctx.fail("the input is a scalar");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return ctx.fail("axis is out of range");
  Builder &b = ctx.builder;
  if (ctx.opset >= 13 || *axis == rank - 1)
    return ctx.emit<OpTy>(results, ctx.input(0), b.getI64IntegerAttr(*axis));
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < *axis ? rows : cols) *= x.getDimSize(i);
  FailureOr<Value> flat =
      ctx.build<ReshapeOp>(ctx.input(0), b.getDenseI64ArrayAttr({rows, cols}));
  if (failed(flat))
    return failure();
  FailureOr<Value> normalized = ctx.build<OpTy>(*flat, b.getI64IntegerAttr(1));
  if (failed(normalized))
    return failure();
  return ctx.emit<ReshapeOp>(results, *normalized,
                             b.getDenseI64ArrayAttr(x.getShape()));
}

/// Fails unless every present input has the element type of input 0.
LogicalResult checkSameElementType(NodeContext &ctx) {
  Type element = ctx.inputType(0).getElementType();
  for (size_t i = 1; i < ctx.inputs.size(); ++i)
    if (ctx.input(i) && ctx.inputType(i).getElementType() != element)
      return ctx.fail("operand element types differ");
  if (!isa<FloatType>(element))
    return ctx.fail("needs floating-point operands");
  return success();
}

LogicalResult importBatchNormalization(NodeContext &ctx,
                                       SmallVectorImpl<Value> &results) {
  if (ctx.opset < 7 && ctx.intAttr("is_test", 0) == 0)
    return ctx.fail("BatchNormalization with is_test = 0 (training) is not "
                    "supported (Tessel compiles inference only)");
  if (ctx.opset < 9 && ctx.intAttr("spatial", 1) == 0)
    return ctx.fail("BatchNormalization with spatial = 0 is not supported");
  if (ctx.intAttr("training_mode", 0) != 0)
    return ctx.fail("BatchNormalization in training mode is not supported "
                    "(Tessel compiles inference only)");
  for (size_t i = 1; i < 5; ++i)
    if (ctx.hasOutput(i))
      return ctx.fail("BatchNormalization's running-statistics outputs are "
                      "training outputs, which are not supported");
  if (failed(checkSameElementType(ctx)))
    return failure();
  if (ctx.inputType(0).getRank() < 2)
    return ctx.fail("input must have rank >= 2");
  Builder &b = ctx.builder;
  return ctx.emit<BatchNormOp>(
      results, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3),
      ctx.input(4), b.getF32FloatAttr(ctx.floatAttr("epsilon", 1e-5f)));
}

LogicalResult importInstanceNormalization(NodeContext &ctx,
                                          SmallVectorImpl<Value> &results) {
  if (failed(checkSameElementType(ctx)))
    return failure();
  if (ctx.inputType(0).getRank() < 3)
    return ctx.fail("input must have rank >= 3");
  Builder &b = ctx.builder;
  return ctx.emit<InstanceNormOp>(
      results, ctx.input(0), ctx.input(1), ctx.input(2),
      b.getF32FloatAttr(ctx.floatAttr("epsilon", 1e-5f)));
}

/// LayerNormalization (opset 17) with its optional Mean and InvStdDev
/// outputs, computed in the input's element type. ONNX computes them in
/// `stash_type` (default float): the same for f32 inputs; for others, Y is
/// computed in the input's type and Mean/InvStdDev (whose type would differ)
/// are refused.
LogicalResult importLayerNormalization(NodeContext &ctx,
                                       SmallVectorImpl<Value> &results) {
  if (failed(checkSameElementType(ctx)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  if (!x.getElementType().isF32() && ctx.intAttr("stash_type", 1) == 1 &&
      (ctx.hasOutput(1) || ctx.hasOutput(2)))
    return ctx.fail("Mean and InvStdDev in float (stash_type = 1) for a "
                    "non-float input are not supported");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", -1), x.getRank());
  if (!axis || x.getRank() == 0)
    return ctx.fail("axis " + llvm::Twine(ctx.intAttr("axis", -1)) +
                    " is out of range for rank " + llvm::Twine(x.getRank()));
  Builder &b = ctx.builder;
  FailureOr<SmallVector<Value>> values = ctx.buildResults<LayerNormOp>(
      3, ctx.input(0), ctx.input(1), ctx.input(2), b.getI64IntegerAttr(*axis),
      b.getF32FloatAttr(ctx.floatAttr("epsilon", 1e-5f)));
  if (failed(values))
    return failure();
  results.append(values->begin(), values->end());
  return success();
}

/// A rank-0 constant of `element` type.
FailureOr<Value> scalarConstant(NodeContext &ctx, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  return ctx.build<ConstantOp>(
      DenseElementsAttr::get(type, FloatAttr::get(element, value)));
}

/// x / ||x||_p along `axis`: reduce_l1 or reduce_l2 keeping the axis, and a
/// broadcasting divide.
LogicalResult importLpNormalization(NodeContext &ctx,
                                    SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("needs a floating-point input");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", -1), x.getRank());
  if (!axis || x.getRank() == 0)
    return ctx.fail("axis is out of range");
  int64_t p = ctx.intAttr("p", 2);
  Builder &b = ctx.builder;
  DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr({*axis});
  FailureOr<Value> norm;
  if (p == 1)
    norm = ctx.build<ReduceL1Op>(ctx.input(0), axes, b.getBoolAttr(true));
  else if (p == 2)
    norm = ctx.build<ReduceL2Op>(ctx.input(0), axes, b.getBoolAttr(true));
  else
    return ctx.fail("p must be 1 or 2, is " + llvm::Twine(p));
  if (failed(norm))
    return failure();
  // All zeros along the axis give zeros, not 0/0 (ONNX defines it so).
  Type element = x.getElementType();
  Value zero = ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(RankedTensorType::get({}, element),
                             b.getFloatAttr(element, 0.0)));
  FailureOr<Value> isZero = ctx.build<EqualOp>(*norm, zero);
  FailureOr<Value> quotient = ctx.build<DivOp>(ctx.input(0), *norm);
  if (failed(isZero) || failed(quotient))
    return failure();
  return ctx.emit<WhereOp>(results, *isZero, zero, *quotient);
}

/// (x - mean(x)) / (std(x) + 1e-9) over `axes` (default [0, 2, 3]), as
/// ONNX's function body defines it. std is computed as
/// reduce_l2(x - mean) / sqrt(n), which avoids the cancellation in
/// E[x^2] - E[x]^2.
LogicalResult importMeanVarianceNormalization(NodeContext &ctx,
                                              SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  Type element = x.getElementType();
  if (!isa<FloatType>(element))
    return ctx.fail("needs a floating-point input");
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t a :
       ctx.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3})) {
    std::optional<int64_t> axis = normalizeAxis(a, x.getRank());
    if (!axis || llvm::is_contained(axes, *axis))
      return ctx.fail("axis " + llvm::Twine(a) +
                      " is out of range or repeated");
    axes.push_back(*axis);
    count *= x.getDimSize(*axis);
  }
  llvm::sort(axes);
  Builder &b = ctx.builder;
  DenseI64ArrayAttr axesAttr = b.getDenseI64ArrayAttr(axes);
  BoolAttr keep = b.getBoolAttr(true);
  FailureOr<Value> mean = ctx.build<ReduceMeanOp>(ctx.input(0), axesAttr, keep);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = ctx.build<SubOp>(ctx.input(0), *mean);
  if (failed(centered))
    return failure();
  FailureOr<Value> l2 = ctx.build<ReduceL2Op>(*centered, axesAttr, keep);
  FailureOr<Value> invSqrtCount =
      scalarConstant(ctx, element, count ? 1.0 / std::sqrt(count) : 0.0);
  FailureOr<Value> epsilon = scalarConstant(ctx, element, 1e-9);
  if (failed(l2) || failed(invSqrtCount) || failed(epsilon))
    return failure();
  FailureOr<Value> stdDev = ctx.build<MulOp>(*l2, *invSqrtCount);
  if (failed(stdDev))
    return failure();
  FailureOr<Value> denominator = ctx.build<AddOp>(*stdDev, *epsilon);
  if (failed(denominator))
    return failure();
  return ctx.emit<DivOp>(results, *centered, *denominator);
}

/// A scalar constant of float type `element`.
Value floatScalar(NodeContext &ctx, Type element, double value) {
  return ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(RankedTensorType::get({}, element),
                             ctx.builder.getFloatAttr(element, value)));
}

/// LRN: x / (bias + alpha / size * sum of x^2 over `size` neighbouring
/// channels)^beta. The window sum is an average pool (padding counted, so
/// the divisor is always `size`) over the channels, seen as the height of an
/// [N, 1, C, rest] view.
LogicalResult importLRN(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  Type element = x.getElementType();
  if (!isa<FloatType>(element))
    return ctx.fail("LRN expects a floating-point input");
  if (x.getRank() < 2)
    return ctx.fail("LRN expects an input of rank >= 2 (N x C x ...)");
  int64_t size = ctx.intAttr("size", 0);
  if (size < 1)
    return ctx.fail("'size' must be positive");
  double alpha = ctx.floatAttr("alpha", 1e-4), beta = ctx.floatAttr("beta", 0.75),
         bias = ctx.floatAttr("bias", 1.0);
  int64_t rest = 1;
  for (int64_t d : x.getShape().drop_front(2))
    rest *= d;
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Builder &b = ctx.builder;
  Value input = ctx.input(0);
  FailureOr<Value> squares = ctx.build<MulOp>(input, input);
  if (failed(squares))
    return failure();
  FailureOr<Value> view = ctx.build<ReshapeOp>(
      *squares, b.getDenseI64ArrayAttr(
                    {x.getDimSize(0), 1, x.getDimSize(1), rest}));
  if (failed(view))
    return failure();
  FailureOr<Value> mean = ctx.build<AvgPoolOp>(
      *view, b.getDenseI64ArrayAttr({size, 1}), b.getDenseI64ArrayAttr({1, 1}),
      b.getDenseI64ArrayAttr({before, 0, after, 0}),
      b.getDenseI64ArrayAttr({1, 1}), b.getBoolAttr(false),
      b.getBoolAttr(true));
  if (failed(mean))
    return failure();
  FailureOr<Value> sums =
      ctx.build<ReshapeOp>(*mean, b.getDenseI64ArrayAttr(x.getShape()));
  if (failed(sums))
    return failure();
  FailureOr<Value> scaled =
      ctx.build<MulOp>(*sums, floatScalar(ctx, element, alpha));
  if (failed(scaled))
    return failure();
  FailureOr<Value> shifted =
      ctx.build<AddOp>(*scaled, floatScalar(ctx, element, bias));
  if (failed(shifted))
    return failure();
  FailureOr<Value> divisor =
      ctx.build<PowOp>(*shifted, floatScalar(ctx, element, beta));
  if (failed(divisor))
    return failure();
  return ctx.emit<DivOp>(results, input, *divisor);
}

} // namespace

void mlir::tessel::onnx_import::registerNormalizationImporters(
    ImporterRegistry &registry) {
  registry.add("LogSoftmax", importSoftmaxLike<LogSoftmaxOp>, {1, 1});
  registry.add("Hardmax", importSoftmaxLike<HardmaxOp>, {1, 1});
  registry.add("BatchNormalization", importBatchNormalization, {5, 5}, 6);
  registry.add("InstanceNormalization", importInstanceNormalization, {3, 3});
  registry.add("LayerNormalization", importLayerNormalization, {2, 3}, 17);
  registry.add("LpNormalization", importLpNormalization, {1, 1});
  registry.add("LRN", importLRN, {1, 1});
  registry.add("MeanVarianceNormalization", importMeanVarianceNormalization,
               {1, 1}, 9);
}
