//===- CastImporters.cpp - Cast and CastLike ------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

namespace {

/// Casts input 0 to `to`. `saturate` (opset 19) only affects float8 targets,
/// which are refused, so it is ignored.
LogicalResult emitCast(NodeContext &ctx, SmallVectorImpl<Value> &results,
                       Type to) {
  if (ctx.inputType(0).getElementType() == to) {
    results.push_back(ctx.input(0));
    return success();
  }
  return ctx.emit<CastOp>(results, ctx.input(0), TypeAttr::get(to));
}

LogicalResult importCast(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  const onnx::AttributeProto *to = ctx.attr("to");
  if (!to || to->type() != onnx::AttributeProto::INT)
    return ctx.fail("Cast requires an integer 'to' attribute");
  Type element = convertElementType(ctx.builder.getContext(), to->i());
  if (!element)
    return ctx.fail("Cast to " + elementTypeName(to->i()) +
                        " is not supported (Tessel has no such element type)",
                    ErrorCode::UnsupportedType);
  return emitCast(ctx, results, element);
}

LogicalResult importCastLike(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  return emitCast(ctx, results, ctx.inputType(1).getElementType());
}

} // namespace

void mlir::tessel::onnx_import::registerCastImporters(
    ImporterRegistry &registry) {
  registry.add("Cast", importCast, {1, 1}, 6);
  registry.add("CastLike", importCastLike, {2, 2}, 15);
}
