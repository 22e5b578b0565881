//===- VectorizeConvolutions.cpp - Direct NCHW convolutions in registers --===//
//
// Rewrites the 2-D convolution that tessel-convert-tessel-to-linalg emits
// (a 7-loop linalg.generic over NCHW input, FCHW weights, NCHW output) into
// a direct convolution whose output tile lives in vector registers: Fr
// filters x OHr output rows x OWr output columns, the columns vectorized.
// For each input channel and each filter tap, the tile takes one input row
// segment per output row and one broadcast weight per filter, and
// accumulates with FMAs. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"

#include "mlir/IR/AffineExprVisitor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONVOLUTIONSPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// What the rewrite needs to know of one convolution.
struct Conv2D {
  int64_t batch, filters, channelsPerGroup, filtersPerGroup;
  int64_t outHeight, outWidth, kernelHeight, kernelWidth;
  int64_t strideH, strideW, dilationH, dilationW;
};

/// `expr` evaluated at the given loop indices, if it folds to a constant.
std::optional<int64_t> evaluate(AffineExpr expr, ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> values;
  for (int64_t d : dims)
    values.push_back(getAffineConstantExpr(d, expr.getContext()));
  AffineExpr folded = simplifyAffineExpr(
      expr.replaceDims(values), dims.size(), /*numSymbols=*/0);
  if (auto constant = dyn_cast<AffineConstantExpr>(folded))
    return constant.getValue();
  return std::nullopt;
}

/// Loop indices with the given (dim, value) pairs set, the others 0.
SmallVector<int64_t> at(std::initializer_list<std::pair<int, int64_t>> set) {
  SmallVector<int64_t> dims(7, 0);
  for (auto [dim, value] : set)
    dims[dim] = value;
  return dims;
}

/// Whether `expr` is `a * d<x> + b * d<y>` for constants a, b >= 1; returns
/// them.
std::optional<std::pair<int64_t, int64_t>> linearIn(AffineExpr expr, int x,
                                                    int y) {
  for (int d = 0; d < 7; ++d)
    if (d != x && d != y && expr.isFunctionOfDim(d))
      return std::nullopt;
  std::optional<int64_t> zero = evaluate(expr, at({}));
  std::optional<int64_t> a = evaluate(expr, at({{x, 1}}));
  std::optional<int64_t> b = evaluate(expr, at({{y, 1}}));
  std::optional<int64_t> both = evaluate(expr, at({{x, 3}, {y, 5}}));
  if (!zero || !a || !b || !both || *zero != 0 || *a < 1 || *b < 1 ||
      *both != 3 * *a + 5 * *b)
    return std::nullopt;
  return std::make_pair(*a, *b);
}

/// Whether the body is `out + in0 * in1` on f32.
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = dyn_cast<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || !yield || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add.getResult())
    return false;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1),
        out = body.getArgument(2);
  bool mulOk = (mul.getLhs() == in0 && mul.getRhs() == in1) ||
               (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  return mulOk && addOk;
}

/// Recognizes the NCHW convolution generic; loops are
/// (n, f, oh, ow, c, kh, kw).
std::optional<Conv2D> matchConv2D(linalg::GenericOp op) {
  if (op.getNumLoops() != 7 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      op.hasDynamicShape() || !isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int i = 0; i < 7; ++i)
    if (iterators[i] != (i < 4 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] != AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx) ||
      maps[1] != AffineMap::get(7, 0, {d(1), d(4), d(5), d(6)}, ctx) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(0))
    return std::nullopt;

  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto weightType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  Conv2D conv;
  conv.batch = outType.getDimSize(0);
  conv.filters = outType.getDimSize(1);
  conv.outHeight = outType.getDimSize(2);
  conv.outWidth = outType.getDimSize(3);
  conv.channelsPerGroup = weightType.getDimSize(1);
  conv.kernelHeight = weightType.getDimSize(2);
  conv.kernelWidth = weightType.getDimSize(3);
  int64_t groups = inputType.getDimSize(1) / conv.channelsPerGroup;
  if (groups < 1 || conv.filters % groups != 0)
    return std::nullopt;
  conv.filtersPerGroup = conv.filters / groups;

  auto rows = linearIn(maps[0].getResult(2), 2, 5);
  auto cols = linearIn(maps[0].getResult(3), 3, 6);
  if (!rows || !cols)
    return std::nullopt;
  std::tie(conv.strideH, conv.dilationH) = *rows;
  std::tie(conv.strideW, conv.dilationW) = *cols;

  // The input channel: (f floordiv filtersPerGroup) * channelsPerGroup + c.
  AffineExpr channel = maps[0].getResult(1);
  for (int d = 0; d < 7; ++d)
    if (d != 1 && d != 4 && channel.isFunctionOfDim(d))
      return std::nullopt;
  for (int64_t f : {int64_t(0), conv.filtersPerGroup - 1,
                    std::min(conv.filtersPerGroup, conv.filters - 1),
                    conv.filters - 1})
    for (int64_t c : {int64_t(0), conv.channelsPerGroup - 1})
      if (evaluate(channel, at({{1, f}, {4, c}})) !=
          (f / conv.filtersPerGroup) * conv.channelsPerGroup + c)
        return std::nullopt;
  return conv;
}

