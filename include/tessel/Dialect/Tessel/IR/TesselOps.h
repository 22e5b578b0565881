//===- TesselOps.h - The tessel dialect's operations ------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

namespace mlir::tessel {

/// An elementwise op (TesselElementwiseOps.td): each result element comes
/// from the operands' elements at the same index, after numpy broadcasting.
template <typename ConcreteType>
class ElementwiseTrait
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ElementwiseTrait> {};

/// Infers the type of a broadcasting binary op: numpy's multidirectional
/// broadcasting of the two shapes; the element types must be equal.
LogicalResult inferBroadcastType(std::optional<Location> loc, Type lhs,
                                 Type rhs, SmallVectorImpl<Type> &types);

/// Infers the type of a comparison: the broadcast shape of operands of one
/// element type, with `i1` elements.
LogicalResult inferCompareType(std::optional<Location> loc, Type lhs, Type rhs,
                               SmallVectorImpl<Type> &types);

/// Infers the type of a float classification (is_nan, is_inf): the operand's
/// shape with `i1` elements.
LogicalResult inferPredicateType(std::optional<Location> loc, Type input,
                                 SmallVectorImpl<Type> &types);

/// Computes the numpy broadcast of two static shapes, or fails.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// Output extent of a sliding window (convolution or pooling) along one
/// spatial dimension, following ONNX's rules; fails if it would be < 1.
FailureOr<int64_t> slidingWindowExtent(int64_t input, int64_t kernel,
                                       int64_t stride, int64_t padBegin,
                                       int64_t padEnd, int64_t dilation,
                                       bool ceilMode);

/// Infers the type of a reduction over `axes` (non-negative, strictly
/// increasing, in range), keeping them as extent 1 with `keepdims`.
LogicalResult inferReductionType(std::optional<Location> loc, Type input,
                                 ArrayRef<int64_t> axes, bool keepdims,
                                 SmallVectorImpl<Type> &types);

/// Infers the `i64` type of an arg-reduction along `axis`.
LogicalResult inferArgReductionType(std::optional<Location> loc, Type input,
                                    int64_t axis, bool keepdims,
                                    SmallVectorImpl<Type> &types);

} // namespace mlir::tessel

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.h.inc"

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELOPS_H
