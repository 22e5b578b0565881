//===- AxisTracking.h - Where a value holds a model axis --------*- C++ -*-===//
//
// A dynamic dimension of a model (the batch of a dynamic-batch artifact,
// the sequence of a padded one) enters as one dimension of the function's
// arguments. Each value computed from them holds it somewhere: in one
// dimension whose index is `... + i * stride + ...` for the axis' index `i`
// (a transpose moves it; a reshape that folds it into a wider dimension,
// `[S, N, D]` collapsed to `[S * N, D]`, keeps `i` in rows `i * N + n`).
// The passes that follow such an axis through the linalg IR share these
// helpers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_AXISTRACKING_H
#define TESSEL_LIB_CODEGEN_CPU_AXISTRACKING_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::tessel::cpu {

/// Where a value holds an axis: the dimension, and the stride of the axis'
/// index within that dimension's index.
struct AxisPos {
  int64_t dim = 0;
  int64_t stride = 1;
  bool operator==(const AxisPos &other) const {
    return dim == other.dim && stride == other.stride;
  }
};

/// Whether `op`'s body reads the index of loop `loop`.
bool readsLoopIndex(Operation *op, unsigned loop);

/// Whether `value` is the same all along dimension `dim`: an empty tensor,
/// a splat constant, or what a structured op writes there from values that
/// do not vary along the loop that walks it.
bool isUniformAlong(Value value, int64_t dim);

/// Where the result of a reshape from shape `from` to shape `to` (row-major
/// order kept) holds an axis of `extent` that the source holds at `pos`;
/// none when the reshape spreads it over dimensions.
std::optional<AxisPos> reshapeAxis(AxisPos pos, ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to, int64_t extent);

/// Whether a slice with these static `offsets`, `sizes` and `strides`
/// takes dimension `dim`, of `full` elements, whole.
bool takesWhole(ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                ArrayRef<int64_t> strides, int64_t dim, int64_t full);

/// The dimension of `slice`'s result that dimension `dim` of its source
/// becomes (the rank-reduced ones dropped before it); `dim` is kept.
int64_t slicedDim(tensor::ExtractSliceOp slice, int64_t dim);

/// The dimension of `insert`'s destination that each dimension of its
/// source fills (the rank-reduced ones skipped).
SmallVector<int64_t> insertedDims(tensor::InsertSliceOp insert);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_AXISTRACKING_H
