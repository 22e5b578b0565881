//===- ElementwiseShapeInference.cpp - Result types of elementwise ops ----===//
//
// Elementwise ops whose result type is not simply their operand's: bool
// results (comparisons, classifications), mixed-type power, the three-way
// broadcast of `where`, and casts.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tessel;

/// The broadcast shape of `lhs` and `rhs`, ignoring element types.
static FailureOr<SmallVector<int64_t>>
broadcastOperands(std::optional<Location> loc, Type lhs, Type rhs) {
  auto l = dyn_cast<RankedTensorType>(lhs), r = dyn_cast<RankedTensorType>(rhs);
  if (!l || !r)
    return emitOptionalError(loc, "operands must be ranked tensors");
  // Reuse the diagnostics of the same-element-type case.
  SmallVector<Type, 1> types;
  if (failed(inferBroadcastType(
          loc, l, RankedTensorType::get(r.getShape(), l.getElementType()),
          types)))
    return failure();
  return SmallVector<int64_t>(cast<RankedTensorType>(types[0]).getShape());
}

LogicalResult mlir::tessel::inferCompareType(std::optional<Location> loc,
                                             Type lhs, Type rhs,
                                             SmallVectorImpl<Type> &types) {
  SmallVector<Type, 1> same;
  if (failed(inferBroadcastType(loc, lhs, rhs, same)))
    return failure();
  auto shape = cast<RankedTensorType>(same[0]).getShape();
  types.push_back(
      RankedTensorType::get(shape, IntegerType::get(lhs.getContext(), 1)));
  return success();
}

LogicalResult mlir::tessel::inferPredicateType(std::optional<Location> loc,
                                               Type input,
                                               SmallVectorImpl<Type> &types) {
  auto tensor = dyn_cast<RankedTensorType>(input);
  if (!tensor)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  types.push_back(RankedTensorType::get(
      tensor.getShape(), IntegerType::get(input.getContext(), 1)));
  return success();
}

LogicalResult PowOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  Type base = adaptor.getLhs().getType();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastOperands(loc, base, adaptor.getRhs().getType());
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(
      *shape, cast<RankedTensorType>(base).getElementType()));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  SmallVector<Type, 1> values;
  if (failed(inferBroadcastType(loc, adaptor.getLhs().getType(),
                                adaptor.getRhs().getType(), values)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastOperands(loc, values[0], adaptor.getCondition().getType());
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(
      *shape, cast<RankedTensorType>(values[0]).getElementType()));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  TypeAttr to = adaptor.getToAttr();
  if (!to)
    return emitOptionalError(loc, "requires a 'to' element type");
  types.push_back(RankedTensorType::get(input.getShape(), to.getValue()));
  return success();
}
