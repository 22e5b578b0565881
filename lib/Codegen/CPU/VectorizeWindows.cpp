//===- VectorizeWindows.cpp - Vector loops for 2-D pooling windows --------===//
//
// Rewrites the window reductions that pooling lowers to (max, sum; NCHW,
// any stride and dilation) into loops over vectors of output columns. See
// the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Support/Remarks.h"

#include "AffineProbes.h"
#include "KernelMarks.h"
#include "ParallelMarks.h"
#include "TileSizes.h"
#include "VectorTypes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZEWINDOWSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Windows with more taps stay scalar loops.
constexpr int64_t kMaxTaps = 64;

/// One 2-D window reduction: loops (n, c, oh, ow, kh, kw) reading
/// in[n, c, oh * sh + kh * dh, ow * sw + kw * dw].
/// Channels last (tessel-assign-layouts), the same loops read
/// in[n, oh * sh + kh * dh, ow * sw + kw * dw, c] into out[n, oh, ow, c].
struct Window2D {
  int64_t batch, channels, outHeight, outWidth, kernelHeight, kernelWidth;
  int64_t strideH, strideW, dilationH, dilationW;
  bool channelsLast = false;
  unsigned rowDim() const { return channelsLast ? 1 : 2; }
  /// Taps over all outputs (how much the loop nest does).
  int64_t work() const {
    return cpu::workOf(
        {batch, channels, outHeight, outWidth, kernelHeight, kernelWidth});
  }
  unsigned colDim() const { return channelsLast ? 2 : 3; }
};

/// Whether every op of the body is elementwise arith/math that reads the
/// input element and the accumulator (never the window tensor's element).
bool hasElementwiseBody(linalg::GenericOp op) {
  Block *body = op.getBlock();
  if (!body->getArgument(1).use_empty())
    return false;
  for (Operation &nested : body->without_terminator())
    if (!nested.hasTrait<OpTrait::Elementwise>() ||
        nested.getNumResults() != 1 ||
        !isa<arith::ArithDialect, math::MathDialect>(nested.getDialect()))
      return false;
  return true;
}

/// Recognizes the 2-D window reduction generic of tessel-convert-tessel-to-
/// linalg's pooling lowering.
std::optional<Window2D> matchWindow2D(linalg::GenericOp op) {
  if (op.getNumLoops() != 6 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int i = 0; i < 6; ++i)
    if (iterators[i] != (i < 4 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  // f32, or a model's own f16 or bf16 values (its average pooling may sum
  // them in f32: the body extends them).
  for (Value v : {op.getDpsInputs()[0], op.getDpsInits()[0]})
    if (!cpu::isVectorFloat(getElementTypeOrSelf(v.getType())))
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Window2D w;
  if (maps[2] == AffineMap::get(6, 0, {d(0), d(2), d(3), d(1)}, ctx))
    w.channelsLast = true;
  else if (maps[2] != AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx))
    return std::nullopt;
  unsigned channelDim = w.channelsLast ? 3 : 1;
  if (maps[1] != AffineMap::get(6, 0, {d(4), d(5)}, ctx) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(0) ||
      maps[0].getResult(channelDim) != d(1) || !hasElementwiseBody(op))
    return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> rows =
      cpu::linearIn(maps[0].getResult(w.rowDim()), 2, 4, 6);
  std::optional<std::pair<int64_t, int64_t>> cols =
      cpu::linearIn(maps[0].getResult(w.colDim()), 3, 5, 6);
  if (!rows || !cols)
    return std::nullopt;
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  w.batch = outType.getDimSize(0);
  w.channels = outType.getDimSize(channelDim);
  w.outHeight = outType.getDimSize(w.rowDim());
  w.outWidth = outType.getDimSize(w.colDim());
  w.kernelHeight = ranges[4];
  w.kernelWidth = ranges[5];
  std::tie(w.strideH, w.dilationH) = *rows;
  std::tie(w.strideW, w.dilationW) = *cols;
  // Every tap is unrolled: huge windows (ONNX's tests have 60x80) would
  // make huge code. Global pooling is a reduction, not a window.
  if (w.kernelHeight * w.kernelWidth > kMaxTaps)
    return std::nullopt;
  return w;
}

/// Whether the body is one max or min of the element and the accumulator:
/// an exact, associative and commutative combination, so the taps may be
/// combined in any order (NaN and signed zeros included).
bool isExactCombination(linalg::GenericOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2)
    return false;
  Operation &combine = body->front();
  return isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(combine) &&
         body->getTerminator()->getOperand(0) == combine.getResult(0);
}

