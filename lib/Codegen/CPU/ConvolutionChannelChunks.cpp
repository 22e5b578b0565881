//===- ConvolutionChannelChunks.cpp - Over-filters tiles in channel chunks ===//
//
// A convolution over filters whose group has many channels runs its tiles
// of positions once per chunk of channels, with the partial sums of all
// positions in a scratch buffer between chunks: each chunk's weights and
// the input lines its tiles broadcast from stay in the L1 from one tile to
// the next, as a GEMM's K blocks keep its panels in cache.
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
static constexpr int64_t kL1Bytes = 32 * 1024;
static constexpr int64_t kChunkBytes = kL1Bytes * 3 / 4;
/// A tile's positions broadcast from one or two lines of each channel's
/// plane per tap row (counted as two for the chunk's bytes, 1.5 for what a
/// tile reads); the next tiles read the same lines.
static constexpr int64_t kLineBytesPerTapRow = 2 * 64;
static constexpr int64_t kTileLineBytesPerTapRow = 96;
/// Kernels whose tiles would read their weights and input lines from the
/// L2 at fewer bytes per cycle of their multiply-adds (two a cycle) than
/// this keep one pass. Zen 3 (32 bytes a cycle from its L2): ResNet-18's
/// 3x3 layers at 28 x 28 (tiles of 2 vectors x 4 positions, 24 bytes a
/// cycle) ran 1.14x faster in chunks, at 14 x 14 and 7 x 7 (1 x 7, 18)
/// no faster; at 56 x 56 (64 channels, 24) as fast.
static constexpr int64_t kChunkedBytesPerCycle = 20;
/// Fewer channel taps per chunk than this would spend too much of each
/// chunk reading and writing the partial sums.
static constexpr int64_t kMinChunkTaps = 32;

int64_t mlir::tessel::cpu::planChannelChunk(const Conv2D &conv,
                                            const FilterTile &tile,
                                            int64_t block, bool fresh) {
  int64_t channels = conv.channelsPerGroup;
  int64_t positions = conv.outHeight * conv.outWidth;
  int64_t taps = conv.kernelHeight * conv.kernelWidth;
  if (!fresh || conv.channelsLast || positions <= tile.positions ||
      conv.filters == block)
    return channels;
  // What one tile reads per channel from the L2 when nothing stays in the
  // L1 from the tile before, per cycle of its multiply-adds.
  int64_t weightBytes = taps * block * 4;
  double tileBytes = weightBytes + conv.kernelHeight * kTileLineBytesPerTapRow;
  double cycles = taps * tile.filterVectors * tile.positions / 2.0;
  int64_t perChannel = weightBytes + conv.kernelHeight * kLineBytesPerTapRow;
  if (tileBytes / cycles < kChunkedBytesPerCycle)
    return channels;
  int64_t limit = kChunkBytes / perChannel;
  int64_t chunk = channels;
  for (int64_t c = 1; c <= limit; ++c)
    if (channels % c == 0 && c * taps >= kMinChunkTaps)
      chunk = c;
  return chunk;
}

/// The vectors of `count` positions x `fv` filter vectors.
static VectorType partialsType(const FilterKernel &k, int64_t count) {
  return VectorType::get({count, k.tile.filterVectors, k.lanes},
                         k.vecType.getElementType());
}

Value mlir::tessel::cpu::emitChunkTile(ConvLoopEmitter &e,
                                       const FilterKernel &k,
                                       FilterTileSite site,
                                       const ChannelChunkPass &pass,
                                       Value target) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t count = site.count(k.tile);
  int64_t fv = k.tile.filterVectors;
  SmallVector<bool> inBounds(3, true);
  // The tile's positions are consecutive in the buffer, row-major.
  Value p0 = arith::AddIOp::create(b, loc, e.mul(site.oh[0], k.conv.outWidth),
                                   site.ow[0]);
  SmallVector<Value> at = {p0, e.idx(0), e.idx(0)};
  auto readSums = [&](Value partials) {
    Value block = vector::TransferReadOp::create(
        b, loc, partialsType(k, count), partials, at, e.pad(), inBounds);
    SmallVector<Value> sums;
    for (int64_t j = 0; j < count; ++j)
      for (int64_t v = 0; v < fv; ++v)
        sums.push_back(
            vector::ExtractOp::create(b, loc, block, ArrayRef<int64_t>{j, v}));
    return sums;
  };
  if (pass.store)
    return storeFilterTile(e, k, site, readSums(pass.partials), target);
  // The first chunk starts from `start`, the others from the buffer (no
  // pass over the buffer before the chunks: a group of positions fills
  // only its own).
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      pass.chunkBegin, e.idx(0));
  SmallVector<Type> sumTypes(count * fv, k.vecType);
  auto ifOp = scf::IfOp::create(b, loc, sumTypes, first, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    SmallVector<Value> starts;
    for (int64_t j = 0; j < count; ++j)
      llvm::append_range(starts, pass.start);
    scf::YieldOp::create(b, loc, starts);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, readSums(target));
  }
  SmallVector<Value> sums(ifOp.getResults());
  site.chunkBegin = pass.chunkBegin;
  sums = accumulateFilterTile(e, k, site, sums, target);
  Value block = e.zeroVector(partialsType(k, count));
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < fv; ++v)
      block = vector::InsertOp::create(b, loc, sums[j * fv + v], block,
                                       ArrayRef<int64_t>{j, v});
  return vector::TransferWriteOp::create(b, loc, block, target, at, inBounds)
      .getResult();
}

Value mlir::tessel::cpu::emitChannelChunks(
    ConvLoopEmitter &e, const FilterKernel &k, ArrayRef<Value> start, Value out,
    function_ref<Value(const ChannelChunkPass &, Value)> tiles) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  int64_t positions = conv.outHeight * conv.outWidth;
  int64_t fv = k.tile.filterVectors;
  Value scratch = tensor::EmptyOp::create(b, loc, {positions, fv, k.lanes},
                                          k.vecType.getElementType());
  // Every chunk adds to the buffer, in one loop (the tiles' accumulating
  // code emitted once: a last chunk on its own, storing, had made
  // GoogLeNet compile 1.6x as long); then the tiles store it.
  scratch = e.loop(conv.channelsPerGroup, k.channelChunk, scratch,
                   [&](Value c0, ValueRange a) {
                     ChannelChunkPass pass;
                     pass.chunkBegin = c0;
                     pass.start = start;
                     return SmallVector<Value>{tiles(pass, a[0])};
                   })[0];
  ChannelChunkPass store;
  store.store = true;
  store.partials = scratch;
  return tiles(store, out);
}
