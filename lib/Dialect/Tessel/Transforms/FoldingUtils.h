//===- FoldingUtils.h - Helpers for folding constants into weights -*- C++
//-*-===//
//
// The graph passes that fold an affine map into a conv's or gemm's weights
// (BatchNorm on the output side, input normalisation on the input side)
// read and write f32 constants the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_FOLDINGUTILS_H
#define TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_FOLDINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <vector>

namespace mlir::tessel {

/// The f32 values of a constant tensor (row-major), or nothing when `value`
/// is null, not a constant, or not f32.
std::optional<std::vector<float>> getConstantF32Values(Value value);

/// A `tessel.constant` of f32 `values` with `shape`.
Value createF32Constant(OpBuilder &builder, Location loc,
                        ArrayRef<int64_t> shape, ArrayRef<float> values);

/// A rank-0 `tessel.constant` holding one f32 `value`.
Value createF32Scalar(OpBuilder &builder, Location loc, float value);

/// Whether every operand and the first result of `op` are f32 tensors.
bool hasOnlyF32Tensors(Operation *op);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_FOLDINGUTILS_H
