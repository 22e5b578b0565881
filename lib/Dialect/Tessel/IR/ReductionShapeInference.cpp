//===- ReductionShapeInference.cpp - Result types of reductions -----------===//
//
// Reductions over a set of axes and arg-reductions along one axis. As in
// ShapeInference.cpp, a failing inference is the op's verifier error.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

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

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto axis = dyn_cast<RankedTensorType>(adaptor.getAxis().getType());
  if (!x || x.getRank() == 0)
    return emitOptionalError(loc, "input must have rank >= 1");
  if (x.getElementType().isInteger(1))
    return emitOptionalError(loc, "expects numbers, not bool");
  if (!axis || axis.getRank() > 1 || axis.getNumElements() != 1)
    return emitOptionalError(loc, "the axis must be one integer");
  types.push_back(x);
  return success();
}

std::optional<int64_t> CumSumOp::getConstantAxis() {
  DenseIntElementsAttr value;
  if (!matchPattern(getAxis(), m_Constant(&value)))
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(getInput().getType()).getRank();
  int64_t axis = (*value.begin()).getSExtValue();
  return axis < 0 ? axis + rank : axis;
}

LogicalResult CumSumOp::verify() {
  int64_t rank = cast<RankedTensorType>(getInput().getType()).getRank();
  if (std::optional<int64_t> axis = getConstantAxis())
    if (*axis < 0 || *axis >= rank)
      return emitOpError() << "axis is out of range for rank " << rank;
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x)
    return emitOptionalError(loc, "input must be a ranked tensor");
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             x.getRank());
  if (k < 0 || k > x.getDimSize(axis))
    return emitOptionalError(loc, "k = ", k, " is not in [0, ",
                             x.getDimSize(axis), "]");
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}
