//===- ActivationImporters.cpp - ONNX activation functions ----------------===//
//
// Attribute defaults are the ONNX operator definitions'.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// Builds `OpTy` from the float input and float attributes `names` (with
/// their defaults), in the op's attribute order.
template <typename OpTy, size_t N>
NodeImportFn activation(const char *const (&names)[N],
                        const double (&defaults)[N]) {
  SmallVector<std::pair<std::string, double>> attrs;
  for (size_t i = 0; i < N; ++i)
    attrs.push_back({names[i], defaults[i]});
  return [attrs](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (!isa<FloatType>(ctx.inputType(0).getElementType()))
      return ctx.fail("expects a floating-point input");
    SmallVector<FloatAttr, 2> values;
    for (const auto &[name, fallback] : attrs)
      values.push_back(ctx.builder.getF64FloatAttr(
          ctx.attr(name) ? ctx.floatAttr(name, 0) : fallback));
    if constexpr (N == 1)
      return ctx.emit<OpTy>(results, ctx.input(0), values[0]);
    else
      return ctx.emit<OpTy>(results, ctx.input(0), values[0], values[1]);
  };
}

template <typename OpTy> NodeImportFn plain() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (!isa<FloatType>(ctx.inputType(0).getElementType()))
      return ctx.fail("expects a floating-point input");
    return ctx.emit<OpTy>(results, ctx.input(0));
  };
}

LogicalResult importGelu(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.fail("expects a floating-point input");
  std::string approximate = ctx.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.fail("unknown approximate '" + approximate +
                    "' (expected 'none' or 'tanh')");
  return ctx.emit<GeluOp>(results, ctx.input(0),
                          approximate == "tanh" ? ctx.builder.getUnitAttr()
                                                : UnitAttr());
}

LogicalResult importPRelu(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), slope = ctx.inputType(1);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("expects a floating-point input");
  Value slopeValue = ctx.input(1);
  // Before opset 7, a slope of one element per channel applies along
  // dimension 1 (not numpy's trailing alignment).
  if (ctx.opset < 7 && slope.getRank() == 1 && x.getRank() >= 2 &&
      slope.getDimSize(0) == x.getDimSize(1) && slope.getDimSize(0) != 1) {
    SmallVector<int64_t> shape(x.getRank() - 1, 1);
    shape[0] = slope.getDimSize(0);
    FailureOr<Value> aligned = ctx.build<ReshapeOp>(
        slopeValue, ctx.builder.getDenseI64ArrayAttr(shape));
    if (failed(aligned))
      return failure();
    slopeValue = *aligned;
    slope = cast<RankedTensorType>(slopeValue.getType());
  }
  // The slope broadcasts to the input (unidirectionally).
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(x.getShape(), slope.getShape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != x.getShape())
    return ctx.fail("slope does not broadcast to the input's shape");
  return ctx.emit<PReluOp>(results, ctx.input(0), slopeValue);
}

/// A scalar constant of the element type `element` holding `value`.
Value scalarConstant(NodeContext &ctx, Type element, double value) {
  Attribute attr =
      isa<FloatType>(element)
          ? Attribute(ctx.builder.getFloatAttr(element, value))
          : Attribute(ctx.builder.getIntegerAttr(element,
                                                 static_cast<int64_t>(value)));
  return ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(RankedTensorType::get({}, element), attr));
}

/// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0), composed of
/// comparisons and selects. On signed integers the attributes must be
/// integral, so that computing in the element type is exact.
LogicalResult importShrink(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  Type element = ctx.inputType(0).getElementType();
  double lambd = ctx.floatAttr("lambd", 0.5), bias = ctx.floatAttr("bias", 0);
  if (auto intType = dyn_cast<IntegerType>(element)) {
    if (intType.getWidth() == 1 || intType.isUnsigned())
      return ctx.fail("Shrink expects floats or signed integers");
    if (lambd != std::trunc(lambd) || bias != std::trunc(bias))
      return ctx.fail("Shrink on integers needs integral lambd and bias");
  }
  Value x = ctx.input(0);
  Value low = scalarConstant(ctx, element, -lambd);
  Value high = scalarConstant(ctx, element, lambd);
  Value offset = scalarConstant(ctx, element, bias);
  Value zero = scalarConstant(ctx, element, 0);
  FailureOr<Value> below = ctx.build<LessOp>(x, low);
  FailureOr<Value> above = ctx.build<GreaterOp>(x, high);
  FailureOr<Value> raised = ctx.build<AddOp>(x, offset);
  FailureOr<Value> lowered = ctx.build<SubOp>(x, offset);
  if (failed(below) || failed(above) || failed(raised) || failed(lowered))
    return failure();
  FailureOr<Value> upper = ctx.build<WhereOp>(*above, *lowered, zero);
  if (failed(upper))
    return failure();
  return ctx.emit<WhereOp>(results, *below, *raised, *upper);
}

} // namespace

void mlir::tessel::onnx_import::registerActivationImporters(
    ImporterRegistry &registry) {
  registry.add("LeakyRelu", activation<LeakyReluOp>({"alpha"}, {0.01}), {1, 1},
               6);
  registry.add("Elu", activation<EluOp>({"alpha"}, {1.0}), {1, 1}, 6);
  registry.add(
      "Selu",
      activation<SeluOp>({"alpha", "gamma"}, {1.67326319217681884765625,
                                              1.05070102214813232421875}),
      {1, 1}, 6);
  registry.add("Celu", activation<CeluOp>({"alpha"}, {1.0}), {1, 1}, 12);
  registry.add("HardSigmoid",
               activation<HardSigmoidOp>({"alpha", "beta"}, {0.2, 0.5}), {1, 1},
               6);
  registry.add("ThresholdedRelu",
               activation<ThresholdedReluOp>({"alpha"}, {1.0}), {1, 1}, 10);
  registry.add("HardSwish", plain<HardSwishOp>(), {1, 1}, 14);
  registry.add("Softplus", plain<SoftplusOp>(), {1, 1});
  registry.add("Softsign", plain<SoftsignOp>(), {1, 1});
  registry.add("Mish", plain<MishOp>(), {1, 1}, 18);
  registry.add("Gelu", importGelu, {1, 1}, 20);
  registry.add("PRelu", importPRelu, {2, 2}, 6);
  registry.add("Shrink", importShrink, {1, 1}, 9);
}
