//===- PackConvolutionWeights.cpp - Weights packed for filter tiles -------===//
//
// The weight-packing step of the convolution kernel vectorized over
// filters: constant weights reordered at compile time so that each tap's
// filters of a tile are one contiguous vector.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

DenseElementsAttr mlir::tessel::cpu::packWeights(DenseElementsAttr weights,
                                                 int64_t block) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t filters = type.getDimSize(0);
  int64_t inner = type.getNumElements() / filters; // Cg * KH * KW
  int64_t blocks = llvm::divideCeil(filters, block);
  SmallVector<float> source(weights.getValues<float>());
  SmallVector<float> packed(blocks * inner * block);
  for (int64_t fb = 0; fb < blocks; ++fb) {
    // The last block holds the last `block` filters.
    int64_t first = std::min(fb * block, filters - block);
    for (int64_t l = 0; l < block; ++l)
      for (int64_t i = 0; i < inner; ++i)
        packed[(fb * inner + i) * block + l] = source[(first + l) * inner + i];
  }
  SmallVector<int64_t> shape = {blocks};
  shape.append(type.getShape().begin() + 1, type.getShape().end());
  shape.push_back(block);
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()),
      ArrayRef<float>(packed));
}
