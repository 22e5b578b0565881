//===- PlanConvolutionOverFilters.cpp - Planning the over-filters kernel --===//
//
// The planning step of the convolution kernel vectorized over filters: the
// register tile (filter vectors x positions) the accumulator budget allows,
// and what the kernel's tiles share (where they read, how they store),
// decided before any IR is built.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/TargetInfo.h"

#include "ConvolutionOverFilters.h"
#include "TileSizes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace mlir::tessel::cpu;

/// Accumulators past which a tile's useful work counts as no larger: a
/// 27-wide row's tiles of 3 vectors x 7 positions (21 accumulators, the
/// last tile overlapping) ran 6% slower than the 2 x 9 that divide it
/// (18), on an AVX-512 Xeon (Emerald Rapids).
static constexpr int64_t kSaturatingAccumulators = 16;

/// Windows narrower than this unroll their tap columns whatever their
/// register needs: a loop of 3 tap columns ran ResNet-18's 3x3 layers
/// 1.05-1.5x slower than the unrolled taps, spilled or not (Zen 3, AVX2:
/// bench/notes/vectorize-convolutions.md).
static constexpr int64_t kMinLoopedTapColumns = 5;

/// The most input broadcasts live at once when a tile of `positions`
/// consecutive output positions (one row's columns with `oneRow`, else
/// row-major over the output, from its first) runs its taps unrolled, tap
/// row by tap row and tap column by tap column: an input value that
/// several taps read is broadcast once and stays live from the first tap
/// that reads it to the last (taps in different rows of a tile that
/// crosses rows share values too).
static int64_t liveBroadcastsByTap(const Conv2D &conv, int64_t positions,
                                   bool oneRow) {
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> uses;
  int64_t step = 0;
  for (int64_t kh = 0; kh < conv.kernelHeight; ++kh)
    for (int64_t kw = 0; kw < conv.kernelWidth; ++kw)
      for (int64_t j = 0; j < positions; ++j, ++step) {
        int64_t oh = oneRow ? 0 : j / conv.outWidth;
        int64_t ow = oneRow ? j : j % conv.outWidth;
        std::pair<int64_t, int64_t> at = {
            oh * conv.strideH + kh * conv.dilationH,
            ow * conv.strideW + kw * conv.dilationW};
        auto [it, fresh] = uses.try_emplace(at, step, step);
        if (!fresh)
          it->second.second = step;
      }
  // Live ranges [first, last] swept in step order.
  std::vector<int64_t> delta(step + 1, 0);
  for (const auto &use : uses) {
    ++delta[use.second.first];
    --delta[use.second.second + 1];
  }
  int64_t live = 0, most = 0;
  for (int64_t d : delta)
    most = std::max(most, live += d);
  return most;
}

