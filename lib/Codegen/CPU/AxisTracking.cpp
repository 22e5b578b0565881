//===- AxisTracking.cpp - Where a value holds a model axis ----------------===//

#include "AxisTracking.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

bool mlir::tessel::cpu::readsLoopIndex(Operation *op, unsigned loop) {
  bool reads = false;
  op->walk([&](linalg::IndexOp index) { reads |= index.getDim() == loop; });
  return reads;
}

bool mlir::tessel::cpu::isUniformAlong(Value value, int64_t dim) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::EmptyOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    return dense && dense.isSplat();
  }
  auto op = dyn_cast<linalg::LinalgOp>(def);
  if (!op || !op.hasPureTensorSemantics())
    return false;
  unsigned index = cast<OpResult>(value).getResultNumber();
  OpOperand *init = op.getDpsInitOperand(index);
  auto loop =
      dyn_cast<AffineDimExpr>(op.getMatchingIndexingMap(init).getResult(dim));
  if (!loop || readsLoopIndex(op, loop.getPosition()))
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isFunctionOfDim(loop.getPosition()))
      return false;
  return isUniformAlong(init->get(), dim);
}

bool mlir::tessel::cpu::takesWhole(ArrayRef<int64_t> offsets,
                                   ArrayRef<int64_t> sizes,
                                   ArrayRef<int64_t> strides, int64_t dim,
                                   int64_t full) {
  return offsets[dim] == 0 && sizes[dim] == full && strides[dim] == 1;
}

int64_t mlir::tessel::cpu::slicedDim(tensor::ExtractSliceOp slice,
                                     int64_t dim) {
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  int64_t at = dim;
  for (int64_t d = 0; d < dim; ++d)
    at -= dropped.test(d);
  return at;
}

SmallVector<int64_t>
mlir::tessel::cpu::insertedDims(tensor::InsertSliceOp insert) {
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < insert.getDestType().getRank(); ++d)
    if (!dropped.test(d))
      dims.push_back(d);
  return dims;
}

std::optional<mlir::tessel::cpu::AxisPos>
mlir::tessel::cpu::reshapeAxis(AxisPos pos, ArrayRef<int64_t> from,
                               ArrayRef<int64_t> to, int64_t extent) {
  // The axis' stride in the flattened tensor must fall on one dimension of
  // the result, whose extent is a whole number of the axis at that stride.
  int64_t flat = pos.stride;
  for (int64_t d = pos.dim + 1; d < int64_t(from.size()); ++d)
    flat *= from[d];
  int64_t inner = 1; // the product of the extents after dimension j
  for (int64_t j = int64_t(to.size()) - 1; j >= 0 && inner <= flat; --j) {
    if (flat % inner == 0 && to[j] % (flat / inner * extent) == 0)
      return AxisPos{j, flat / inner};
    inner *= to[j];
  }
  return std::nullopt;
}
