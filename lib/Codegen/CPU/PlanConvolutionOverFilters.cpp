//===- PlanConvolutionOverFilters.cpp - Planning the over-filters kernel --===//
//
// The planning step of the convolution kernel vectorized over filters: the
// register tile (filter vectors x positions) the accumulator budget allows,
// and what the kernel's tiles share (where they read, how they store),
// decided before any IR is built.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"
#include "TileSizes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/MathExtras.h"

#include <tuple>

using namespace mlir;
using namespace mlir::tessel::cpu;

std::optional<FilterTile>
mlir::tessel::cpu::planFilterTile(const Conv2D &conv, int64_t lanes,
                                  bool padded, int64_t accumulators) {
  int64_t tiled = conv.channelsLast && conv.isDepthwise()
                      ? conv.filters
                      : conv.filtersPerGroup;
  if (tiled % lanes != 0)
    return std::nullopt;
  int64_t positions = conv.outHeight * conv.outWidth;
  // Kernels larger than 3x3 keep small tiles (measurements:
  // bench/notes/vectorize-convolutions.md).
  int64_t budget = conv.kernelHeight * conv.kernelWidth > 9
                       ? std::min<int64_t>(accumulators, 12)
                       : accumulators;
  std::optional<FilterTile> best;
  // The most accumulators; among those, NCHW, positions that are one
  // whole vector (each filter's outputs stored as one full vector, not
  // two halves written by neighbouring tiles; channels last stores along
  // the filters either way); then the fewest vectors and positions.
  // (Measurements: bench/notes/vectorize-convolutions.md.)
  auto score = [&](const FilterTile &t) {
    return std::make_tuple(t.filterVectors * t.positions,
                           !conv.channelsLast && t.positions == lanes,
                           -(t.filterVectors + t.positions));
  };
  auto consider = [&](FilterTile t) {
    if (!best || score(t) > score(*best))
      best = t;
  };
  for (int64_t fv = 1; fv <= 3; ++fv) {
    if (tiled % (fv * lanes) != 0 || fv > budget)
      continue;
    if (!padded) {
      consider({fv, pickDivisor(positions, {}, budget / fv)});
      continue;
    }
    consider({fv, pickDivisor(conv.outWidth, {}, budget / fv), true});
  }
  return best;
}

FilterKernel mlir::tessel::cpu::planFilterKernel(
    linalg::GenericOp op, const Conv2D &conv, FilterTile tile, int64_t lanes,
    std::optional<ConvPadding> padding, bool fuseEpilogue) {
  MLIRContext *ctx = op.getContext();
  FilterKernel k;
  k.conv = conv;
  k.tile = tile;
  k.lanes = lanes;
  k.block = tile.filterVectors * lanes;
  k.padding = std::move(padding);
  k.prologue = prologueOf(op, conv.channelDim(), fuseEpilogue);
  k.epilogue = epilogueOf(op, fuseEpilogue);
  k.input = k.padding ? k.padding->source : op.getDpsInputs()[0];
  auto inputType = cast<RankedTensorType>(k.input.getType());
  k.top = k.padding ? k.padding->top : 0;
  k.left = k.padding ? k.padding->left : 0;
  k.inHeight = inputType.getDimSize(conv.rowDim());
  k.inWidth = inputType.getDimSize(conv.colDim());
  k.vecType = VectorType::get({lanes}, Float32Type::get(ctx));
  // Channels last, a depthwise tile reads its channels' inputs as
  // vectors (each filter reads its own channel) instead of broadcasting
  // one input to all its filters.
  k.vectorInputs = conv.channelsLast && conv.isDepthwise();
  // A channels-last input that is a transpose of an NCHW tensor (the
  // graph input in front of the first layer) is read where it comes
  // from, element by element: no transposed copy.
  if (conv.channelsLast && !k.vectorInputs)
    if (auto t = k.input.getDefiningOp<linalg::TransposeOp>();
        t && t.getPermutation() == ArrayRef<int64_t>{0, 2, 3, 1} &&
        t.hasPureTensorSemantics()) {
      k.readThrough = t;
      k.input = t.getDpsInputs()[0];
    }
  k.alongFilters = AffineMapAttr::get(
      AffineMap::get(4, 0, getAffineDimExpr(conv.channelDim(), ctx)));

  // A tile's positions are consecutive columns of one row (a row segment,
  // or row-major tiles that divide the rows): its accumulators, vectors
  // along the filters, are transposed in registers and stored along the
  // row, instead of lane by lane a plane apart (what that cost:
  // bench/notes/vectorize-convolutions.md).
  // Row-major tiles that cross rows (28 columns in tiles of 8 positions)
  // store the same way into the output viewed as [N, F, H*W], where their
  // positions are contiguous, when the output is only written (the
  // accumulators start from the bias or 0).
  // (Channels last, the filters are contiguous already.)
  bool transposable = !conv.channelsLast && tile.positions > 1 &&
                      int64_t(llvm::PowerOf2Ceil(tile.positions)) <= lanes;
  k.rowStores =
      transposable && (tile.rowSegment || conv.outWidth % tile.positions == 0);
  k.planeStores =
      transposable && !k.rowStores && (k.prologue.bias || k.prologue.zero);

  return k;
}
