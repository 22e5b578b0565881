//===- ConvolutionPadding.h - Reading a padded input unpadded ---*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The convolution kernels read a zero-padded
// input where it comes from, before the padding (and before a per-channel
// shift a folded input normaliser leaves), and skip or mask the taps that
// fall in the padding instead of reading a padded copy.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONPADDING_H
#define TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONPADDING_H

#include "Convolution2D.h"

#include <optional>

namespace mlir::tessel::cpu {

/// The zero padding of a convolution's input: the kernel reads `source`
/// directly (output row 0 reads from row -`top`, column 0 from column
/// -`left`) and skips the taps that fall outside it, instead of reading a
/// padded copy. With `shift` (one value per input channel), what is padded
/// is `source + shift[c]` (the shift a folded input normaliser leaves,
/// `shiftOp`), and the kernel adds it as it reads.
struct ConvPadding {
  Value source;
  int64_t top = 0, left = 0;
  SmallVector<float> shift;
  Operation *shiftOp = nullptr;
};

/// The padding of `conv`'s input when that is a static `tensor.pad` of the
/// rows and columns by 0 (of a per-channel shift of `source`, or of
/// `source`; channels last, of `source` only); std::nullopt otherwise.
std::optional<ConvPadding> paddingOf(linalg::GenericOp conv,
                                     const Conv2D &geometry);

/// Where a tap reads, along one dimension, over all the tiles of `tile`
/// outputs of a dimension of `size`: the `q`-th output of a tile at its tap
/// `k` reads input `(t + q) * stride + k * dilation - offset` of
/// `inputSize` (t the tile's start).
enum class Reach { Always, Never, Sometimes };

Reach reachOf(int64_t size, int64_t tile, int64_t q, int64_t k, int64_t stride,
              int64_t dilation, int64_t offset, int64_t inputSize);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONPADDING_H
