//===- LogicImporters.cpp - Comparisons, boolean ops, Where, BitShift -----===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

bool isBool(RankedTensorType type) {
  return type.getElementType().isInteger(1);
}

/// And, Or, Xor: bool operands only.
template <typename OpTy> NodeImportFn logical() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (!isBool(ctx.inputType(0)) || !isBool(ctx.inputType(1)))
      return ctx.fail("expects bool operands");
    return ctx.emit<OpTy>(results, ctx.input(0), ctx.input(1));
  };
}

/// Comparisons; only Equal accepts bool operands.
template <typename OpTy, bool acceptsBool> NodeImportFn compare() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (!acceptsBool && isBool(ctx.inputType(0)))
      return ctx.fail("expects numeric operands, not bool");
    return ctx.emit<OpTy>(results, ctx.input(0), ctx.input(1));
  };
}

LogicalResult importNot(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isBool(ctx.inputType(0)))
    return ctx.fail("expects a bool input");
  return ctx.emit<NotOp>(results, ctx.input(0));
}

LogicalResult importWhere(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isBool(ctx.inputType(0)))
    return ctx.fail("the condition must be bool");
  return ctx.emit<WhereOp>(results, ctx.input(0), ctx.input(1), ctx.input(2));
}

LogicalResult importBitShift(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  auto element = dyn_cast<IntegerType>(ctx.inputType(0).getElementType());
  if (!element || element.getWidth() == 1 || element.isSignless())
    return ctx.fail("BitShift expects unsigned integer operands");
  std::string direction = ctx.stringAttr("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.fail("'direction' must be \"LEFT\" or \"RIGHT\"");
  return ctx.emit<BitShiftOp>(results, ctx.input(0), ctx.input(1),
                              direction == "LEFT" ? ctx.builder.getUnitAttr()
                                                  : UnitAttr());
}

} // namespace

void mlir::tessel::onnx_import::registerLogicImporters(
    ImporterRegistry &registry) {
  registry.add("And", logical<AndOp>(), {2, 2}, 7);
  registry.add("Or", logical<OrOp>(), {2, 2}, 7);
  registry.add("Xor", logical<XorOp>(), {2, 2}, 7);
  registry.add("Not", importNot, {1, 1});
  registry.add("Equal", compare<EqualOp, true>(), {2, 2}, 7);
  registry.add("Less", compare<LessOp, false>(), {2, 2}, 7);
  registry.add("LessOrEqual", compare<LessOrEqualOp, false>(), {2, 2}, 12);
  registry.add("Greater", compare<GreaterOp, false>(), {2, 2}, 7);
  registry.add("GreaterOrEqual", compare<GreaterOrEqualOp, false>(), {2, 2},
               12);
  registry.add("Where", importWhere, {3, 3}, 9);
  registry.add("BitShift", importBitShift, {2, 2}, 11);
}
