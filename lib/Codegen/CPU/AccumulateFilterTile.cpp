//===- AccumulateFilterTile.cpp - The over-filters accumulator loop -------===//
//
// The accumulator loop of the convolution kernel vectorized over filters:
// one tile's accumulators carried through a loop over the group's input
// channels, in which every tap is unrolled (per tap, the tile's packed
// weight vectors times one broadcast input value per position). Taps that
// read the padding are left out, ranged over or masked.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionOverFilters.h"

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

/// Whether a tile's j-th column reads the padding at tap column kw in
/// every tile of its row, in none or in some.
static Reach colReach(const FilterKernel &k, int64_t j, int64_t kw) {
  if (!k.tile.rowSegment)
    return Reach::Always;
  return reachOf(k.conv.outWidth, k.tile.positions, j, kw, k.conv.strideW,
                 k.conv.dilationW, k.left, k.inWidth);
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

  bool dynamicRows = k.rowsReadPadding && !site.khRange;
  int64_t count = tile.positions;
  SmallVector<Value> accs;
  for (int64_t j = 0; j < count; ++j)
    for (int64_t v = 0; v < tile.filterVectors; ++v)
      accs.push_back(start.empty() ? readAlongFilters(e, k, site, out, j, v)
                                   : start[v]);
  Value zero = e.pad();
  // The range of tap rows [khBegin, khEnd) that read inside the input
  // for the tile's row: input row oh * strideH - top + kh * dilationH.
  Value khBegin, khEnd;
  if (dynamicRows) {
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
  return e.loop(conv.channelsPerGroup, 1, accs, [&](Value c, ValueRange acc) {
    Value ic = arith::AddIOp::create(b, loc, site.channelBase, c);
    Value shift =
        k.shifts ? tensor::ExtractOp::create(b, loc, k.shifts, ic).getResult()
                 : Value();
    // The input at (ih, iw), shifted.
    auto readInput = [&](Value ih, Value iw) -> Value {
      Value x = tensor::ExtractOp::create(
          b, loc, k.input,
          k.readThrough ? SmallVector<Value>{n, ic, ih, iw}
                        : conv.at(n, ic, ih, iw));
      return shift ? arith::AddFOp::create(b, loc, x, shift).getResult() : x;
    };
    // The FMAs of tap row kh (its index value, and kh itself when it is a
    // constant).
    auto tapRow = [&](Value khIdx, std::optional<int64_t> khAt,
                      SmallVector<Value> next) {
      for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
        SmallVector<Value> w;
        for (int64_t v = 0; v < tile.filterVectors; ++v)
          w.push_back(vector::TransferReadOp::create(
              b, loc, vecType, k.packed,
              ValueRange{site.fBlock, c, khIdx, e.idx(kw), e.idx(v * lanes)},
              e.pad(), inBounds));
        for (int64_t j = 0; j < count; ++j) {
          Reach along = colReach(k, j, kw);
          if (along == Reach::Never)
            continue;
          Value ih =
              khAt ? e.add(e.mul(oh[j], conv.strideH),
                           *khAt * conv.dilationH - k.top)
                   : arith::AddIOp::create(
                         b, loc, e.add(e.mul(oh[j], conv.strideH), -k.top),
                         e.mul(khIdx, conv.dilationH))
                         .getResult();
          Value iw =
              e.add(e.mul(ow[j], conv.strideW), kw * conv.dilationW - k.left);
          // The tile's input at (ih, iw): one value broadcast to every
          // filter vector, or (vectorInputs) one vector per filter vector.
          // Off the row (some tiles), a clamped read and a select of 0.
          Value clamped, inside;
          if (along != Reach::Always) {
            clamped = arith::MinSIOp::create(
                b, loc, arith::MaxSIOp::create(b, loc, iw, e.idx(0)),
                e.idx(k.inWidth - 1));
            inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iw,
                                           clamped);
          }
          SmallVector<Value> xv;
          if (k.vectorInputs) {
            for (int64_t v = 0; v < tile.filterVectors; ++v) {
              Value x = vector::TransferReadOp::create(
                  b, loc, vecType, k.input,
                  conv.at(n, e.add(f0, v * lanes), ih, clamped ? clamped : iw),
                  k.alongFilters, e.pad(), /*mask=*/Value(),
                  b.getBoolArrayAttr(inBounds));
              if (inside)
                x = arith::SelectOp::create(b, loc, inside, x,
                                            e.zeroVector(vecType));
              xv.push_back(x);
            }
          } else {
            Value x = inside ? arith::SelectOp::create(
                                   b, loc, inside, readInput(ih, clamped), zero)
                                   .getResult()
                             : readInput(ih, iw);
            xv.push_back(vector::BroadcastOp::create(b, loc, vecType, x));
          }
          for (int64_t v = 0; v < tile.filterVectors; ++v) {
            Value &a = next[j * tile.filterVectors + v];
            Value xs = xv[k.vectorInputs ? v : 0];
            a = k.microKernel->emitMultiplyAccumulate(b, loc, w[v], xs, a);
          }
        }
      }
      return next;
    };
    SmallVector<Value> next(acc.begin(), acc.end());
    if (!dynamicRows) {
      auto [first, last] =
          site.khRange.value_or(std::make_pair(int64_t(0), conv.kernelHeight));
      for (int64_t kh = first; kh < last; ++kh)
        next = tapRow(e.idx(kh), kh, next);
      return next;
    }
    return e.loopOver(khBegin, khEnd, 1, next, [&](Value kh, ValueRange a) {
      return tapRow(kh, std::nullopt, SmallVector<Value>(a));
    });
  });
}
