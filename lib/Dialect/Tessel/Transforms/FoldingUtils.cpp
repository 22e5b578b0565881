//===- FoldingUtils.cpp - Helpers for folding constants into weights ------===//

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Matchers.h"

namespace mlir::tessel {

std::optional<std::vector<float>> getConstantF32Values(Value value) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return std::nullopt;
  auto values = attr.getValues<float>();
  return std::vector<float>(values.begin(), values.end());
}

Value createF32Constant(OpBuilder &builder, Location loc,
                        ArrayRef<int64_t> shape, ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, builder.getF32Type());
  return ConstantOp::create(builder, loc, DenseElementsAttr::get(type, values));
}

Value createF32Scalar(OpBuilder &builder, Location loc, float value) {
  return createF32Constant(builder, loc, {}, {value});
}

bool hasOnlyF32Tensors(Operation *op) {
  for (Type type : op->getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getElementType().isF32())
      return false;
  }
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return result && result.getElementType().isF32();
}

} // namespace mlir::tessel
