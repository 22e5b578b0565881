//===- LoweringUtils.h - Helpers shared by the tessel lowerings -*- C++ -*-===//

#ifndef TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H
#define TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tessel {

/// Builds the body of a linalg.generic from its block arguments.
using BodyBuilder =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The map that reads `operand` (of rank <= `resultRank`) broadcast into a
/// result of shape `resultShape`: leading dimensions are dropped and size-1
/// dimensions that the result expands read index 0.
AffineMap getBroadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                          ArrayRef<int64_t> resultShape);

/// A parallel linalg.generic producing `resultType` from `inputs` broadcast
/// into it, one `body` per element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, BodyBuilder body);

/// `tensor.empty` of `type` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  TypedAttr value);

/// Pads the trailing two (spatial) dimensions of an NCHW tensor with `value`.
/// `pads` is [top, left, bottom, right]. Returns `input` when all are zero.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, TypedAttr value);

/// A float attribute of `type` holding `value`.
TypedAttr getFloatAttr(Type type, double value);

/// The most negative finite value (or -inf) of a float type.
TypedAttr getLowestAttr(Type type);

} // namespace mlir::tessel

#endif // TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H
