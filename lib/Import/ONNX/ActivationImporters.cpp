//===- ActivationImporters.cpp - ONNX activation functions ----------------===//
//
// Attribute defaults are the ONNX operator definitions'.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

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
}
