//===- ConvolutionOverFilters.h - Over-filters kernel steps -----*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The convolution kernel vectorized over
// filters (vectorizeConvolutionOverFilters, Transforms.h) in its steps:
// planning the tile and the kernel (no IR), packing the weights, the loop
// that accumulates one tile over its channels and taps, and the tile's
// epilogue and stores. ConvolutionOverFilters.cpp drives them over the
// output's tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONOVERFILTERS_H
#define TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONOVERFILTERS_H

#include "Convolution2D.h"
#include "ConvolutionEmitter.h"
#include "ConvolutionFusion.h"
#include "ConvolutionPadding.h"

#include <optional>
#include <utility>

namespace mlir::tessel::cpu {

/// A tile over filters: `filterVectors` vectors of `lanes` consecutive
/// filters x `positions` consecutive output positions (row-major over
/// oh, ow), with the weights packed so that each tap's filters are
/// contiguous.
struct FilterTile {
  int64_t filterVectors, positions;
  /// The positions are consecutive columns of one output row (with
  /// padding, so that the tap rows that read inside are the same for all of
  /// them), instead of consecutive positions row-major over (oh, ow).
  bool rowSegment = false;
  /// `positions` does not divide the positions (or the row): the last tile
  /// starts `positions` before their end, overlapping the one before it
  /// (the positions it computes twice are written twice alike).
  bool overlapsLast = false;
  /// `filterVectors` does not divide the filters' vectors (a classifier's
  /// 1000 filters are 125 vectors of 8): the last block of filters starts
  /// a block before their end, overlapping the one before it, its weights
  /// packed as one more block. It runs after the loop over the whole
  /// blocks, which may be split across threads: no two threads write the
  /// same filters. Only where the accumulators start from the bias or 0 and
  /// the filters are one group.
  bool filtersOverlapLast = false;
  /// The tiles whose taps all read inside the input run each tap row's
  /// columns in a loop kept as a loop, instead of unrolled: unrolled, an
  /// input value that several taps read (a stride smaller than the
  /// window) is broadcast once and stays live from the first to the last,
  /// and in a wide window too many of them do for the registers.
  bool tapColumnLoop = false;
};

/// The filter-vectorized tile of `lanes`-filter vectors for at most
/// `accumulators` accumulator registers, when the filters of a group fill
/// whole vectors. With `padded`, the positions are columns of one output
/// row. Channels last, a depthwise convolution's tile runs over the
/// channels (its filters, one per group): each tap reads a vector of
/// channels. The tile computes the most useful multiply-adds per
/// step: the accumulators it fills, times the share of the positions it
/// computes that are not computed twice; tiles whose positions do not
/// divide the output's (or its rows', with `padded`) overlap their last
/// tile, only when the accumulators start from the bias or 0 (`fresh`)
/// and they fit the registers with a broadcast per position (two for a
/// 1x1 window, whose positions share no input). With `fresh` and one group,
/// blocks of filter vectors that do not divide the filters' may overlap
/// their last block too (`filtersOverlapLast`), the filters computed twice
/// counted against them the same way.
/// Among equals, one that divides, then the most accumulators, then (NCHW)
/// a whole vector of positions, then the fewest loads per FMA. Windows at
/// least kMinLoopedTapColumns wide whose unrolled taps would keep as many
/// vectors live as the target has registers loop over their tap columns
/// (`tapColumnLoop`); such a tile then needs its accumulators, its weight
/// vectors and two broadcasts.
std::optional<FilterTile> planFilterTile(const Conv2D &conv, int64_t lanes,
                                         bool padded, int64_t accumulators,
                                         bool fresh);

/// Everything the tiles of one over-filters kernel share.
struct FilterKernel {
  /// What multiplies and accumulates each tap.
  const MicroKernel *microKernel = nullptr;
  Conv2D conv;
  FilterTile tile;
  /// Filters per vector, and per tile (`tile.filterVectors * lanes`).
  int64_t lanes, block;
  std::optional<ConvPadding> padding;
  ConvPrologue prologue;
  std::optional<ConvEpilogue> epilogue;
  /// What the taps read: the convolution's input, the unpadded source, or
  /// (`readThrough`) the NCHW tensor a channels-last input transposes.
  Value input;
  linalg::TransposeOp readThrough;
  /// Channels last and depthwise: each tap reads a vector of channels
  /// instead of broadcasting one input value to all the tile's filters.
  bool vectorInputs = false;
  /// The padding before the rows and columns; the input's (unpadded)
  /// height and width.
  int64_t top = 0, left = 0, inHeight = 0, inWidth = 0;
  VectorType vecType;
  /// The output (and bias) vectors run along the filter dimension.
  AffineMapAttr alongFilters;
  /// The tile's accumulators are transposed in registers and stored along
  /// its row (`rowStores`), or along the output viewed as [N, F, H*W]
  /// (`planeStores`), rather than along the filters.
  bool rowStores = false, planeStores = false;
  /// The packed weights and the per-channel shift (or null): constants at
  /// the function's entry.
  Value packed, shifts;
  /// The input channels of a group that each pass over the positions
  /// accumulates (all of them, unless the kernel runs in channel chunks:
  /// see `planChannelChunk`).
  int64_t channelChunk = 0;
};

/// The channels per pass of a kernel that runs in channel chunks, or the
/// group's channels. Every tile of positions reads its block of filters'
/// weights at every channel and tap, and broadcasts its inputs from one or
/// two lines of each channel's plane per tap row, which the next tiles read
/// again; over all of a group's channels, both outgrow the L1 and every
/// tile reads them from the L2 again. In chunks of channels whose weights
/// and lines fit the L1 together, every tile accumulates one chunk at a
/// time into a scratch buffer of partial sums (emitChannelChunks). Only
/// NCHW kernels whose accumulators start from the bias or 0 (`fresh`), with
/// several blocks of filters (one block splits its positions among
/// threads) and several tiles of positions.
int64_t planChannelChunk(const Conv2D &conv, const FilterTile &tile,
                         int64_t block, bool fresh);

/// Plans the kernel of `conv` (the geometry of `op`) for `tile`; builds no
/// IR (`packed` and `shifts` are left null).
FilterKernel planFilterKernel(linalg::GenericOp op, const Conv2D &conv,
                              FilterTile tile, int64_t lanes,
                              std::optional<ConvPadding> padding,
                              bool fuseEpilogue);

/// The weights [F][Cg][KH][KW] packed as [ceil(F / B)][Cg][KH][KW][B], B =
/// `block` filters: each tap's B weights are one contiguous vector. Where B
/// does not divide F, the last block holds the last B filters (it overlaps
/// the one before it: FilterTile::filtersOverlapLast).
DenseElementsAttr packWeights(DenseElementsAttr weights, int64_t block);

/// Where one tile of the kernel sits: image `n`, filters from `f0` (their
/// packed block `fBlock`, input channels from `channelBase`), positions
/// (`oh[j]`, `ow[j]`). `khRange`: the tap rows that read inside the input
/// (unrolled); when not given, a loop over the range computed from `oh`
/// (the output rows whose tap rows read the padding, which share one
/// compact loop). `firstCol`: the first column of a tile emitted on its own
/// at a row's edge, whose taps in the padding are left out; without it,
/// every column of the tile reads inside the input at every tap column.
struct FilterTileSite {
  Value n, f0, fBlock, channelBase;
  ArrayRef<Value> oh, ow;
  std::optional<std::pair<int64_t, int64_t>> khRange;
  std::optional<int64_t> firstCol;
  /// In a kernel run in channel chunks: the chunk's first channel in the
  /// group, and the positions of this tile (fewer than the kernel's tile
  /// at the end of the positions, where an unchunked kernel overlaps).
  Value chunkBegin;
  int64_t positions = 0;
  int64_t count(const FilterTile &tile) const {
    return positions ? positions : tile.positions;
  }
};

/// The tile's output vector `v` (of filters) at position `j` in `tensor`
/// (the output, or an input of the epilogue).
Value readAlongFilters(ConvLoopEmitter &e, const FilterKernel &k,
                       const FilterTileSite &site, Value tensor, int64_t j,
                       int64_t v);

/// The accumulator loop: starts the tile's accumulators from `start` (one
/// vector per filter vector, or one per accumulator) or, when that is
/// empty, from `out`, and returns them summed over the group's channels
/// (the chunk's, in a kernel run in chunks) and every tap (position major,
/// then filter vector).
SmallVector<Value> accumulateFilterTile(ConvLoopEmitter &e,
                                        const FilterKernel &k,
                                        const FilterTileSite &site,
                                        ArrayRef<Value> start, Value out);

/// Runs the epilogue on the tile's `summed` accumulators and stores them
/// into `out`; returns the updated `out`.
Value storeFilterTile(ConvLoopEmitter &e, const FilterKernel &k,
                      const FilterTileSite &site, ArrayRef<Value> summed,
                      Value out);

/// One pass of a kernel run in channel chunks over its tiles of positions:
/// a chunk's (from its first channel in the group; the first chunk's tiles
/// start from `start`, the others from their partial sums), or (`store`)
/// the pass that stores the sums of all chunks, `partials`.
struct ChannelChunkPass {
  Value chunkBegin;
  ArrayRef<Value> start;
  bool store = false;
  Value partials;
};

/// A share of one block of filters' tiles of positions, for the threads:
/// group `index` of `count` takes a contiguous range of the loop over the
/// tiles (or over the rows whose taps read no padding), the first group
/// also the tiles before that loop, the last those after it.
struct PositionGroup {
  Value index;
  int64_t count = 1;
};

/// One tile of a kernel run in channel chunks: adds the chunk of `pass` to
/// the tile's partial sums in the scratch buffer `target` (the first chunk
/// to `pass.start` instead, the sums not yet written), or (`store`)
/// runs the epilogue on the sums in `pass.partials` and stores them into
/// the output `target`.
Value emitChunkTile(ConvLoopEmitter &e, const FilterKernel &k,
                    FilterTileSite site, const ChannelChunkPass &pass,
                    Value target);

/// The chunks of channels of one image and block of filters, the tiles of
/// positions of each pass emitted by `tiles(pass, carried)`: the first
/// chunk writes its tiles' sums from `start` (one vector per filter vector:
/// the bias or 0) into a scratch buffer of partial sums [positions, filter
/// vectors, lanes], every other chunk adds its channels to them (one loop
/// over all chunks), and a last pass stores them into `out` through the
/// epilogue. Returns the updated `out`.
Value emitChannelChunks(
    ConvLoopEmitter &e, const FilterKernel &k, ArrayRef<Value> start, Value out,
    function_ref<Value(const ChannelChunkPass &, Value)> tiles);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONOVERFILTERS_H
