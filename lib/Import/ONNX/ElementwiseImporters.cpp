//===- ElementwiseImporters.cpp - Elementwise ONNX ops --------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

template <typename OpTy>
NodeImportFn unary() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    return ctx.emit<OpTy>(results, ctx.input(0));
  };
}

template <typename OpTy>
NodeImportFn binary() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    RankedTensorType lhs = ctx.inputType(0), rhs = ctx.inputType(1);
    if (lhs.getElementType() != rhs.getElementType())
      return ctx.fail("operand element types differ");
    FailureOr<Value> right = alignLegacyBroadcast(ctx);
    if (failed(right))
      return failure();
    rhs = cast<RankedTensorType>(right->getType());
    if (failed(broadcastShapes(lhs.getShape(), rhs.getShape())))
      return ctx.fail("operand shapes do not broadcast");
    return ctx.emit<OpTy>(results, ctx.input(0), *right);
  };
}

/// Clip. Float Clip with constant bounds is `tessel.clip`; bounds that are
/// graph inputs, and integer Clip, are `max(x, min)` then `min(_, max)` on
/// the scalar bound tensors (numpy's clip: with min > max, every element is
/// max).
LogicalResult importClip(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType type = ctx.inputType(0);
  Type element = type.getElementType();
  if (element.isInteger(1))
    return ctx.fail("Clip expects a numeric input, not bool");
  bool isFloat = isa<FloatType>(element);
  Builder &b = ctx.builder;
  if (ctx.opset < 11) {
    if (!isFloat)
      return ctx.fail("Clip before opset 11 expects a floating-point input");
    return ctx.emit<ClipOp>(
        results, ctx.input(0),
        ctx.attr("min") ? b.getF64FloatAttr(ctx.floatAttr("min", 0))
                        : FloatAttr(),
        ctx.attr("max") ? b.getF64FloatAttr(ctx.floatAttr("max", 0))
                        : FloatAttr());
  }
  for (int i = 1; i <= 2; ++i) {
    RankedTensorType bound = ctx.inputType(i);
    if (bound && (bound.getElementType() != element ||
                  bound.getNumElements() != 1 ||
                  bound.getRank() > type.getRank()))
      return ctx.fail(Twine(i == 1 ? "'min'" : "'max'") +
                      " must be one element of the input's type");
  }
  std::optional<double> low = ctx.input(1) ? ctx.constantScalar(1)
                                           : std::nullopt;
  std::optional<double> high = ctx.input(2) ? ctx.constantScalar(2)
                                            : std::nullopt;
  if (isFloat && (!ctx.input(1) || low) && (!ctx.input(2) || high))
    return ctx.emit<ClipOp>(results, ctx.input(0),
                            low ? b.getF64FloatAttr(*low) : FloatAttr(),
                            high ? b.getF64FloatAttr(*high) : FloatAttr());
  Value x = ctx.input(0);
  if (ctx.input(1)) {
    FailureOr<Value> clamped = ctx.build<MaxOp>(x, ctx.input(1));
    if (failed(clamped))
      return failure();
    x = *clamped;
  }
  if (ctx.input(2)) {
    FailureOr<Value> clamped = ctx.build<MinOp>(x, ctx.input(2));
    if (failed(clamped))
      return failure();
    x = *clamped;
  }
  results.push_back(x);
  return success();
}

/// Identity, and Dropout at inference (or in training mode with ratio 0):
/// the output is the input and the optional mask is all true (all ones
/// before opset 10, where it has the input's type).
LogicalResult importIdentity(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  results.push_back(ctx.input(0));
  if (ctx.node.op_type() != "Dropout")
    return success();
  // From opset 12 the third input switches training mode on: random
  // dropout, which an inference compiler must not silently skip.
  if (ctx.input(2)) {
    std::optional<double> training = ctx.constantScalar(2);
    if (!training)
      return ctx.failNonConstant("Dropout's training_mode must be a constant");
    // Training mode drops at random unless the ratio is 0, where it is the
    // identity with an all-true mask.
    std::optional<double> ratio =
        ctx.input(1) ? ctx.constantScalar(1) : std::optional<double>(0.5);
    if (*training != 0 && (!ratio || *ratio != 0))
      return ctx.fail("Dropout in training mode with a ratio other than a "
                      "constant 0 drops at random; Tessel compiles inference "
                      "only");
  }
  if (!ctx.hasOutput(1))
    return success();
  RankedTensorType type = ctx.inputType(0);
  Type element = ctx.opset >= 10 ? ctx.builder.getI1Type()
                                 : type.getElementType();
  Attribute one = isa<FloatType>(element)
                      ? Attribute(ctx.builder.getFloatAttr(element, 1.0))
                      : Attribute(ctx.builder.getIntegerAttr(element, 1));
  return ctx.emit<ConstantOp>(
      results, DenseElementsAttr::get(type.clone(element), one));
}

} // namespace

void mlir::tessel::onnx_import::registerElementwiseImporters(
    ImporterRegistry &registry) {
  registry.add("Add", binary<AddOp>(), {2, 2});
  registry.add("Sub", binary<SubOp>(), {2, 2});
  registry.add("Mul", binary<MulOp>(), {2, 2});
  registry.add("Div", binary<DivOp>(), {2, 2});
  registry.add("Relu", unary<ReluOp>(), {1, 1});
  registry.add("Sigmoid", unary<SigmoidOp>(), {1, 1});
  registry.add("Tanh", unary<TanhOp>(), {1, 1});
  registry.add("Clip", importClip, {1, 3});
  registry.add("Identity", importIdentity, {1, 1});
  registry.add("Dropout", importIdentity, {1, 3}, 7);
}
