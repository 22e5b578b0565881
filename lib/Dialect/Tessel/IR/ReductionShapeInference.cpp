//===- ReductionShapeInference.cpp - Result types of reductions -----------===//
//
// Reductions over a set of axes and arg-reductions along one axis. As in
// ShapeInference.cpp, a failing inference is the op's verifier error.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tessel;

/// Formats a list of indices as `[0, 2, 1]` for diagnostics.
static std::string formatList(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return s;
}

LogicalResult mlir::tessel::inferReductionType(std::optional<Location> loc,
                                               Type input,
                                               ArrayRef<int64_t> axes,
                                               bool keepdims,
                                               SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(input);
  if (!x)
    return emitOptionalError(loc, "input must be a ranked tensor");
  int64_t previous = -1;
  for (int64_t axis : axes) {
    if (axis <= previous || axis >= x.getRank())
      return emitOptionalError(loc, "axes ", formatList(axes),
                               " must be strictly increasing and in [0, ",
                               x.getRank(), ")");
    previous = axis;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(x.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult
mlir::tessel::inferArgReductionType(std::optional<Location> loc, Type input,
                                    int64_t axis, bool keepdims,
                                    SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(input);
  if (!x)
    return emitOptionalError(loc, "input must be a ranked tensor");
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             x.getRank());
  SmallVector<int64_t> shape(x.getShape());
  if (keepdims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  types.push_back(
      RankedTensorType::get(shape, IntegerType::get(x.getContext(), 64)));
  return success();
}