/// Where the taps read: the window's input, or the input of the constant
/// `tensor.pad` it reads when that is the combination's identity (-inf for
/// a max, +inf for a min). A padded tap then reads the nearest element
/// inside instead (rows and columns clamped), which is in the same window
/// when the window is contiguous (dilation 1) and never lies wholly in the
/// padding: max and min ignore the repeated element, so the result is
/// exact.
struct Source {
  Value tensor;
  int64_t top = 0, left = 0, height = 0, width = 0;
  bool clamped = false;
};

Source sourceOf(linalg::GenericOp op, const Window2D &w) {
  Source source;
  source.tensor = op.getDpsInputs()[0];
  auto pad = source.tensor.getDefiningOp<tensor::PadOp>();
  if (!pad || !isExactCombination(op) || w.dilationH != 1 || w.dilationW != 1 ||
      !pad.getSourceType().hasStaticShape())
    return source;
  FloatAttr value;
  if (!pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_Constant(&value)) ||
      !value.getValue().isInfinity())
    return source;
  bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(op.getBlock()->front());
  if (value.getValue().isNegative() != isMax)
    return source;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  unsigned rowDim = w.rowDim(), colDim = w.colDim();
  for (unsigned i = 0; i < 4; ++i)
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0 ||
        (i != rowDim && i != colDim && (low[i] || high[i])))
      return source;
  int64_t height = pad.getSourceType().getDimSize(rowDim);
  int64_t width = pad.getSourceType().getDimSize(colDim);
  // Every window keeps an element inside.
  auto overlaps = [](int64_t outputs, int64_t stride, int64_t kernel,
                     int64_t offset, int64_t size) {
    for (int64_t o = 0; o < outputs; ++o)
      if (o * stride - offset + kernel - 1 < 0 || o * stride - offset >= size)
        return false;
    return true;
  };
  if (!overlaps(w.outHeight, w.strideH, w.kernelHeight, low[rowDim], height) ||
      !overlaps(w.outWidth, w.strideW, w.kernelWidth, low[colDim], width))
    return source;
  source.tensor = pad.getSource();
  source.top = low[rowDim];
  source.left = low[colDim];
  source.height = height;
  source.width = width;
  source.clamped = true;
  return source;
}

/// `body` of `op` applied to vectors: each op cloned with vector results,
/// scalars from outside broadcast.
Value applyBody(OpBuilder &b, Location loc, linalg::GenericOp op, Value element,
                Value acc) {
  Block *body = op.getBlock();
  auto type = cast<VectorType>(acc.getType());
  IRMapping map;
  map.map(body->getArgument(0), element);
  map.map(body->getArgument(2), acc);
  for (Operation &nested : body->without_terminator()) {
    for (Value operand : nested.getOperands())
      if (!map.contains(operand))
        map.map(operand, vector::BroadcastOp::create(b, loc, type, operand));
    Operation *clone = b.clone(nested, map);
    clone->getResult(0).setType(
        type.clone(getElementTypeOrSelf(nested.getResult(0).getType())));
  }
  return map.lookup(body->getTerminator()->getOperand(0));
}

/// How the output columns are tiled.
struct Tile {
  int64_t width;             // output columns per tile
  VectorType accType;        // vector<width>
  VectorType segmentType;    // the input row segment under a tile
  SmallVector<int64_t> keep; // its lanes that are the tile's columns
  bool combineWide;          // combine whole segments, then pick lanes
  Value pad;                 // the input transfers' padding value
  Value accPad;              // the output's
  Value start;               // the accumulators' start, or null: read it
  bool overlapsLast = false; // the last tile starts `width` before the end
};

