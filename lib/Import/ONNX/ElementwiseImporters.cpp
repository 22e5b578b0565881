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

LogicalResult importClip(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.fail("only floating-point Clip is supported");
  std::optional<double> low, high;
  if (ctx.opset < 11) {
    if (ctx.attr("min"))
      low = ctx.floatAttr("min", 0);
    if (ctx.attr("max"))
      high = ctx.floatAttr("max", 0);
  } else {
    for (int i = 1; i <= 2; ++i) {
      if (!ctx.input(i))
        continue;
      std::optional<double> bound = ctx.constantScalar(i);
      if (!bound)
        return ctx.fail(llvm::Twine(i == 1 ? "'min'" : "'max'") +
                        " must be a constant scalar");
      (i == 1 ? low : high) = *bound;
    }
  }
  Builder &b = ctx.builder;
  return ctx.emit<ClipOp>(results, ctx.input(0),
                                   low ? b.getF64FloatAttr(*low) : FloatAttr(),
                                   high ? b.getF64FloatAttr(*high)
                                        : FloatAttr());
}

/// Identity, and Dropout at inference (its mask output is refused).
LogicalResult importIdentity(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  if (ctx.node.op_type() == "Dropout") {
    if (ctx.hasOutput(1))
      return ctx.fail("Dropout's mask output is not supported");
    // From opset 12 the third input switches training mode on: random
    // dropout, which an inference compiler must not silently skip.
    if (ctx.input(2)) {
      std::optional<double> training = ctx.constantScalar(2);
      if (!training)
        return ctx.fail("Dropout's training_mode must be a constant");
      if (*training != 0)
        return ctx.fail("Dropout in training mode is not supported");
    }
  }
  results.push_back(ctx.input(0));
  return success();
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
