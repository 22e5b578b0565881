//===- ConvolutionOverFilters.cpp - Convolution tiles over filters --------===//
//
// The convolution kernel vectorized over filters: loops over images, tiles
// of filters and tiles of output positions (or rows of them, with a padded
// input read unpadded), each tile planned, accumulated and stored by the
// steps of ConvolutionOverFilters.h.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "ConvolutionOverFilters.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

/// Output heights up to this emit their padded rows on their own (unrolled
/// tap rows) instead of looping over a computed range of tap rows.
static constexpr int64_t kStaticRows = 14;

/// The kernel's loop nest over `init`: per image and block of filters, the
/// tiles of positions (`positionWork`: the multiply-adds that mark the
/// positions' loop parallel, when the filters are one block). Returns what
/// the outermost loop yields.
static Value emitFilterLoops(ConvLoopEmitter &e, const FilterKernel &k,
                             Value init, int64_t positionWork,
                             int64_t filterWork) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  const FilterTile &tile = k.tile;
  int64_t lanes = k.lanes;
  SmallVector<bool> inBounds = {true};
  int64_t positions = conv.outHeight * conv.outWidth;
  SmallVector<Value> results =
      e.loop(conv.batch, 1, init, [&](Value n, ValueRange a0) {
        return e.loop(
            conv.filters, k.block, a0,
            [&](Value f0, ValueRange a1) {
              Value group = arith::DivUIOp::create(b, loc, f0,
                                                   e.idx(conv.filtersPerGroup));
              Value channelBase = e.mul(group, conv.channelsPerGroup);
              Value fBlock = arith::DivUIOp::create(b, loc, f0, e.idx(k.block));
              // The accumulators' start along the filters: the bias, 0, or
              // (no prologue) the output's values.
              SmallVector<Value> start;
              for (int64_t v = 0; v < tile.filterVectors; ++v) {
                if (k.prologue.bias)
                  start.push_back(vector::TransferReadOp::create(
                      b, loc, k.vecType, k.prologue.bias,
                      ValueRange{e.add(f0, v * lanes)}, e.pad(), inBounds));
                else if (k.prologue.zero)
                  start.push_back(e.zeroVector(k.vecType));
              }
              // One tile at positions (oh[j], ow[j]), written into `out`.
              auto emitTile =
                  [&](ArrayRef<Value> oh, ArrayRef<Value> ow, Value out,
                      std::optional<std::pair<int64_t, int64_t>> khRange) {
                    FilterTileSite site{n,  f0, fBlock, channelBase,
                                        oh, ow, khRange};
                    SmallVector<Value> summed =
                        accumulateFilterTile(e, k, site, start, out);
                    return storeFilterTile(e, k, site, summed, out);
                  };
              if (!tile.rowSegment) {
                // Consecutive positions, row-major over (oh, ow).
                return e.loop(
                    positions, tile.positions, a1,
                    [&](Value p0, ValueRange a2) {
                      SmallVector<Value> oh, ow;
                      for (int64_t j = 0; j < tile.positions; ++j) {
                        Value p = e.add(p0, j);
                        oh.push_back(arith::DivUIOp::create(
                            b, loc, p, e.idx(conv.outWidth)));
                        ow.push_back(arith::RemUIOp::create(
                            b, loc, p, e.idx(conv.outWidth)));
                      }
                      return SmallVector<Value>{
                          emitTile(oh, ow, a2[0], std::nullopt)};
                    },
                    // One block of filters: the positions are split
                    // instead.
                    positionWork);
              }
              // Columns of one output row at a time.
              auto rowAt =
                  [&](Value oh0, ValueRange a2,
                      std::optional<std::pair<int64_t, int64_t>> khRange) {
                    return e.loop(conv.outWidth, tile.positions, a2,
                                  [&](Value ow0, ValueRange a3) {
                                    SmallVector<Value> oh(tile.positions, oh0),
                                        ow;
                                    for (int64_t j = 0; j < tile.positions; ++j)
                                      ow.push_back(e.add(ow0, j));
                                    return SmallVector<Value>{
                                        emitTile(oh, ow, a3[0], khRange)};
                                  });
                  };
              if (!k.rowsReadPadding || conv.outHeight > kStaticRows)
                return e.loop(
                    conv.outHeight, 1, a1,
                    [&](Value oh0, ValueRange a2) {
                      return rowAt(oh0, a2, std::nullopt);
                    },
                    positionWork);
              // Few rows (7x7, 14x14): the rows whose tap rows read the
              // padding are emitted on their own, each with its range of
              // tap rows unrolled; the others in a loop, all unrolled
              // (measurements: bench/notes/vectorize-convolutions.md).
              auto rangeAt = [&](int64_t row) {
                int64_t first = conv.kernelHeight, last = 0;
                for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
                  int64_t ih = row * conv.strideH + kh * conv.dilationH - k.top;
                  if (ih >= 0 && ih < k.inHeight) {
                    first = std::min(first, kh);
                    last = kh + 1;
                  }
                }
                return std::make_pair(std::min(first, last), last);
              };
              auto full = std::make_pair(int64_t(0), conv.kernelHeight);
              int64_t innerBegin = 0, innerEnd = conv.outHeight;
              while (innerBegin < innerEnd && rangeAt(innerBegin) != full)
                ++innerBegin;
              while (innerEnd > innerBegin && rangeAt(innerEnd - 1) != full)
                --innerEnd;
              SmallVector<Value> carried(a1.begin(), a1.end());
              for (int64_t row = 0; row < conv.outHeight; ++row) {
                if (row == innerBegin && innerBegin < innerEnd) {
                  carried = e.loopOver(e.idx(innerBegin), e.idx(innerEnd), 1,
                                       carried, [&](Value oh0, ValueRange a2) {
                                         return rowAt(oh0, a2, full);
                                       });
                  row = innerEnd - 1;
                  continue;
                }
                carried = rowAt(e.idx(row), carried, rangeAt(row));
              }
              return carried;
            },
            filterWork);
      });
  return results[0];
}