Tile planTile(linalg::GenericOp op, const Window2D &w, const Source &source,
              int64_t lanes, bool fresh) {
  Tile t;
  t.width = pickDivisor(w.outWidth, {lanes, lanes / 2}, lanes);
  // Widths that no whole or half vector divides (13, 27, 7 columns) would
  // take a tile as wide as a divisor: 1 column for 13 (SqueezeNet's last
  // 512-channel max pool ran 26x onnxruntime's time), odd widths that LLVM
  // splits into pieces. When the output is only written (the accumulators
  // start from the fill's constant), whole or half vectors are taken and
  // the last tile overlaps the one before it: the columns computed twice
  // are written twice alike.
  if (fresh && t.width != lanes && t.width != lanes / 2)
    for (int64_t width : {lanes, lanes / 2})
      if (width > 1 && width <= w.outWidth) {
        t.width = width;
        t.overlapsLast = w.outWidth % width != 0;
        break;
      }
  // The segment under a tile: (width - 1) * stride + 1 elements, rounded up
  // to width * stride (a whole number of registers, not an odd length LLVM
  // would split into pieces) where the last tile's segment still ends
  // inside the input row (clamped, the edge tiles read inside anyway).
  int64_t span = (t.width - 1) * w.strideW + 1;
  int64_t inputWidth =
      cast<RankedTensorType>(op.getDpsInputs()[0].getType()).getDimSize(3);
  int64_t lastStart =
      (w.outWidth - t.width) * w.strideW + (w.kernelWidth - 1) * w.dilationW;
  if (source.clamped ? t.width * w.strideW <= source.width
                     : lastStart + t.width * w.strideW <= inputWidth)
    span = t.width * w.strideW;
  t.accType = VectorType::get(
      {t.width}, getElementTypeOrSelf(op.getDpsInits()[0].getType()));
  t.segmentType = VectorType::get(
      {span}, getElementTypeOrSelf(op.getDpsInputs()[0].getType()));
  for (int64_t i = 0; i < t.width; ++i)
    t.keep.push_back(i * w.strideW);
  t.combineWide = w.strideW > 1 && isExactCombination(op);
  return t;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A zero of float type `element` (a transfer's padding value).
Value zeroOf(OpBuilder &b, Location loc, Type element) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
}

/// `for iv = lower to upper step step` carrying one value, `body(iv,
/// carried)` yielding the next; marked parallel for `parallelWork`.
Value buildLoop(OpBuilder &at, Location loc, int64_t lower, int64_t upper,
                int64_t step, Value carried,
                function_ref<Value(OpBuilder &, Value, Value)> body,
                int64_t parallelWork) {
  auto forOp = scf::ForOp::create(
      at, loc, index(at, loc, lower), index(at, loc, upper),
      index(at, loc, step), ValueRange{carried},
      [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
        scf::YieldOp::create(nested, loc, body(nested, iv, args[0]));
      });
  tessel::cpu::markParallel(forOp, parallelWork);
  return forOp.getResult(0);
}

/// `v * scale + offset`.
Value affine(OpBuilder &b, Location loc, Value v, int64_t scale,
             int64_t offset) {
  if (scale != 1)
    v = arith::MulIOp::create(b, loc, v, index(b, loc, scale));
  if (offset != 0)
    v = arith::AddIOp::create(b, loc, v, index(b, loc, offset));
  return v;
}

/// One tile of output columns at `at` = (n, c, oh, ow) of `out`: the row
/// segments of every tap, combined into the accumulators; returns `out`
/// with the tile written. `owAt` is the tile's first column when it is an
/// edge tile of a clamped source (its segments are read inside the row and
/// their lanes clamped by a shuffle).
Value emitTile(OpBuilder &b, Location loc, linalg::GenericOp op,
               const Window2D &w, const Tile &tile, const Source &source,
               ArrayRef<Value> at, std::optional<int64_t> owAt, Value out) {
  Value n = at[0], c = at[1], oh = at[2], ow = at[3];
  SmallVector<bool> inBounds = {true};
  Value acc = tile.start;
  if (!acc)
    acc = vector::TransferReadOp::create(b, loc, tile.accType, out, at,
                                         tile.accPad, inBounds);
  Value rowBase = affine(b, loc, oh, w.strideH, -source.top);
  Value colBase = affine(b, loc, ow, w.strideW, -source.left);
  int64_t span = tile.segmentType.getDimSize(0);
  SmallVector<Value> segments;
  for (int64_t kh = 0; kh < w.kernelHeight; ++kh) {
    Value row = affine(b, loc, rowBase, 1, kh * w.dilationH);
    if (source.clamped)
      row = arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, row, index(b, loc, 0)),
          index(b, loc, source.height - 1));
    for (int64_t kw = 0; kw < w.kernelWidth; ++kw) {
      if (!owAt) {
        Value col = affine(b, loc, colBase, 1, kw * w.dilationW);
        segments.push_back(vector::TransferReadOp::create(
            b, loc, tile.segmentType, source.tensor, ValueRange{n, c, row, col},
            tile.pad, inBounds));
        continue;
      }
      // An edge tile: the segment read inside the row, each lane the
      // nearest element to its column.
      int64_t start = *owAt * w.strideW - source.left + kw;
      int64_t readAt = std::clamp<int64_t>(start, 0, source.width - span);
      Value segment = vector::TransferReadOp::create(
          b, loc, tile.segmentType, source.tensor,
          ValueRange{n, c, row, index(b, loc, readAt)}, tile.pad, inBounds);
      SmallVector<int64_t> lanes;
      bool identity = true;
      for (int64_t l = 0; l < span; ++l) {
        lanes.push_back(std::clamp<int64_t>(start + l, 0, source.width - 1) -
                        readAt);
        identity &= lanes.back() == l;
      }
      if (!identity)
        segment = vector::ShuffleOp::create(b, loc, segment, segment, lanes);
      segments.push_back(segment);
    }
  }
  auto pick = [&](Value segment) -> Value {
    if (w.strideW == 1 && tile.segmentType == tile.accType)
      return segment;
    return vector::ShuffleOp::create(b, loc, segment, segment, tile.keep);
  };
  if (tile.combineWide) {
    // Max/min: whole segments combined in a tree (a chain of 9 dependent
    // maxima made 3x3 pooling latency bound), then the lanes picked once.
    while (segments.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < segments.size(); i += 2)
        next.push_back(applyBody(b, loc, op, segments[i], segments[i + 1]));
      if (segments.size() % 2)
        next.push_back(segments.back());
      segments = std::move(next);
    }
    acc = applyBody(b, loc, op, pick(segments.front()), acc);
  } else {
    // Tap after tap: a sum is not reassociated.
    for (Value segment : segments)
      acc = applyBody(b, loc, op, pick(segment), acc);
  }
  return vector::TransferWriteOp::create(b, loc, acc, out, at, inBounds)
      .getResult();
}

