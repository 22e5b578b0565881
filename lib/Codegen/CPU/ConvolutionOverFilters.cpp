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

/// Output heights up to this emit the rows whose tap rows read the padding
/// on their own (unrolled tap rows) instead of in a loop over a computed
/// range of tap rows.
static constexpr int64_t kStaticRows = 14;

/// The most groups of positions one block of filters is split into for the
/// threads (each reads all the block's weights): two per thread up to 4
/// threads.
static constexpr int64_t kPositionGroups = 8;

/// The range [first, last) of the `size` taps at `pos` + tap * `dilation`
/// - `offset` that fall inside [0, `inSize`) (first == last: none).
static std::pair<int64_t, int64_t> insideRange(int64_t size, int64_t pos,
                                               int64_t dilation,
                                               int64_t offset, int64_t inSize) {
  int64_t first = size, last = 0;
  for (int64_t t = 0; t < size; ++t) {
    int64_t i = pos + t * dilation - offset;
    if (i >= 0 && i < inSize) {
      first = std::min(first, t);
      last = t + 1;
    }
  }
  return {std::min(first, last), last};
}

/// `body(value)` in the first (or `last`) of the groups only, `value` in
/// the others; without groups, `body(value)`.
static Value inEndGroup(ConvLoopEmitter &e, const PositionGroup *group,
                        bool last, Value value,
                        function_ref<Value(Value)> body) {
  if (!group)
    return body(value);
  OpBuilder &b = e.b;
  Value here =
      arith::CmpIOp::create(b, e.loc, arith::CmpIPredicate::eq, group->index,
                            e.idx(last ? group->count - 1 : 0));
  auto ifOp = scf::IfOp::create(b, e.loc, TypeRange{value.getType()}, here,
                                /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, e.loc, body(value));
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, e.loc, value);
  return ifOp.getResult(0);
}

/// The loop over [`begin`, `end`) step `step` carrying `value`, or in a
/// `group`, the part of it in the group's share of [0, `size`): as many
/// steps as the other groups' shares, give or take one (the tiles before
/// and after the loop, which the first and last groups emit, count too:
/// 14 rows in 8 groups, the edge rows not counted, left one group 3 rows,
/// and 2 threads ran 8 rows' time against 7).
static Value loopInGroup(ConvLoopEmitter &e, const PositionGroup *group,
                         int64_t begin, int64_t end, int64_t size, int64_t step,
                         Value value, function_ref<Value(Value, Value)> loop,
                         int64_t parallelWork) {
  Value lower = e.idx(begin), upper = e.idx(end);
  if (group) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    int64_t steps = size / step;
    // step * floor(index * steps / count), and from index + 1, within
    // [begin, end).
    auto bound = [&](Value index) {
      Value share = arith::DivUIOp::create(b, loc, e.mul(index, steps),
                                           e.idx(group->count));
      return e.mul(share, step);
    };
    Value first = bound(group->index), last = bound(e.add(group->index, 1));
    lower = begin > 0 ? arith::MaxUIOp::create(b, loc, first, lower) : first;
    upper =
        end < steps * step ? arith::MinUIOp::create(b, loc, last, upper) : last;
    parallelWork = 0;
  }
  return e.loopOver(
      lower, upper, step, value,
      [&](Value iv, ValueRange a) {
        return SmallVector<Value>{loop(iv, a[0])};
      },
      parallelWork)[0];
}

/// The range [begin, end) of rows or tiles of `step` along [0, `size`)
/// from the first to the last for which `inner(start)` holds.
static std::pair<int64_t, int64_t>
innerRange(int64_t size, int64_t step, function_ref<bool(int64_t)> inner) {
  int64_t begin = 0, end = size;
  while (begin < end && !inner(begin))
    begin += step;
  while (end > begin && !inner(end - step))
    end -= step;
  return {begin, end};
}