std::optional<FilterTile>
mlir::tessel::cpu::planFilterTile(const Conv2D &conv, int64_t lanes,
                                  bool padded, int64_t accumulators,
                                  bool fresh) {
  int64_t tiled = conv.channelsLast && conv.isDepthwise()
                      ? conv.filters
                      : conv.filtersPerGroup;
  if (tiled % lanes != 0)
    return std::nullopt;
  // The vector registers of the target this budget describes.
  int64_t registers =
      describeVectorTarget(lanes, accumulators, /*vnni=*/false, /*bf16=*/false)
          .vectorRegisters;
  // The positions the tiles walk: all of them row-major, or one row's.
  int64_t span = padded ? conv.outWidth : conv.outHeight * conv.outWidth;
  // Kernels larger than 3x3 keep small tiles (measurements:
  // bench/notes/vectorize-convolutions.md).
  int64_t budget = conv.kernelHeight * conv.kernelWidth > 9
                       ? std::min<int64_t>(accumulators, 12)
                       : accumulators;
  // The useful multiply-adds per step, as a fraction (numerator,
  // denominator): accumulators, counted up to kSaturatingAccumulators, x
  // span / computed span.
  int64_t saturation = std::min(budget, kSaturatingAccumulators);
  // The filter vectors, and those an overlapping last block computes.
  int64_t vectors = tiled / lanes;
  auto usefulWork = [&](const FilterTile &t) {
    int64_t computed = llvm::divideCeil(span, t.positions) * t.positions;
    int64_t computedVectors =
        llvm::divideCeil(vectors, t.filterVectors) * t.filterVectors;
    return std::make_pair(std::min(t.filterVectors * t.positions, saturation) *
                              span * vectors,
                          saturation * computed * computedVectors);
  };
  auto score = [&](const FilterTile &t) {
    return std::make_tuple(!t.filtersOverlapLast, !t.overlapsLast,
                           t.filterVectors * t.positions,
                           !conv.channelsLast && t.positions == lanes,
                           -(t.filterVectors + t.positions));
  };
  std::optional<FilterTile> best;
  auto consider = [&](FilterTile t) {
    if (!best) {
      best = t;
      return;
    }
    // (a / b against c / d, as a * d against c * b.)
    auto [a, b] = usefulWork(t);
    auto [c, d] = usefulWork(*best);
    if (a * d > c * b || (a * d == c * b && score(t) > score(*best)))
      best = t;
  };
  // Whether a tile of `fv` filter vectors x `positions` loops over its tap
  // columns: a wide window whose unrolled taps would keep the accumulators,
  // the weight vectors and the broadcasts they share in as many registers
  // as there are (the 7x7 stride-2 stem of ResNet-18 on AVX2: 2 x 4
  // unrolled, 16 live vectors, 2.99 ms; looped, 2.66; 1 x 8 unrolled, 23,
  // 4.01).
  bool depthwiseLast = conv.channelsLast && conv.isDepthwise();
  bool pointwise = conv.kernelHeight * conv.kernelWidth == 1;
  // Windows that share no input (a patch embedding: stride = kernel) gain
  // nothing from unrolled taps, whose broadcasts the tiles would share, and
  // loop over their tap columns whatever the registers: ViT-B/32's 32x32
  // stride-32 stem, 3 -> 768 on 224 x 224, took 3 vectors x 3 positions
  // unrolled (the broadcasts of 6 positions counted live) at 5.7 ms; 2 x 6
  // looped, 3.2 (onnxruntime 3.4; Zen 3).
  bool disjointWindows = conv.strideW >= conv.kernelWidth * conv.dilationW &&
                         conv.strideH >= conv.kernelHeight * conv.dilationH;
  auto loops = [&](int64_t fv, int64_t positions) {
    return !depthwiseLast && conv.kernelWidth >= kMinLoopedTapColumns &&
           (disjointWindows ||
            fv * positions + fv +
                    liveBroadcastsByTap(conv, positions, padded) >=
                registers);
  };
  // Blocks of filters that do not divide them overlap their last block
  // (one group only: a block never straddles two).
  bool blocksMayOverlap =
      fresh && !depthwiseLast && conv.filtersPerGroup == conv.filters;
  for (int64_t fv = 1; fv <= 3; ++fv) {
    bool overlapsFilters = tiled % (fv * lanes) != 0;
    if (fv > budget || fv > vectors || (overlapsFilters && !blocksMayOverlap))
      continue;
    int64_t limit = budget / fv;
    // Unrolled taps keep the input values they share live (each is read
    // once): a tile whose accumulators, weight vectors and those values
    // outnumber the registers spills on every tap. AVX2, GoogLeNet's 3x3
    // 64 -> 192 on 56 x 56: 3 vectors x 4 positions (18 live) 12.9 ms,
    // 2 x 6 (19) 9.8, 2 x 4 (13) 7.9, 1 x 8 (16) 7.6 (Zen 3). (A wide
    // window that would not fit loops over its tap columns, needing two; a
    // depthwise tile channels last reads vectors.)
    auto fits = [&](int64_t positions) {
      return depthwiseLast || conv.kernelWidth >= kMinLoopedTapColumns ||
             fv * positions + fv +
                     liveBroadcastsByTap(conv, positions, padded) <=
                 registers;
    };
    while (limit > 1 && !fits(limit))
      --limit;
    auto tileOf = [&](int64_t positions, bool overlapsLast, bool looped) {
      FilterTile t;
      t.filterVectors = fv;
      t.positions = positions;
      t.rowSegment = padded;
      t.overlapsLast = overlapsLast;
      t.filtersOverlapLast = overlapsFilters;
      t.tapColumnLoop = looped;
      return t;
    };
    int64_t dividing = pickDivisor(span, {}, limit);
    consider(tileOf(dividing, false, loops(fv, dividing)));
    // Overlapping tiles only where the accumulators, one broadcast per
    // position and the weight vectors fit the registers together: LLVM
    // keeps each position's broadcast live for every filter vector, and
    // 2 x 12 positions (38 live vectors) spilled on every tap, twice as slow
    // as the 2 x 9 that divide a 54-wide row. In a loop over the tap
    // columns, one tap's broadcasts are used as they are read: two live;
    // so are a 1x1 window's, whose positions share no input (AVX2: the
    // 2 x 6 tiles this allows on 7x7 and 14x14 maps ran 1.15-1.33x faster
    // than the 2 x 4 that divide them; on 3x3 windows, where the shared
    // broadcasts stay live, counting them instead of one per position
    // gained 13% on a 28-wide map and lost 12% on a 56-wide one).
    if (fresh)
      for (int64_t positions = 2; positions <= std::min(limit, span);
           ++positions) {
        if (span % positions == 0)
          continue;
        bool looped = loops(fv, positions);
        int64_t broadcasts = looped || pointwise ? 2 : positions;
        if (fv * positions + broadcasts + fv <= registers)
          consider(tileOf(positions, /*overlapsLast=*/true, looped));
      }
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
  k.channelChunk =
      planChannelChunk(conv, tile, k.block, k.prologue.bias || k.prologue.zero);

  return k;
}
