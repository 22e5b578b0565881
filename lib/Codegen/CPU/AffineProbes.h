//===- AffineProbes.h - Reading index maps by evaluating them ---*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The convolution and window matchers read the
// strides and dilations of an input map by evaluating its expressions at a
// few loop indices, whatever form the expressions were built or simplified
// into.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_AFFINEPROBES_H
#define TESSEL_LIB_CODEGEN_CPU_AFFINEPROBES_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/SmallVector.h"

#include <initializer_list>
#include <optional>
#include <utility>

namespace mlir::tessel::cpu {

/// `expr` evaluated at the given loop indices, if it folds to a constant.
inline std::optional<int64_t> evaluate(AffineExpr expr,
                                       ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> values;
  for (int64_t d : dims)
    values.push_back(getAffineConstantExpr(d, expr.getContext()));
  AffineExpr folded = simplifyAffineExpr(expr.replaceDims(values), dims.size(),
                                         /*numSymbols=*/0);
  if (auto constant = dyn_cast<AffineConstantExpr>(folded))
    return constant.getValue();
  return std::nullopt;
}

/// `numDims` loop indices with the given (dim, value) pairs set, the others
/// 0.
inline SmallVector<int64_t>
at(unsigned numDims, std::initializer_list<std::pair<int, int64_t>> set) {
  SmallVector<int64_t> dims(numDims, 0);
  for (auto [dim, value] : set)
    dims[dim] = value;
  return dims;
}

/// Whether `expr`, over `numDims` loops, is `a * d<x> + b * d<y>` for
/// constants a, b >= 1; returns them.
inline std::optional<std::pair<int64_t, int64_t>>
linearIn(AffineExpr expr, int x, int y, unsigned numDims) {
  for (int d = 0; d < static_cast<int>(numDims); ++d)
    if (d != x && d != y && expr.isFunctionOfDim(d))
      return std::nullopt;
  std::optional<int64_t> zero = evaluate(expr, at(numDims, {}));
  std::optional<int64_t> a = evaluate(expr, at(numDims, {{x, 1}}));
  std::optional<int64_t> b = evaluate(expr, at(numDims, {{y, 1}}));
  std::optional<int64_t> both = evaluate(expr, at(numDims, {{x, 3}, {y, 5}}));
  if (!zero || !a || !b || !both || *zero != 0 || *a < 1 || *b < 1 ||
      *both != 3 * *a + 5 * *b)
    return std::nullopt;
  return std::make_pair(*a, *b);
}

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_AFFINEPROBES_H