/// `value` carried over the tiles of `step` along [0, `size`): the tiles
/// before the first and after the last for which `inner(start)` holds are
/// emitted one by one (`edge(start, count, value)`, `count` = `step`), the
/// others in one loop (`loop(iv, value)`, marked parallel for
/// `parallelWork`). A `size` that `step` does not divide ends with one more
/// tile emitted on its own: at `size - step`, overlapping the one before
/// it, or (`remainder`) at the end of the whole tiles, of the `count` left.
/// In a `group`, only its share of the loop, and the tiles before it in
/// the first group, those after it in the last.
static Value splitEdges(ConvLoopEmitter &e, int64_t size, int64_t step,
                        bool remainder, function_ref<bool(int64_t)> inner,
                        Value value,
                        function_ref<Value(int64_t, int64_t, Value)> edge,
                        function_ref<Value(Value, Value)> loop,
                        int64_t parallelWork = 0,
                        const PositionGroup *group = nullptr) {
  int64_t whole = size / step * step;
  if (whole != size) {
    value = splitEdges(e, whole, step, remainder, inner, value, edge, loop,
                       parallelWork, group);
    return inEndGroup(e, group, /*last=*/true, value, [&](Value v) {
      return remainder ? edge(whole, size - whole, v)
                       : edge(size - step, step, v);
    });
  }
  auto [begin, end] = innerRange(size, step, inner);
  if (begin > 0)
    value = inEndGroup(e, group, /*last=*/false, value, [&](Value v) {
      for (int64_t at = 0; at < begin; at += step)
        v = edge(at, step, v);
      return v;
    });
  if (begin < end)
    value = loopInGroup(e, group, begin, end, size, step, value, loop,
                        parallelWork);
  if (end < size)
    value = inEndGroup(e, group, /*last=*/true, value, [&](Value v) {
      for (int64_t at = end; at < size; at += step)
        v = edge(at, step, v);
      return v;
    });
  return value;
}

/// Whether output row `row`'s taps read no padding.
static bool rowInside(const FilterKernel &k, int64_t row) {
  const Conv2D &conv = k.conv;
  return insideRange(conv.kernelHeight, row * conv.strideH, conv.dilationH,
                     k.top, k.inHeight) ==
         std::make_pair(int64_t(0), conv.kernelHeight);
}

/// What emitPositionTiles shares among groups: the whole tiles of
/// positions, or the rows.
static int64_t groupedSteps(const FilterKernel &k) {
  const Conv2D &conv = k.conv;
  if (!k.tile.rowSegment)
    return conv.outHeight * conv.outWidth / k.tile.positions;
  return conv.outHeight;
}

