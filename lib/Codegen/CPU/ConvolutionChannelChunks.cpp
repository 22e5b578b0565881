//===- ConvolutionChannelChunks.cpp - Over-filters tiles in channel chunks ===//
//
// A pointwise convolution over filters whose group has many channels runs
// its tiles of positions once per chunk of channels, with the partial sums
// of all positions in a scratch buffer between chunks: each chunk's weights
// and the input lines its tiles broadcast from stay in the L1 from one tile
// to the next, as a GEMM's K blocks keep its panels in cache.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

/// The bytes of L1 a chunk may fill with its weights and the input lines
/// its tiles read: three quarters of the smallest L1 data cache of the
/// targets (32 KiB: Zen 3, Zen 4; Intel's since Ice Lake have 48).
static constexpr int64_t kChunkBytes = 24 * 1024;
/// A tile's positions broadcast from one or two lines of each channel's
/// plane; the next tiles read the same lines.
static constexpr int64_t kLineBytesPerChannel = 2 * 64;
/// Fewer channels per chunk than this would spend too much of each chunk
/// reading and writing the partial sums.
static constexpr int64_t kMinChunk = 32;

int64_t mlir::tessel::cpu::planChannelChunk(const Conv2D &conv,
                                            const FilterTile &tile,
                                            int64_t block) {
  int64_t channels = conv.channelsPerGroup;
  int64_t positions = conv.outHeight * conv.outWidth;
  // Only NCHW pointwise kernels over consecutive positions, with several
  // tiles of positions to share a chunk, and several blocks of filters (one
  // block runs its positions in parallel instead).
  if (conv.channelsLast || conv.kernelHeight * conv.kernelWidth != 1 ||
      tile.rowSegment || positions <= tile.positions || conv.filters == block)
    return channels;
  int64_t limit = kChunkBytes / (block * 4 + kLineBytesPerChannel);
  if (channels <= limit)
    return channels;
  int64_t chunk = 1;
  for (int64_t c = 1; c <= limit; ++c)
    if (channels % c == 0)
      chunk = c;
  return chunk >= kMinChunk ? chunk : channels;
}

Value mlir::tessel::cpu::emitChannelChunks(ConvLoopEmitter &e,
                                           const FilterKernel &k,
                                           const FilterTileSite &base,
                                           ArrayRef<Value> start, Value out) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  const FilterTile &tile = k.tile;
  int64_t fv = tile.filterVectors;
  int64_t positions = conv.outHeight * conv.outWidth;
  int64_t whole = positions / tile.positions * tile.positions;
  Type f32 = k.vecType.getElementType();
  Value scratch =
      tensor::EmptyOp::create(b, loc, {positions, fv, k.lanes}, f32);
  SmallVector<bool> inBounds(3, true);
  auto blockType = [&](int64_t count) {
    return VectorType::get({count, fv, k.lanes}, f32);
  };

  // The tile of `count` positions from `p0`, accumulating the chunk from
  // `chunkBegin`: from `start` (`partials` null) or the partial sums in
  // `partials`; into `target`, the scratch buffer, or (`last`) the output
  // through the epilogue.
  auto tileAt = [&](Value p0, int64_t count, Value chunkBegin, Value partials,
                    Value target, bool last) -> Value {
    SmallVector<Value> oh, ow;
    for (int64_t j = 0; j < count; ++j) {
      Value p = e.add(p0, j);
      oh.push_back(arith::DivUIOp::create(b, loc, p, e.idx(conv.outWidth)));
      ow.push_back(arith::RemUIOp::create(b, loc, p, e.idx(conv.outWidth)));
    }
    FilterTileSite site = base;
    site.oh = oh;
    site.ow = ow;
    site.khRange = {0, conv.kernelHeight};
    site.chunkBegin = chunkBegin;
    site.positions = count;
    SmallVector<Value> from(start);
    if (partials) {
      Value block = vector::TransferReadOp::create(
          b, loc, blockType(count), partials,
          ValueRange{p0, e.idx(0), e.idx(0)}, e.pad(), inBounds);
      from.clear();
      for (int64_t j = 0; j < count; ++j)
        for (int64_t v = 0; v < fv; ++v)
          from.push_back(vector::ExtractOp::create(b, loc, block,
                                                   ArrayRef<int64_t>{j, v}));
    }
    // (Without `start`, the first chunk starts from the output's values.)
    SmallVector<Value> summed = accumulateFilterTile(e, k, site, from, out);
    if (last)
      return storeFilterTile(e, k, site, summed, target);
    Value block = e.zeroVector(blockType(count));
    for (int64_t j = 0; j < count; ++j)
      for (int64_t v = 0; v < fv; ++v)
        block = vector::InsertOp::create(b, loc, summed[j * fv + v], block,
                                         ArrayRef<int64_t>{j, v});
    return vector::TransferWriteOp::create(b, loc, block, target,
                                           ValueRange{p0, e.idx(0), e.idx(0)},
                                           inBounds)
        .getResult();
  };
  // One chunk over every position: whole tiles in a loop, then the
  // positions left, fewer than a tile (an overlapping tile would add the
  // chunk twice to the positions it shares). A chunk between the first
  // and the last reads the partial sums from the buffer it writes.
  enum class Pass { First, Middle, Last };
  auto chunk = [&](Value chunkBegin, Pass pass, Value partials, Value target) {
    auto source = [&](Value carried) {
      return pass == Pass::First    ? Value()
             : pass == Pass::Middle ? carried
                                    : partials;
    };
    bool last = pass == Pass::Last;
    target = e.loop(whole, tile.positions, target, [&](Value p0, ValueRange a) {
      return SmallVector<Value>{
          tileAt(p0, tile.positions, chunkBegin, source(a[0]), a[0], last)};
    })[0];
    if (whole != positions)
      target = tileAt(e.idx(whole), positions - whole, chunkBegin,
                      source(target), target, last);
    return target;
  };
  int64_t chunks = conv.channelsPerGroup / k.channelChunk;
  Value partial = chunk(e.idx(0), Pass::First, Value(), scratch);
  if (chunks > 2)
    partial = e.loopOver(
        e.idx(k.channelChunk), e.idx((chunks - 1) * k.channelChunk),
        k.channelChunk, partial, [&](Value c0, ValueRange a) {
          return SmallVector<Value>{chunk(c0, Pass::Middle, Value(), a[0])};
        })[0];
  return chunk(e.idx((chunks - 1) * k.channelChunk), Pass::Last, partial, out);
}