/// Output tiles of `filterVectors * lanes` filters x `positions` output
/// positions: per channel and tap, the tile loads its filters' weights
/// as vectors and broadcasts one input value per position. With a padded
/// input, the taps read the unpadded input: the tiles on the border
/// are emitted one by one, without the taps that fall in the padding.
FailureOr<Value> mlir::tessel::vectorizeConvolutionOverFilters(
    RewriterBase &rewriter, linalg::GenericOp op,
    const ConvolutionTilingOptions &options) {
  std::optional<Conv2D> match = matchConv2D(op);
  if (!match)
    return rewriter.notifyMatchFailure(op, "not a 2-D convolution");
  const Conv2D &conv = *match;
  const MicroKernel *microKernel = getConvolutionMicroKernel(op, options);
  if (!microKernel)
    return rewriter.notifyMatchFailure(
        op, "no micro-kernel that takes one tap at a time");
  int64_t lanes = options.vectorWidth;
  // Filters in whole vectors, else in half vectors (24 or 40 filters
  // with AVX-512): still far faster than vectors over output columns,
  // which reload every input row for each filter.
  // A zero-padded input is read unpadded, the padded taps skipped.
  std::optional<ConvPadding> padding = paddingOf(op, conv);
  int64_t filterLanes = lanes;
  std::optional<FilterTile> tile = planFilterTile(
      conv, filterLanes, padding.has_value(), options.accumulators);
  if (!tile && lanes >= 16) {
    filterLanes = lanes / 2;
    tile = planFilterTile(conv, filterLanes, padding.has_value(),
                          options.accumulators);
  }
  if (!tile)
    return rewriter.notifyMatchFailure(
        op, "a group's filters fill no whole (or half) vectors");
  DenseElementsAttr weights;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
    return rewriter.notifyMatchFailure(op, "the weights are not a constant");

  FilterKernel k = planFilterKernel(op, conv, *tile, filterLanes,
                                    std::move(padding), options.fuseEpilogue);
  k.microKernel = microKernel;
  // At the epilogue, when there is one: its other inputs may be computed
  // after the convolution.
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *anchor =
      k.epilogue ? k.epilogue->op.getOperation() : op.getOperation();
  rewriter.setInsertionPoint(anchor);
  ConvLoopEmitter e(rewriter, anchor, op.getLoc());
  OpBuilder &b = e.b;
  Location loc = e.loc;
  k.packed =
      arith::ConstantOp::create(e.entry, loc, packWeights(weights, k.block));
  // The per-channel shift the input is read through, if any.
  if (k.padding && !k.padding->shift.empty()) {
    auto shiftType = RankedTensorType::get({int64_t(k.padding->shift.size())},
                                           b.getF32Type());
    k.shifts = arith::ConstantOp::create(
        e.entry, loc,
        DenseElementsAttr::get(shiftType, ArrayRef<float>(k.padding->shift)));
  }

  int64_t work = convolutionWork(conv);
  int64_t positionWork = conv.filters == k.block ? work : 0;
  int64_t filterWork = conv.filters == k.block ? 0 : work;
  SmallVector<ReassociationIndices> plane = {{0}, {1}, {2, 3}};
  Value init = k.prologue.init;
  if (k.planeStores)
    init = tensor::CollapseShapeOp::create(b, loc, init, plane);
  Value result = emitFilterLoops(e, k, init, positionWork, filterWork);
  if (k.planeStores)
    result = tensor::ExpandShapeOp::create(b, loc, k.prologue.init.getType(),
                                           result, plane);
  finishConvolution(rewriter, op, result, k.prologue, k.epilogue);
  if (k.readThrough && k.readThrough->use_empty())
    rewriter.eraseOp(k.readThrough);
  return result;
}