/// The largest divisor of `size` that is at most `limit`, preferring the
/// candidates in `preferred`.
int64_t pickDivisor(int64_t size, ArrayRef<int64_t> preferred, int64_t limit) {
  for (int64_t candidate : preferred)
    if (candidate <= limit && candidate <= size && size % candidate == 0)
      return candidate;
  for (int64_t tile = std::min(size, limit); tile > 1; --tile)
    if (size % tile == 0)
      return tile;
  return 1;
}

struct VectorizeConvolutionsPass
    : tessel::impl::TesselVectorizeConvolutionsPassBase<
          VectorizeConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, Conv2D>> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Conv2D> conv = matchConv2D(op))
        convs.push_back({op, *conv});
    });
    for (auto &[op, conv] : convs)
      rewrite(op, conv);
  }

  void rewrite(linalg::GenericOp op, const Conv2D &conv) {
    int64_t lanes = std::max<int64_t>(1, vectorWidth);
    // The tile: OWr columns (whole vectors where the width allows), then as
    // many filters x rows as the accumulators fit, filters first (each input
    // row segment is reused by every filter of the tile).
    int64_t owTile = pickDivisor(conv.outWidth, {2 * lanes, lanes}, 2 * lanes);
    int64_t vectors = (owTile + lanes - 1) / lanes;
    int64_t budget = std::max<int64_t>(1, accumulators / vectors);
    int64_t bestF = 1, bestH = 1;
    for (int64_t f = 1; f <= std::min(budget, conv.filtersPerGroup); ++f) {
      if (conv.filtersPerGroup % f != 0)
        continue;
      int64_t h = pickDivisor(conv.outHeight, {}, budget / f);
      if (f * h > bestF * bestH || (f * h == bestF * bestH && f > bestF))
        bestF = f, bestH = h;
    }
    const int64_t fTile = bestF, ohTile = bestH;

    OpBuilder b(op);
    Location loc = op.getLoc();
    Value input = op.getDpsInputs()[0], weight = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    Type f32 = b.getF32Type();
    auto vecType = VectorType::get({owTile}, f32);
    int64_t readWidth = (owTile - 1) * conv.strideW + 1;
    auto readType = VectorType::get({readWidth}, f32);
    // Constants go to the function's entry, once each.
    OpBuilder entry(op->getParentOfType<func::FuncOp>().getBody());
    llvm::DenseMap<int64_t, Value> constants;
    auto idx = [&](int64_t v) -> Value {
      Value &c = constants[v];
      if (!c)
        c = arith::ConstantIndexOp::create(entry, loc, v);
      return c;
    };
    Value pad =
        arith::ConstantOp::create(entry, loc, entry.getF32FloatAttr(0.0f));
    SmallVector<bool> inBounds = {true};

    auto loop = [&](int64_t upper, int64_t step, ValueRange iterArgs,
                    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
      auto forOp = scf::ForOp::create(
          b, loc, idx(0), idx(upper), idx(step), iterArgs,
          [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToEnd(nested.getInsertionBlock());
            scf::YieldOp::create(b, loc, body(iv, args));
          });
      return forOp.getResults();
    };
    auto add = [&](Value v, int64_t c) -> Value {
      return c == 0 ? v : arith::AddIOp::create(b, loc, v, idx(c)).getResult();
    };
    auto mul = [&](Value v, int64_t c) -> Value {
      return c == 1 ? v : arith::MulIOp::create(b, loc, v, idx(c)).getResult();
    };

    ValueRange results = loop(conv.batch, 1, init, [&](Value n,
                                                       ValueRange a0) {
      return SmallVector<Value>(loop(
          conv.filters, fTile, a0, [&](Value f0, ValueRange a1) {
            // The input channels of this tile's group.
            Value group = arith::DivUIOp::create(
                b, loc, f0, idx(conv.filtersPerGroup));
            Value channelBase = mul(group, conv.channelsPerGroup);
            return SmallVector<Value>(loop(
                conv.outHeight, ohTile, a1, [&](Value oh0, ValueRange a2) {
                  return SmallVector<Value>(loop(
                      conv.outWidth, owTile, a2,
                      [&](Value ow0, ValueRange a3) {
                        return tile(b, loc, conv, input, weight, a3[0], n, f0,
                                    oh0, ow0, channelBase, fTile, ohTile,
                                    vecType, readType, pad, inBounds, idx, add,
                                    mul, loop);
                      }));
                }));
          }));
    });
    op.getResult(0).replaceAllUsesWith(results[0]);
    op.erase();
  }

  /// One output tile: read the accumulators, loop over input channels with
  /// the taps unrolled, write the accumulators back.
  template <typename Idx, typename Add, typename Mul, typename Loop>
  SmallVector<Value> tile(OpBuilder &b, Location loc, const Conv2D &conv,
                          Value input, Value weight, Value out, Value n,
                          Value f0, Value oh0, Value ow0, Value channelBase,
                          int64_t fTile, int64_t ohTile, VectorType vecType,
                          VectorType readType, Value pad,
                          ArrayRef<bool> inBounds, Idx idx, Add add, Mul mul,
                          Loop loop) {
    SmallVector<Value> accs;
    for (int64_t r = 0; r < fTile; ++r)
      for (int64_t h = 0; h < ohTile; ++h)
        accs.push_back(vector::TransferReadOp::create(
            b, loc, vecType, out,
            ValueRange{n, add(f0, r), add(oh0, h), ow0}, pad, inBounds));

    SmallVector<int64_t> lanesOfRead;
    for (int64_t i = 0; i < vecType.getDimSize(0); ++i)
      lanesOfRead.push_back(i * conv.strideW);

    ValueRange summed = loop(
        conv.channelsPerGroup, 1, accs, [&](Value c, ValueRange acc) {
          SmallVector<Value> next(acc.begin(), acc.end());
          Value ic = arith::AddIOp::create(b, loc, channelBase, c);
          Value iw0 = mul(ow0, conv.strideW);
          for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
            for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
              SmallVector<Value> weights;
              for (int64_t r = 0; r < fTile; ++r) {
                Value w = tensor::ExtractOp::create(
                    b, loc, weight,
                    ValueRange{add(f0, r), c, idx(kh), idx(kw)});
                weights.push_back(
                    vector::BroadcastOp::create(b, loc, vecType, w));
              }
              Value iw = add(iw0, kw * conv.dilationW);
              for (int64_t h = 0; h < ohTile; ++h) {
                Value ih = add(mul(add(oh0, h), conv.strideH),
                               kh * conv.dilationH);
                Value x = vector::TransferReadOp::create(
                    b, loc, readType, input, ValueRange{n, ic, ih, iw}, pad,
                    inBounds);
                if (conv.strideW != 1)
                  x = vector::ShuffleOp::create(b, loc, x, x, lanesOfRead);
                for (int64_t r = 0; r < fTile; ++r) {
                  Value &a = next[r * ohTile + h];
                  a = vector::FMAOp::create(b, loc, weights[r], x, a);
                }
              }
            }
          }
          return next;
        });

    for (int64_t r = 0; r < fTile; ++r)
      for (int64_t h = 0; h < ohTile; ++h)
        out = vector::TransferWriteOp::create(
                  b, loc, summed[r * ohTile + h], out,
                  ValueRange{n, add(f0, r), add(oh0, h), ow0}, inBounds)
                  .getResult();
    return {out};
  }
};

} // namespace
