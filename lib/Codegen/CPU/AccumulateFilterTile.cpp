//===- AccumulateFilterTile.cpp - The over-filters accumulator loop -------===//
//
// The accumulator loop of the convolution kernel vectorized over filters:
// one tile's accumulators carried through a loop over the group's input
// channels, in which every tap is unrolled (per tap, the tile's packed
// weight vectors times one broadcast input value per position; the tap
// rows of windows larger than 8x8 are a loop, and so are the tap columns
// of the tiles planned with `tapColumnLoop`). Tap
// columns that read the padding are left out; in the rows whose tap rows
// do, the tap rows are a loop over the range that reads inside.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

/// Windows of up to this many taps unroll all of them; larger ones (ViT's
/// 32x32 patches: 7168 FMAs a channel for 7 positions, and as many reads
/// of one input tensor, which bufferization's analysis pays for with the
/// square of their number) loop over the tap rows.
static constexpr int64_t kMaxUnrolledTaps = 64;

/// Whether a tile's j-th column reads inside the input at tap column kw:
/// always in an inner tile; an edge tile, emitted on its own, leaves out
/// the taps in the padding.
static bool readsInside(const FilterKernel &k, const FilterTileSite &site,
                        int64_t j, int64_t kw) {
  if (!site.firstCol)
    return true;
  int64_t iw =
      (*site.firstCol + j) * k.conv.strideW + kw * k.conv.dilationW - k.left;
  return iw >= 0 && iw < k.inWidth;
}

