//===- FoldUtils.h - Helpers shared by the tessel dialect's folders -*- C++ -*-===//
//
// Private to lib/Dialect/Tessel/IR.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_TESSEL_IR_FOLDUTILS_H
#define TESSEL_LIB_DIALECT_TESSEL_IR_FOLDUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tessel::detail {

/// Constants larger than this are not copied by folding.
constexpr int64_t kMaxFoldElements = 1 << 16;

/// `attr` as a dense constant small enough to fold, or null.
DenseElementsAttr getFoldable(Attribute attr);

/// The linear index into a broadcast operand of shape `shape` for the result
/// multi-index `idx` (numpy rules: leading dims dropped, size-1 dims read 0).
int64_t broadcastLinearIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape);

/// The element of the broadcast operand `dense` (its values `values`) for
/// the result multi-index `idx`.
template <typename T>
const T &broadcastElement(DenseElementsAttr dense, ArrayRef<T> values,
                          ArrayRef<int64_t> idx) {
  if (dense.isSplat())
    return values[0];
  return values[broadcastLinearIndex(idx, dense.getType().getShape())];
}

/// Calls `fn(n, idx)` for every element of `type` in row-major order: `n`
/// its linear index, `idx` its multi-index.
void forEachIndex(RankedTensorType type,
                  function_ref<void(int64_t, ArrayRef<int64_t>)> fn);

} // namespace mlir::tessel::detail

#endif // TESSEL_LIB_DIALECT_TESSEL_IR_FOLDUTILS_H
