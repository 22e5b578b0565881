//===- TransposeConstantRhs.cpp - Transposing a product's constant RHS ----===//
//
// A constant right-hand side stored transposed (ONNX `Gemm` with
// `transB = 1`, as torch exports `Linear`) is transposed once at compile
// time, so that every step of the product loads a contiguous row of it.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <vector>

using namespace mlir;
using namespace mlir::tessel;

LogicalResult mlir::tessel::transposeConstantRhs(RewriterBase &rewriter,
                                                 linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap rhsMap = maps[1];
  int64_t rank = rhsMap.getNumResults();
  if (rank < 2 || !rhsMap.isProjectedPermutation())
    return failure();
  DenseElementsAttr value;
  // Any float constant (f32, and a model's f16 or bf16 weights), moved as
  // raw elements.
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !isa<FloatType>(value.getElementType()))
    return failure();
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  int64_t batch = type.getNumElements() / std::max<int64_t>(1, rows * cols);
  size_t bytes = type.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 2], shape[rank - 1]);
  auto newType = RankedTensorType::get(shape, type.getElementType());

  DenseElementsAttr attr;
  if (value.isSplat()) {
    attr = value.resizeSplat(newType);
  } else {
    ArrayRef<char> source = value.getRawData();
    std::vector<char> transposed(source.size());
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          std::copy_n(
              source.data() + (b * rows * cols + r * cols + c) * bytes, bytes,
              transposed.data() + (b * rows * cols + c * rows + r) * bytes);
    attr = DenseElementsAttr::getFromRawBuffer(newType, transposed);
  }

  rewriter.setInsertionPoint(op);
  Value constant = arith::ConstantOp::create(rewriter, op.getLoc(), attr);
  SmallVector<AffineExpr> exprs(rhsMap.getResults());
  std::swap(exprs[rank - 2], exprs[rank - 1]);
  maps[1] = AffineMap::get(rhsMap.getNumDims(), 0, exprs, op.getContext());
  rewriter.modifyOpInPlace(op, [&] {
    op.getDpsInputOperand(1)->set(constant);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  return success();
}
