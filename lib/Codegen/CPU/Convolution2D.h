//===- Convolution2D.h - The 2-D convolution generic ------------*- C++ -*-===//
//
// Internal to lib/Codegen/CPU: the 7-loop convolution generic that
// tessel-convert-tessel-to-linalg emits (NCHW or NHWC), recognised once for
// the passes that rewrite it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_CONVOLUTION2D_H
#define TESSEL_LIB_CODEGEN_CPU_CONVOLUTION2D_H

#include "tessel/Codegen/CPU/Transforms.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tessel::cpu {

/// What the rewrite needs to know of one convolution.
struct Conv2D {
  int64_t batch, filters, channelsPerGroup, filtersPerGroup;
  int64_t outHeight, outWidth, kernelHeight, kernelWidth;
  int64_t strideH, strideW, dilationH, dilationW;
  /// NHWC input and output (tessel-assign-layouts), not NCHW.
  bool channelsLast = false;
  /// Narrow inputs extended in the body: 8-bit ones into an i32 output, or
  /// bf16 ones into an f32 output (not f32 inputs). Their kernels sum
  /// `reductionGroup` reduction steps per lane (4 bytes, 2 bf16).
  bool narrow = false;
  int64_t reductionGroup = 1;

  /// The output (and input) tensor dimension of the channels, the rows and
  /// the columns.
  unsigned channelDim() const { return channelsLast ? 3 : 1; }
  unsigned rowDim() const { return channelsLast ? 1 : 2; }
  unsigned colDim() const { return channelsLast ? 2 : 3; }
  /// Indices (n, channel, row, column) in the layout's order.
  SmallVector<Value> at(Value n, Value c, Value h, Value w) const {
    if (channelsLast)
      return {n, h, w, c};
    return {n, c, h, w};
  }
  /// Depthwise: one channel per group, one filter per group.
  bool isDepthwise() const {
    return channelsPerGroup == 1 && filtersPerGroup == 1;
  }
};

/// Recognizes the NCHW convolution generic, or its NHWC form (input and
/// output indexed [N, H, W, C]); loops are (n, f, oh, ow, c, kh, kw), f32,
/// the body `out + in * w`, static shapes. With `allowNarrow`, also the
/// i32 convolution of 8-bit values extended in the body
/// (tessel-narrow-integer-products) and the f32 one of bf16 values
/// (--precision=bf16), `Conv2D::narrow`: only the product rewrite
/// (ConvolutionAsProduct.cpp) takes those.
std::optional<Conv2D> matchConv2D(linalg::GenericOp op,
                                  bool allowNarrow = false);

/// The micro-kernel the convolution's register tiles run on: the options'
/// one, else the one the target they describe (`describeVectorTarget`) has
/// for its input x weights -> output element types; null when there is none
/// or it sums groups of reduction steps (the kernels take one tap at a
/// time).
const MicroKernel *getConvolutionMicroKernel(linalg::GenericOp op,
                                             const ConvolutionTilingOptions &options);

/// The multiply-adds of `conv` (saturating): what its loops are marked
/// parallel by.
int64_t convolutionWork(const Conv2D &conv);

/// Whether `conv`'s kernel, over a batch, reads less walking the images
/// inside each block of `block` filters than the blocks inside each image:
/// inside, each image's input (`inHeight` x `inWidth`, unpadded, of a
/// group's channels) is read again for every block; outside, each block's
/// weights again for every image. So: whether a block's weights
/// (`block` x KH x KW per channel) outnumber an image's input plane (3x3
/// layers of 7 x 7 and 14 x 14, not 1x1 ones).
bool imagesInsideFilterBlocks(const Conv2D &conv, int64_t block,
                              int64_t inHeight, int64_t inWidth);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_CONVOLUTION2D_H
