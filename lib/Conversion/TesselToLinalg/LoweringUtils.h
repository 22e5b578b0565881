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

/// Combines one element into an accumulator: `combine(b, loc, args, acc)`
/// where `args` are the generic's inputs at the current point.
using CombineBuilder =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value)>;

/// Reduces `inputs` over `axes` (sorted, non-negative) with a
/// linalg.generic. The first input has the full shape; any others have that
/// shape without `axes` and are read broadcast along them. The result has the
/// first input's shape without `axes`, starts at `init` and folds each point
/// in with `combine`.
Value buildReduction(OpBuilder &b, Location loc, ValueRange inputs,
                     ArrayRef<int64_t> axes, TypedAttr init,
                     CombineBuilder combine);

/// The index (`i64`) of the extreme of `input` along `axis`, in the input
/// shape without `axis`: the largest with `max`, else the smallest; ties go
/// to the first index, or the last with `selectLast`.
Value buildArgReduction(OpBuilder &b, Location loc, Value input, int64_t axis,
                        bool max, bool selectLast);

/// Reshapes a reduced value (the full shape without `axes`) to `keptType`,
/// the full shape with `axes` of extent 1.
Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        RankedTensorType keptType, ArrayRef<int64_t> axes);

/// Element-type generic arithmetic: float ops on floats, signed integer ops
/// on signless integers (unsigned ones on i1, where signed order is wrong).
Value createAdd(OpBuilder &b, Location loc, Value x, Value y);
Value createMul(OpBuilder &b, Location loc, Value x, Value y);
Value createMax(OpBuilder &b, Location loc, Value x, Value y);
Value createMin(OpBuilder &b, Location loc, Value x, Value y);

/// The largest value (or +inf) of a float or signed integer type; with
/// `lowest`, the smallest (or -inf). For i1: 1 and 0.
TypedAttr getExtremeAttr(Type type, bool lowest);

} // namespace mlir::tessel

#endif // TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H
