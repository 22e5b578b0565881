//===- PackConvolutionWeights.cpp - Weights packed for filter tiles -------===//
//
// The weight-packing step of the convolution kernel vectorized over
// filters: constant weights reordered at compile time so that each tap's
// filters of a tile are one contiguous vector.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"

using namespace mlir;

DenseElementsAttr mlir::tessel::cpu::packWeights(DenseElementsAttr weights,
                                                 int64_t block) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t filters = type.getDimSize(0);
  int64_t inner = type.getNumElements() / filters; // Cg * KH * KW
  SmallVector<float> source(weights.getValues<float>());
  SmallVector<float> packed(source.size());
  for (int64_t f = 0; f < filters; ++f)
    for (int64_t i = 0; i < inner; ++i)
      packed[((f / block) * inner + i) * block + f % block] =
          source[f * inner + i];
  SmallVector<int64_t> shape = {filters / block};
  shape.append(type.getShape().begin() + 1, type.getShape().end());
  shape.push_back(block);
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()),
      ArrayRef<float>(packed));
}