/// The tiles of positions of one image and block of filters, each emitted
/// by `emitTile(site, out)` (the site's positions set) into `out`: row-major
/// over the positions, or row segments with the tiles whose taps read the
/// padding on their own. Positions that whole tiles do not cover are one
/// more tile, which overlaps the one before it, or (a kernel run in channel
/// chunks, which adds each chunk to what the tiles wrote) covers only them.
/// With a `group`, only the group's share of them.
static Value
emitPositionTiles(ConvLoopEmitter &e, const FilterKernel &k,
                  int64_t positionWork,
                  function_ref<Value(FilterTileSite, Value)> emitTile,
                  Value out0, const PositionGroup *group) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Conv2D &conv = k.conv;
  const FilterTile &tile = k.tile;
  int64_t positions = conv.outHeight * conv.outWidth;
  bool remainders = k.channelChunk < conv.channelsPerGroup;
  if (!tile.rowSegment) {
    // Consecutive positions, row-major over (oh, ow).
    auto tileFrom = [&](Value p0, int64_t count, Value out) {
      SmallVector<Value> oh, ow;
      for (int64_t j = 0; j < count; ++j) {
        Value p = e.add(p0, j);
        oh.push_back(arith::DivUIOp::create(b, loc, p, e.idx(conv.outWidth)));
        ow.push_back(arith::RemUIOp::create(b, loc, p, e.idx(conv.outWidth)));
      }
      FilterTileSite site;
      site.oh = oh;
      site.ow = ow;
      site.khRange = {0, conv.kernelHeight};
      site.positions = count;
      return emitTile(site, out);
    };
    int64_t whole = positions / tile.positions * tile.positions;
    Value out = loopInGroup(
        e, group, 0, whole, whole, tile.positions, out0,
        [&](Value p0, Value a) { return tileFrom(p0, tile.positions, a); },
        // One block of filters: the positions are split instead.
        positionWork);
    if (whole == positions)
      return out;
    return inEndGroup(e, group, /*last=*/true, out, [&](Value v) {
      if (remainders)
        return tileFrom(e.idx(whole), positions - whole, v);
      return tileFrom(e.idx(positions - tile.positions), tile.positions, v);
    });
  }
  // The column tiles of a row whose taps read the padding are emitted on
  // their own, without those taps, and its inner tiles in a loop; the inner
  // rows run in a loop with every tap unrolled, the rows whose tap rows read
  // the padding in one more loop over their range of tap rows
  // (bench/notes/vectorize-convolutions.md).
  auto full = std::make_pair(int64_t(0), conv.kernelHeight);
  auto inside = [&](int64_t row) { return rowInside(k, row); };
  auto colsInside = [&](int64_t col0) {
    for (int64_t j = 0; j < tile.positions; ++j)
      if (insideRange(conv.kernelWidth, (col0 + j) * conv.strideW,
                      conv.dilationW, k.left, k.inWidth) !=
          std::make_pair(int64_t(0), conv.kernelWidth))
        return false;
    return true;
  };
  // One output row: its edge tiles, and its inner tiles in a loop.
  auto rowAt = [&](Value oh0, Value a2,
                   std::optional<std::pair<int64_t, int64_t>> khRange) {
    auto tileAt = [&](Value ow0, int64_t count, std::optional<int64_t> firstCol,
                      Value out) {
      SmallVector<Value> oh(count, oh0), ow;
      for (int64_t j = 0; j < count; ++j)
        ow.push_back(e.add(ow0, j));
      FilterTileSite site;
      site.oh = oh;
      site.ow = ow;
      site.khRange = khRange;
      site.firstCol = firstCol;
      site.positions = count;
      return emitTile(site, out);
    };
    return splitEdges(
        e, conv.outWidth, tile.positions, remainders, colsInside, a2,
        [&](int64_t col0, int64_t count, Value out) {
          return tileAt(e.idx(col0), count, col0, out);
        },
        [&](Value ow0, Value out) {
          return tileAt(ow0, tile.positions, std::nullopt, out);
        });
  };
  // The rows before and after the inner ones, each on its own with its tap
  // rows unrolled when there are few rows (7x7, 14x14: a loop over their
  // range measured 1.3x slower there).
  if (conv.outHeight <= kStaticRows)
    return splitEdges(
        e, conv.outHeight, 1, /*remainder=*/false, inside, out0,
        [&](int64_t row, int64_t, Value out) {
          return rowAt(e.idx(row), out,
                       insideRange(conv.kernelHeight, row * conv.strideH,
                                   conv.dilationH, k.top, k.inHeight));
        },
        [&](Value oh0, Value out) { return rowAt(oh0, out, full); },
        positionWork, group);
  auto [innerBegin, innerEnd] = innerRange(conv.outHeight, 1, inside);
  Value out = out0;
  if (innerBegin < innerEnd)
    out = loopInGroup(
        e, group, innerBegin, innerEnd, conv.outHeight, 1, out,
        [&](Value oh0, Value a2) { return rowAt(oh0, a2, full); },
        positionWork);
  // Else in one loop (2% slower on ResNet-18's 3x3 layers at 28x28 and
  // 56x56, but the model compiles in 15.0 s instead of 19.6): edge row i is
  // row i before innerBegin, else innerEnd + (i - innerBegin). In the last
  // group, with groups.
  int64_t edgeRows = conv.outHeight - (innerEnd - innerBegin);
  if (edgeRows > 0)
    out = inEndGroup(e, group, /*last=*/true, out, [&](Value v) {
      return e.loop(edgeRows, 1, v, [&](Value i, ValueRange a2) {
        Value row = i;
        if (innerBegin == 0)
          row = e.add(i, innerEnd);
        else if (innerEnd < conv.outHeight)
          row = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                    e.idx(innerBegin)),
              i, e.add(i, innerEnd - innerBegin));
        return SmallVector<Value>{rowAt(row, a2[0], std::nullopt)};
      })[0];
    });
  return out;
}

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
  // Images outside the blocks of filters, or inside where that reads less
  // (a batch's late 3x3 layers: each block's weights read once for all
  // images; ResNet-18's 512 filters at 7 x 7, batch 8: 0.84-0.88x the time).
  bool imagesInside =
      imagesInsideFilterBlocks(conv, k.block, k.inHeight, k.inWidth);
  // The multiply-adds that mark the position tiles' loop parallel: the
  // kernel's when the filters are one block, the last block's when it
  // overlaps the one before (it runs after the loop over whole blocks).
  int64_t tilesWork = positionWork;
  // The share of the tiles the current iteration emits, in a loop over
  // groups of them (or null: all).
  const PositionGroup *tileGroup = nullptr;
  // The loops over images (n) and blocks of filters (f0) in that order,
  // around `body(n, f0, carried)`.
  using Body = function_ref<SmallVector<Value>(Value, Value, ValueRange)>;
  auto nest = [&](Body body) {
    auto images = [&](ValueRange args,
                      function_ref<SmallVector<Value>(Value, ValueRange)> in) {
      return e.loop(conv.batch, 1, args, in);
    };
    // The whole blocks of filters in a loop; an overlapping last block
    // after it, its positions split across the threads instead (run on
    // the calling thread alone, SqueezeNet's 64 filters in blocks of 24
    // left a third of each such layer on one core at 2 threads).
    auto filterBlocks =
        [&](ValueRange args,
            function_ref<SmallVector<Value>(Value, ValueRange)> in) {
          int64_t whole = conv.filters / k.block * k.block;
          int64_t blocks = whole / k.block;
          // The multiply-adds of one block of filters.
          int64_t blockWork = filterWork / conv.filters * k.block;
          // `in(f0, carried)` over group `index` of `groups` of positions.
          auto inGroup = [&](Value index, int64_t groups, Value f0,
                             ValueRange a) {
            PositionGroup share{index, groups};
            tileGroup = &share;
            SmallVector<Value> r = in(f0, a);
            tileGroup = nullptr;
            return r;
          };
          // Too few whole blocks to share among threads evenly (five on two
          // threads: three against two) are split into groups of positions
          // too, the loop running over blocks x groups.
          int64_t groups = 1;
          if (filterWork && blocks > 0)
            groups =
                std::min({groupedSteps(k),
                          int64_t(llvm::divideCeil(kPositionGroups, blocks)),
                          blockWork / kMinParallelWork});
          SmallVector<Value> results;
          if (groups < 2)
            results = e.loop(whole, k.block, args, in, filterWork);
          else
            results = e.loop(
                blocks * groups, 1, args,
                [&](Value i, ValueRange a) {
                  Value f0 =
                      e.mul(arith::DivUIOp::create(b, loc, i, e.idx(groups)),
                            k.block);
                  return inGroup(
                      arith::RemUIOp::create(b, loc, i, e.idx(groups)), groups,
                      f0, a);
                },
                filterWork);
          if (whole == conv.filters)
            return results;
          Value last = e.idx(conv.filters - k.block);
          if (k.channelChunk == conv.channelsPerGroup) {
            tilesWork = blockWork;
            results = in(last, results);
            tilesWork = positionWork;
            return results;
          }
          // In channel chunks, the tiles' loop runs once per chunk: split
          // across threads there, each pass moved the partial sums from
          // core to core (ResNet-50's 14x14 256 -> 256 layers at 2 threads:
          // the last block's 32 passes 2.2x slower than on one thread,
          // Zen 4). The loop over groups of positions is the parallel one,
          // each group running all the chunks over its own positions.
          groups = std::min(
              {groupedSteps(k), kPositionGroups, blockWork / kMinParallelWork});
          if (groups < 2)
            return in(last, results);
          return e.loop(
              groups, 1, results,
              [&](Value index, ValueRange a) {
                return inGroup(index, groups, last, a);
              },
              blockWork);
        };
    if (imagesInside)
      return filterBlocks(init, [&](Value f0, ValueRange a) {
        return images(a, [&](Value n, ValueRange a2) {
          return body(n, f0, a2);
        });
      });
    return images(init, [&](Value n, ValueRange a) {
      return filterBlocks(a, [&](Value f0, ValueRange a2) {
        return body(n, f0, a2);
      });
    });
  };
  SmallVector<Value> results =
      nest([&](Value n, Value f0, ValueRange a1) -> SmallVector<Value> {
              Value group = arith::DivUIOp::create(b, loc, f0,
                                                   e.idx(conv.filtersPerGroup));
              Value channelBase = e.mul(group, conv.channelsPerGroup);
              // (The overlapping last block, from F - block, is the last
              // packed block: ceil((F - block) / block).)
              Value fBlock =
                  tile.filtersOverlapLast
                      ? arith::CeilDivUIOp::create(b, loc, f0, e.idx(k.block))
                            .getResult()
                      : arith::DivUIOp::create(b, loc, f0, e.idx(k.block))
                            .getResult();
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
              // The kernel's pass over the channels, in a kernel run in
              // channel chunks (null otherwise).
              const ChannelChunkPass *pass = nullptr;
              // One tile at positions (oh[j], ow[j]), written into `out`.
              auto emitTile = [&](FilterTileSite site, Value out) {
                site.n = n;
                site.f0 = f0;
                site.fBlock = fBlock;
                site.channelBase = channelBase;
                if (pass)
                  return emitChunkTile(e, k, site, *pass, out);
                SmallVector<Value> summed =
                    accumulateFilterTile(e, k, site, start, out);
                return storeFilterTile(e, k, site, summed, out);
              };
              auto tiles = [&](Value out) {
                return emitPositionTiles(e, k, tilesWork, emitTile, out,
                                         tileGroup);
              };
              if (k.channelChunk == conv.channelsPerGroup)
                return SmallVector<Value>{tiles(a1[0])};
              return SmallVector<Value>{emitChannelChunks(
                  e, k, start, a1[0],
                  [&](const ChannelChunkPass &chunk, Value out) {
                    pass = &chunk;
                    return tiles(out);
                  })};
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
  // Tiles may overlap when the accumulators start from the bias or 0.
  ConvPrologue prologue =
      prologueOf(op, conv.channelDim(), options.fuseEpilogue);
  bool fresh = prologue.bias || prologue.zero;
  std::optional<FilterTile> tile = planFilterTile(
      conv, filterLanes, padding.has_value(), options.accumulators, fresh);
  if (!tile && lanes >= 16) {
    filterLanes = lanes / 2;
    tile = planFilterTile(conv, filterLanes, padding.has_value(),
                          options.accumulators, fresh);
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
