//===- TransposeInRegisters.cpp - Small transposes in registers -----------===//
//
// Block transposes of up to a vector's lanes of vectors, by rounds of
// two-source shuffles.
//
//===----------------------------------------------------------------------===//

#include "TransposeInRegisters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

SmallVector<Value> mlir::tessel::cpu::transposeBlocks(OpBuilder &b,
                                                      Location loc,
                                                      ArrayRef<Value> rows,
                                                      int64_t lanes) {
  int64_t count = rows.size();
  int64_t blockSize = llvm::PowerOf2Ceil(count);
  auto vecType = cast<VectorType>(rows.front().getType());
  SmallVector<Value> m(rows);
  if (count < blockSize)
    m.resize(
        blockSize,
        arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vecType, b.getF32FloatAttr(0))));
  for (int64_t d = 1; d < blockSize; d *= 2)
    for (int64_t j = 0; j < blockSize; ++j) {
      if (j & d)
        continue;
      SmallVector<int64_t> low, high;
      for (int64_t lane = 0; lane < lanes; ++lane) {
        bool set = (lane % blockSize) & d;
        low.push_back(set ? lanes + lane - d : lane);
        high.push_back(set ? lanes + lane : lane + d);
      }
      Value a = m[j], c = m[j + d];
      m[j] = vector::ShuffleOp::create(b, loc, a, c, low);
      m[j + d] = vector::ShuffleOp::create(b, loc, a, c, high);
    }
  // Row j's block k holds filter k * blockSize + j at the tile's positions.
  SmallVector<Value> columns(lanes);
  for (int64_t k = 0; k < lanes / blockSize; ++k)
    for (int64_t j = 0; j < blockSize; ++j)
      columns[k * blockSize + j] = vector::ExtractStridedSliceOp::create(
          b, loc, m[j], ArrayRef<int64_t>{k * blockSize},
          ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
  return columns;
}