struct VectorizeWindowsPass
    : tessel::impl::TesselVectorizeWindowsPassBase<VectorizeWindowsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Window2D>> windows;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Window2D> w = matchWindow2D(op))
        windows.push_back({op, *w});
    });
    int64_t lanes = std::max<int64_t>(1, vectorWidth);
    for (auto &[op, w] : windows) {
      if (!w.channelsLast) {
        rewrite(op, w, lanes);
        continue;
      }
      // Channels last: vectors of channels (whole or half registers);
      // other channel counts stay loops.
      for (int64_t width : {lanes, lanes / 2})
        if (width > 1 && w.channels % width == 0) {
          rewriteChannelsLast(op, w, width);
          break;
        }
    }
  }

  /// Channels last: for n, oh (parallel), ow, c step L: acc = the fill's
  /// value (or out[n, oh, ow, c:c+L]); per tap, the input's channel vector
  /// at (ih, iw) (a clamped source: the clamped position, which is in the
  /// same window) combined into acc; out[...] = acc.
  void rewriteChannelsLast(linalg::GenericOp op, const Window2D &w,
                           int64_t lanes) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Source source = sourceOf(op, w);
    Type inElement = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    Type outElement = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    auto vecType = VectorType::get({lanes}, inElement);
    auto accType = VectorType::get({lanes}, outElement);
    Value zero = zeroOf(b, loc, inElement);
    Value accZero = zeroOf(b, loc, outElement);
    Value init = op.getDpsInits()[0];
    Value start;
    auto fill = init.getDefiningOp<linalg::FillOp>();
    if (fill) {
      start = vector::BroadcastOp::create(b, loc, accType, fill.value());
      init = fill.getOutputs()[0];
    }
    auto inBounds = b.getBoolArrayAttr({true});
    auto loop = [&](OpBuilder &at, int64_t upper, int64_t step, Value carried,
                    function_ref<Value(OpBuilder &, Value, Value)> body,
                    int64_t parallelWork = 0) {
      return buildLoop(at, loc, 0, upper, step, carried, body, parallelWork);
    };
    // The input position of output `o` at tap `k` along one dimension.
    auto position = [&](OpBuilder &at, Value o, int64_t k, int64_t stride,
                        int64_t dilation, int64_t offset,
                        int64_t size) -> Value {
      Value v = affine(at, loc, o, stride, k * dilation - offset);
      if (!source.clamped)
        return v;
      v = arith::MaxSIOp::create(at, loc, v, index(at, loc, 0));
      return arith::MinSIOp::create(at, loc, v, index(at, loc, size - 1));
    };
    int64_t work = w.work();
    Value result =
        loop(b, w.batch, 1, init, [&](OpBuilder &bn, Value n, Value outN) {
          return loop(
              bn, w.outHeight, 1, outN,
              [&](OpBuilder &bh, Value oh, Value outH) {
                return loop(
                    bh, w.outWidth, 1, outH,
                    [&](OpBuilder &bw, Value ow, Value outW) {
                      SmallVector<std::pair<Value, Value>> taps;
                      for (int64_t kh = 0; kh < w.kernelHeight; ++kh)
                        for (int64_t kw = 0; kw < w.kernelWidth; ++kw)
                          taps.push_back(
                              {position(bw, oh, kh, w.strideH, w.dilationH,
                                        source.top, source.height),
                               position(bw, ow, kw, w.strideW, w.dilationW,
                                        source.left, source.width)});
                      return loop(
                          bw, w.channels, lanes, outW,
                          [&](OpBuilder &bc, Value c, Value out) {
                            Value acc = start ? start
                                              : vector::TransferReadOp::create(
                                                    bc, loc, accType, out,
                                                    ValueRange{n, oh, ow, c},
                                                    accZero,
                                                    ArrayRef<bool>{true})
                                                    .getResult();
                            for (auto [ih, iw] : taps) {
                              Value x = vector::TransferReadOp::create(
                                  bc, loc, vecType, source.tensor,
                                  ValueRange{n, ih, iw, c}, zero,
                                  ArrayRef<bool>{true});
                              acc = applyBody(bc, loc, op, x, acc);
                            }
                            return vector::TransferWriteOp::create(
                                       bc, loc, acc, out,
                                       ValueRange{n, oh, ow, c},
                                       AffineMapAttr::get(
                                           AffineMap::getMinorIdentityMap(
                                               4, 1, bc.getContext())),
                                       inBounds)
                                .getResult();
                          });
                    });
              },
              work);
        });
    finish(op, result, fill);
  }

  /// for n, c, oh, ow step T: acc = out[n, c, oh, ow:ow+T]; per tap, the
  /// input row segment (read whole, every stride-th lane kept) combined
  /// into acc; out[...] = acc.
  void rewrite(linalg::GenericOp op, const Window2D &w, int64_t lanes) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Source source = sourceOf(op, w);
    // An output filled with a constant (max pooling's -inf) is not read:
    // the accumulators start from the constant, and the fill goes dead.
    Value init = op.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    Tile tile = planTile(op, w, source, lanes, /*fresh=*/bool(fill));
    tile.pad = zeroOf(b, loc, tile.segmentType.getElementType());
    tile.accPad = zeroOf(b, loc, tile.accType.getElementType());
    if (fill) {
      tile.start =
          vector::BroadcastOp::create(b, loc, tile.accType, fill.value());
      init = fill.getOutputs()[0];
    }
    auto loopFrom = [&](OpBuilder &at, int64_t lower, int64_t upper,
                        int64_t step, Value carried,
                        function_ref<Value(OpBuilder &, Value, Value)> body,
                        int64_t parallelWork = 0) {
      return buildLoop(at, loc, lower, upper, step, carried, body,
                       parallelWork);
    };
    auto loop = [&](OpBuilder &at, int64_t upper, int64_t step, Value carried,
                    function_ref<Value(OpBuilder &, Value, Value)> body,
                    int64_t parallelWork = 0) {
      return loopFrom(at, 0, upper, step, carried, body, parallelWork);
    };
    // The column tiles whose segments all lie inside the row: [first, last);
    // a clamped source's others are edge tiles, emitted one by one.
    int64_t span = tile.segmentType.getDimSize(0);
    auto inside = [&](int64_t ow) {
      int64_t start = ow * w.strideW - source.left;
      return !source.clamped ||
             (start >= 0 && start + (w.kernelWidth - 1) + span <= source.width);
    };
    SmallVector<int64_t> before, after;
    int64_t first = 0, last = 0;
    for (int64_t ow = 0; ow + tile.width <= w.outWidth; ow += tile.width) {
      if (inside(ow)) {
        if (first == last)
          first = ow;
        last = ow + tile.width;
      } else {
        (first == last ? before : after).push_back(ow);
      }
    }
    // The overlapping last tile: an edge tile where a clamped source's
    // segments leave the row.
    int64_t lastTile = w.outWidth - tile.width;
    if (tile.overlapsLast && !inside(lastTile))
      after.push_back(lastTile);
    int64_t work = w.work();
    Value result =
        loop(b, w.batch, 1, init, [&](OpBuilder &bn, Value n, Value outN) {
          return loop(
              bn, w.channels, 1, outN,
              [&](OpBuilder &bc, Value c, Value outC) {
                return loop(bc, w.outHeight, 1, outC,
                            [&](OpBuilder &bh, Value oh, Value outH) {
                              auto edge = [&](int64_t ow, Value out) {
                                return emitTile(bh, loc, op, w, tile, source,
                                                {n, c, oh, index(bh, loc, ow)},
                                                ow, out);
                              };
                              for (int64_t ow : before)
                                outH = edge(ow, outH);
                              if (first < last)
                                outH = loopFrom(
                                    bh, first, last, tile.width, outH,
                                    [&](OpBuilder &bw, Value ow, Value out) {
                                      return emitTile(bw, loc, op, w, tile,
                                                      source, {n, c, oh, ow},
                                                      std::nullopt, out);
                                    });
                              for (int64_t ow : after)
                                outH = edge(ow, outH);
                              if (tile.overlapsLast && inside(lastTile))
                                outH = emitTile(
                                    bh, loc, op, w, tile, source,
                                    {n, c, oh, index(bh, loc, lastTile)},
                                    std::nullopt, outH);
                              return outH;
                            });
              },
              work);
        });
    finish(op, result, fill);
  }

  /// Records the loop nest as a kernel, replaces `op` by its `result`, and
  /// erases the padding the kernel read through and the fill it started
  /// from when nothing else uses them.
  static void finish(linalg::GenericOp op, Value result, linalg::FillOp fill) {
    tessel::reportKernel(op, "window", op.getLoc());
    op->getResult(0).replaceAllUsesWith(result);
    auto pad = op.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
    op->erase();
    if (pad && pad->use_empty())
      pad.erase();
    if (fill && fill->use_empty())
      fill->erase();
  }
};

} // namespace