SmallVector<Value> mlir::tessel::cpu::accumulateFilterTile(
    ConvLoopEmitter &e, const FilterKernel &k, const FilterTileSite &site,
    ArrayRef<Value> start, Value out) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  const FilterTile &tile = k.tile;
  int64_t lanes = k.lanes;
  VectorType vecType = k.vecType;
  SmallVector<bool> inBounds = {true};
  Value n = site.n, f0 = site.f0;
  ArrayRef<Value> oh = site.oh, ow = site.ow;

  int64_t count = site.count(tile);
  SmallVector<Value> accs;
  bool perAccumulator = int64_t(start.size()) == count * tile.filterVectors;
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < tile.filterVectors; ++v)
      accs.push_back(start.empty()    ? readAlongFilters(e, k, site, out, j, v)
                     : perAccumulator ? start[j * tile.filterVectors + v]
                                      : start[v]);
  // Without a static range, the tap rows [khBegin, khEnd) that read inside
  // the input for the tile's row (input row oh * strideH - top + kh *
  // dilationH), computed at run time.
  Value khBegin, khEnd;
  if (!site.khRange) {
    Value base = e.add(e.mul(oh[0], conv.strideH), -k.top);
    Value zeroIdx = e.idx(0);
    Value negBase = arith::SubIOp::create(b, loc, zeroIdx, base);
    Value last = arith::SubIOp::create(b, loc, e.idx(k.inHeight - 1), base);
    if (conv.dilationH != 1) {
      negBase =
          arith::CeilDivSIOp::create(b, loc, negBase, e.idx(conv.dilationH));
      last = arith::FloorDivSIOp::create(b, loc, last, e.idx(conv.dilationH));
    }
    khBegin = arith::MaxSIOp::create(b, loc, negBase, zeroIdx);
    khEnd = arith::MinSIOp::create(b, loc, e.add(last, 1),
                                   e.idx(conv.kernelHeight));
  }
  // The group's channels, or the chunk's (the loop runs over their
  // indices: an offset added inside the loop to an even induction
  // variable became an `or`, which hid the inputs' stride from LLVM's
  // loop strength reduction when it unrolled the loop).
  Value channelsBegin = site.chunkBegin ? site.chunkBegin : e.idx(0);
  Value channelsEnd = site.chunkBegin ? e.add(site.chunkBegin, k.channelChunk)
                                      : e.idx(conv.channelsPerGroup);
  return e.loopOver(
      channelsBegin, channelsEnd, 1, accs, [&](Value c, ValueRange acc) {
        Value ic = arith::AddIOp::create(b, loc, site.channelBase, c);
        Value shift =
            k.shifts
                ? tensor::ExtractOp::create(b, loc, k.shifts, ic).getResult()
                : Value();
        // The input at (ih, iw), shifted.
        auto readInput = [&](Value ih, Value iw) -> Value {
          Value x = tensor::ExtractOp::create(
              b, loc, k.input,
              k.readThrough ? SmallVector<Value>{n, ic, ih, iw}
                            : conv.at(n, ic, ih, iw));
          return shift ? arith::AddFOp::create(b, loc, x, shift).getResult()
                       : x;
        };
        // The FMAs of tap row kh (its index value, and kh itself when it is a
        // constant).
        auto tapRow = [&](Value khIdx, std::optional<int64_t> khAt,
                          SmallVector<Value> next) {
          // The weight vectors of tap column `kwIdx`.
          auto weightsAt = [&](Value kwIdx) {
            SmallVector<Value> w;
            for (int64_t v = 0; v < tile.filterVectors; ++v)
              w.push_back(vector::TransferReadOp::create(
                  b, loc, vecType, k.packed,
                  ValueRange{site.fBlock, c, khIdx, kwIdx, e.idx(v * lanes)},
                  e.pad(), inBounds));
            return w;
          };
          // The tile's input for position j at tap column kw (plus `kwIdx`, a
          // loop's tap column, when given): one value broadcast to every
          // filter vector, or (vectorInputs) one vector per filter vector.
          auto inputAt = [&](int64_t j, Value kwIdx, int64_t kw) {
            Value ih =
                khAt ? e.add(e.mul(oh[j], conv.strideH),
                             *khAt * conv.dilationH - k.top)
                     : arith::AddIOp::create(
                           b, loc, e.add(e.mul(oh[j], conv.strideH), -k.top),
                           e.mul(khIdx, conv.dilationH))
                           .getResult();
            Value iw =
                e.add(e.mul(ow[j], conv.strideW), kw * conv.dilationW - k.left);
            if (kwIdx)
              iw = arith::AddIOp::create(b, loc, iw,
                                         e.mul(kwIdx, conv.dilationW));
            SmallVector<Value> xv;
            if (k.vectorInputs) {
              for (int64_t v = 0; v < tile.filterVectors; ++v)
                xv.push_back(vector::TransferReadOp::create(
                    b, loc, vecType, k.input,
                    conv.at(n, e.add(f0, v * lanes), ih, iw), k.alongFilters,
                    e.pad(), /*mask=*/Value(), b.getBoolArrayAttr(inBounds)));
            } else {
              xv.push_back(vector::BroadcastOp::create(b, loc, vecType,
                                                       readInput(ih, iw)));
            }
            return xv;
          };
          auto accumulate = [&](int64_t j, ArrayRef<Value> w,
                                ArrayRef<Value> xv) {
            for (int64_t v = 0; v < tile.filterVectors; ++v) {
              Value &a = next[j * tile.filterVectors + v];
              Value xs = xv[k.vectorInputs ? v : 0];
              a = k.microKernel->emitMultiplyAccumulate(b, loc, w[v], xs, a);
            }
          };
          // A wide window's tap columns in a loop (in the tiles that read
          // inside at every tap): each tap's broadcasts are read where they
          // are used, none shared with the next tap column.
          if (tile.tapColumnLoop && !site.firstCol) {
            SmallVector<Value> outer = next;
            return e.keptLoop(conv.kernelWidth, outer,
                              [&](Value kwIdx, ValueRange a) {
                                next.assign(a.begin(), a.end());
                                SmallVector<Value> w = weightsAt(kwIdx);
                                for (int64_t j = 0; j < count; ++j)
                                  accumulate(j, w, inputAt(j, kwIdx, 0));
                                return next;
                              });
          }
          for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
            SmallVector<Value> w = weightsAt(e.idx(kw));
            for (int64_t j = 0; j < count; ++j)
              if (readsInside(k, site, j, kw))
                accumulate(j, w, inputAt(j, Value(), kw));
          }
          return next;
        };
        SmallVector<Value> next(acc.begin(), acc.end());
        if (site.khRange &&
            conv.kernelHeight * conv.kernelWidth <= kMaxUnrolledTaps) {
          for (int64_t kh = site.khRange->first; kh < site.khRange->second;
               ++kh)
            next = tapRow(e.idx(kh), kh, next);
          return next;
        }
        if (site.khRange) {
          khBegin = e.idx(site.khRange->first);
          khEnd = e.idx(site.khRange->second);
        }
        return e.loopOver(khBegin, khEnd, 1, next, [&](Value kh, ValueRange a) {
          return tapRow(kh, std::nullopt, SmallVector<Value>(a));
        });
      });
}
