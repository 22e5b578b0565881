//===- VectorizeConvolutions.cpp - Direct NCHW convolutions in registers --===//
//
// Rewrites the 2-D convolution that tessel-convert-tessel-to-linalg emits
// (a 7-loop linalg.generic over NCHW input, FCHW weights, NCHW output) into
// a direct convolution whose output tile lives in vector registers, either
// vectorized over filters (constant weights, packed at compile time) or over
// output columns. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"

#include "AffineProbes.h"
#include "Convolution2D.h"
#include "ConvolutionFusion.h"
#include "KernelMarks.h"
#include "ParallelMarks.h"

#include "TileSizes.h"

#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/IRMapping.h"

#include <tuple>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONVOLUTIONSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using mlir::tessel::pickDivisor;
using mlir::tessel::cpu::Conv2D;
using mlir::tessel::cpu::matchConv2D;

namespace {

/// Multiply-adds of `conv`.
int64_t workOf(const Conv2D &conv) {
  return tessel::cpu::workOf({conv.batch, conv.filters, conv.outHeight,
                              conv.outWidth, conv.channelsPerGroup,
                              conv.kernelHeight, conv.kernelWidth});
}

/// The zero padding of a convolution's input: the kernel reads `source`
/// directly (output row 0 reads from row -`top`, column 0 from column
/// -`left`) and skips the taps that fall outside it, instead of reading a
/// padded copy. With `shift` (one value per input channel), what is padded
/// is `source + shift[c]` (the shift a folded input normaliser leaves,
/// `shiftOp`), and the kernel adds it as it reads.
struct Padding {
  Value source;
  int64_t top = 0, left = 0;
  SmallVector<float> shift;
  Operation *shiftOp = nullptr;
};

/// The per-channel shift of `generic` when it is `x + k` with `k` a
/// constant that varies along dimension 1 at most and `generic` has no
/// other user; sets `x` to the shifted value.
std::optional<SmallVector<float>> channelShiftOf(linalg::GenericOp generic,
                                                 Value &x) {
  if (!generic || !generic->hasOneUse() || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() != 4)
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  DenseElementsAttr constant;
  if (!maps[0].isIdentity() || !maps[2].isIdentity() ||
      !matchPattern(generic.getDpsInputs()[1], m_Constant(&constant)) ||
      !constant.getElementType().isF32())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto add = dyn_cast<arith::AddFOp>(&body.front());
  if (!add || add->getNextNode() != body.getTerminator() ||
      body.getTerminator()->getOperand(0) != add.getResult() ||
      !((add.getLhs() == body.getArgument(0) &&
         add.getRhs() == body.getArgument(1)) ||
        (add.getLhs() == body.getArgument(1) &&
         add.getRhs() == body.getArgument(0))))
    return std::nullopt;
  // The constant is read at the channel (d1) or at 0 along each of its
  // dimensions (a constant 0, or any loop along an extent of 1).
  auto type = cast<RankedTensorType>(constant.getType());
  ArrayRef<AffineExpr> results = maps[1].getResults();
  SmallVector<bool> alongChannels;
  for (auto [i, expr] : llvm::enumerate(results)) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    auto zero = dyn_cast<AffineConstantExpr>(expr);
    bool channel = dim && dim.getPosition() == 1;
    bool atZero = (zero && zero.getValue() == 0) ||
                  (dim && !channel && type.getDimSize(i) == 1);
    if (!channel && !atZero)
      return std::nullopt;
    alongChannels.push_back(channel);
  }
  int64_t channels = generic.getStaticLoopRanges()[1];
  auto values = constant.getValues<float>();
  SmallVector<float> shift;
  for (int64_t c = 0; c < channels; ++c) {
    int64_t flat = 0;
    for (int64_t i = 0; i < type.getRank(); ++i)
      flat = flat * type.getDimSize(i) + (alongChannels[i] ? c : 0);
    shift.push_back(values[flat]);
  }
  x = generic.getDpsInputs()[0];
  return shift;
}

/// The padding of `conv`'s input when that is a static `tensor.pad` of the
/// rows and columns by 0 (of a per-channel shift of `source`, or of
/// `source`; channels last, of `source` only); std::nullopt otherwise.
std::optional<Padding> paddingOf(linalg::GenericOp conv,
                                 const Conv2D &geometry) {
  auto pad = conv.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getSourceType().hasStaticShape() ||
      pad.getSourceType().getRank() != 4)
    return std::nullopt;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_AnyZeroFloat()))
    return std::nullopt;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  unsigned rowDim = geometry.rowDim(), colDim = geometry.colDim();
  for (unsigned i = 0; i < 4; ++i)
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0 ||
        (i != rowDim && i != colDim && (low[i] || high[i])))
      return std::nullopt;
  Padding padding;
  padding.source = pad.getSource();
  padding.top = low[rowDim];
  padding.left = low[colDim];
  auto shifted = padding.source.getDefiningOp<linalg::GenericOp>();
  if (geometry.channelsLast || (shifted && !tessel::mayFuse(conv, shifted)))
    return padding;
  if (std::optional<SmallVector<float>> shift =
          channelShiftOf(shifted, padding.source)) {
    padding.shift = std::move(*shift);
    padding.shiftOp = shifted;
  }
  return padding;
}

/// Where a tap reads, along one dimension, over all the tiles of `tile`
/// outputs of a dimension of `size`: the `q`-th output of a tile at its tap
/// `k` reads input `(t + q) * stride + k * dilation - offset` of
/// `inputSize` (t the tile's start).
enum class Reach { Always, Never, Sometimes };

Reach reachOf(int64_t size, int64_t tile, int64_t q, int64_t k, int64_t stride,
              int64_t dilation, int64_t offset, int64_t inputSize) {
  bool in = false, out = false;
  for (int64_t t = 0; t < size; t += tile) {
    int64_t i = (t + q) * stride + k * dilation - offset;
    (i >= 0 && i < inputSize ? in : out) = true;
  }
  return !out ? Reach::Always : !in ? Reach::Never : Reach::Sometimes;
}

/// Output heights up to this emit their padded rows on their own (unrolled
/// tap rows) instead of looping over a computed range of tap rows.
constexpr int64_t kStaticRows = 14;

/// Builds the loop nests: index constants once at the function's entry,
/// scf.for loops with iteration arguments, index arithmetic.
struct Emitter {
  Emitter(Operation *anchor)
      : b(anchor), loc(anchor->getLoc()),
        entry(anchor->getParentOfType<func::FuncOp>().getBody()) {}

  OpBuilder b;
  Location loc;
  OpBuilder entry;
  llvm::DenseMap<int64_t, Value> constants;
  Value zero;

  Value idx(int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(entry, loc, v);
    return c;
  }
  Value zeroVector(VectorType type) {
    Value &v = zeroVectors[type];
    if (!v)
      v = arith::ConstantOp::create(
          entry, loc, DenseElementsAttr::get(type, entry.getF32FloatAttr(0)));
    return v;
  }
  llvm::DenseMap<Type, Value> zeroVectors;
  Value pad() {
    if (!zero)
      zero = arith::ConstantOp::create(entry, loc, entry.getF32FloatAttr(0));
    return zero;
  }
  Value add(Value v, int64_t c) {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, idx(c)).getResult();
  }
  Value mul(Value v, int64_t c) {
    return c == 1 ? v : arith::MulIOp::create(b, loc, v, idx(c)).getResult();
  }
  /// scf.for 0..upper step `step` carrying `iterArgs`; `body` returns what
  /// the iteration yields.
  SmallVector<Value>
  loop(int64_t upper, int64_t step, ValueRange iterArgs,
       function_ref<SmallVector<Value>(Value, ValueRange)> body,
       int64_t parallelWork = 0) {
    return loopOver(idx(0), idx(upper), step, iterArgs, body, parallelWork);
  }
  /// The same over [lower, upper).
  SmallVector<Value>
  loopOver(Value lower, Value upper, int64_t step, ValueRange iterArgs,
           function_ref<SmallVector<Value>(Value, ValueRange)> body,
           int64_t parallelWork = 0) {
    auto forOp = scf::ForOp::create(
        b, loc, lower, upper, idx(step), iterArgs,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(iv, args));
        });
    tessel::cpu::markParallel(forOp, parallelWork);
    return SmallVector<Value>(forOp.getResults());
  }
};

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
};

/// The weights [F][Cg][KH][KW] packed as [F / B][Cg][KH][KW][B], B =
/// `block` filters: each tap's B weights are one contiguous vector.
DenseElementsAttr packWeights(DenseElementsAttr weights, int64_t block) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t filters = type.getDimSize(0);
  int64_t inner = type.getNumElements() / filters; // Cg * KH * KW
  SmallVector<float> source(weights.getValues<float>());
  SmallVector<float> packed(source.size());
  for (int64_t f = 0; f < filters; ++f)
    for (int64_t i = 0; i < inner; ++i)
      packed[((f / block) * inner + i) * block + f % block] =
          source[f * inner + i];
  SmallVector<int64_t> shape = {filters / block};
  shape.append(type.getShape().begin() + 1, type.getShape().end());
  shape.push_back(block);
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()),
      ArrayRef<float>(packed));
}

/// Transposes `rows` (P vectors of `lanes` values, P <= lanes) into `lanes`
/// vectors of P values: result f holds lane f of every row. The rows are
/// padded to a power of two B with zeros and transposed as lanes / B blocks
/// of B x B at once, by log2(B) rounds of two-source shuffles (each round
/// swaps one bit between the row and the lane index within a block), then
/// each block row is cut out of its vector.
SmallVector<Value> transposeBlocks(OpBuilder &b, Location loc,
                                   ArrayRef<Value> rows, int64_t lanes) {
  int64_t count = rows.size();
  int64_t blockSize = llvm::PowerOf2Ceil(count);
  auto vecType = cast<VectorType>(rows.front().getType());
  SmallVector<Value> m(rows);
  if (count < blockSize)
    m.resize(blockSize,
             arith::ConstantOp::create(
                 b, loc, DenseElementsAttr::get(vecType, b.getF32FloatAttr(0))));
  for (int64_t d = 1; d < blockSize; d *= 2)
    for (int64_t j = 0; j < blockSize; ++j) {
      if (j & d)
        continue;
      SmallVector<int64_t> low, high;
      for (int64_t lane = 0; lane < lanes; ++lane) {
        bool set = (lane % blockSize) & d;
        low.push_back(set ? lanes + lane - d : lane);
        high.push_back(set ? lanes + lane : lane + d);
      }
      Value a = m[j], c = m[j + d];
      m[j] = vector::ShuffleOp::create(b, loc, a, c, low);
      m[j + d] = vector::ShuffleOp::create(b, loc, a, c, high);
    }
  // Row j's block k holds filter k * blockSize + j at the tile's positions.
  SmallVector<Value> columns(lanes);
  for (int64_t k = 0; k < lanes / blockSize; ++k)
    for (int64_t j = 0; j < blockSize; ++j)
      columns[k * blockSize + j] = vector::ExtractStridedSliceOp::create(
          b, loc, m[j], ArrayRef<int64_t>{k * blockSize},
          ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
  return columns;
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
    int64_t lanes = std::max<int64_t>(1, vectorWidth);
    for (auto &[op, conv] : convs) {
      if (isPointwiseProduct(op, conv, lanes)) {
        rewriteAsProduct(op, conv);
        continue;
      }
      DenseElementsAttr weights;
      // Filters in whole vectors, else in half vectors (24 or 40 filters
      // with AVX-512): still far faster than vectors over output columns,
      // which reload every input row for each filter.
      // A zero-padded input is read unpadded, the padded taps skipped.
      std::optional<Padding> padding = paddingOf(op, conv);
      int64_t filterLanes = lanes;
      std::optional<FilterTile> tile =
          planFilterTile(conv, filterLanes, padding.has_value());
      if (!tile && lanes >= 16) {
        filterLanes = lanes / 2;
        tile = planFilterTile(conv, filterLanes, padding.has_value());
      }
      if (tile && matchPattern(op.getDpsInputs()[1], m_Constant(&weights)))
        rewriteOverFilters(op, conv, *tile, weights, filterLanes, padding);
      else if (!conv.channelsLast)
        rewriteOverColumns(op, conv, lanes, padding);
      // Channels last, other convolutions stay loops (their columns are
      // not contiguous).
    }
  }

  /// Whether `op` is a 1x1, stride-1, unpadded, ungrouped convolution of
  /// one image whose output planes fill tiles of 4 vectors: then it is the
  /// product [F, C] x [C, H*W], which vectorizes along the contiguous
  /// planes of NCHW (input and output alike), where the filter tile would
  /// store each vector of filters strided by a plane.
  /// Channels last, any such convolution is the product
  /// [N*H*W, C] x [C, F] (vectors along the filters).
  static bool isPointwiseProduct(linalg::GenericOp op, const Conv2D &conv,
                                 int64_t lanes) {
    auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    bool pointwise = conv.filtersPerGroup == conv.filters &&
                     conv.kernelHeight == 1 && conv.kernelWidth == 1 &&
                     conv.strideH == 1 && conv.strideW == 1 &&
                     inputType.getDimSize(conv.rowDim()) == conv.outHeight &&
                     inputType.getDimSize(conv.colDim()) == conv.outWidth;
    if (conv.channelsLast)
      return pointwise;
    return pointwise && conv.batch == 1 &&
           (conv.outHeight * conv.outWidth) % (4 * lanes) == 0;
  }

  /// Rewrites a pointwise convolution into the product
  /// out[F, HW] = w[F, C] x in[C, HW] on collapsed views, for
  /// tessel-vectorize-contractions. With `fuse-epilogue`, its bias
  /// broadcast (or zero fill) and its elementwise consumer are rebuilt on
  /// the [F, HW] views too, so that the product absorbs them there (its
  /// initialiser and epilogue, one kernel).
  /// Channels last, the product is out[NHW, F] = in[NHW, C] x w[F, C]^T
  /// (tessel-vectorize-contractions transposes the constant weights).
  void rewriteAsProduct(linalg::GenericOp op, const Conv2D &conv) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    bool last = conv.channelsLast;
    SmallVector<ReassociationIndices> planes =
        last ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}
             : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
    SmallVector<ReassociationIndices> filters = {{0}, {1, 2, 3}};
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> o = outType.getShape();
    auto flatType = RankedTensorType::get(
        last ? ArrayRef<int64_t>{o[0] * o[1] * o[2], o[3]}
             : ArrayRef<int64_t>{o[0] * o[1], o[2] * o[3]},
        outType.getElementType());
    auto identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    tessel::cpu::ConvPrologue prologue = prologueOf(op, conv);
    std::optional<tessel::cpu::ConvEpilogue> epilogue = epilogueOf(op);
    Value input =
        tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[0], planes);
    Value weights =
        tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[1], filters);
    // Channels last the weights are the right-hand side, which
    // tessel-vectorize-contractions transposes when it is a constant.
    DenseElementsAttr constantWeights;
    if (last &&
        matchPattern(op.getDpsInputs()[1], m_Constant(&constantWeights)))
      weights = arith::ConstantOp::create(
          b, loc, constantWeights.reshape(cast<ShapedType>(weights.getType())));
    // The initial output: the bias broadcast along the filters, 0, or the
    // output's values.
    Value init;
    if (prologue.producer) {
      // Into the collapsed output the prologue wrote (the chain from the
      // model's output back to its tensor.empty stays whole: bufferization
      // then writes the output in place instead of copying it).
      Value empty = tensor::CollapseShapeOp::create(
          b, loc,
          cast<DestinationStyleOpInterface>(prologue.producer).getDpsInits()[0],
          planes);
      if (prologue.bias) {
        SmallVector<AffineMap> maps = {
            AffineMap::get(2, 0, getAffineDimExpr(last ? 1 : 0, ctx), ctx),
            identity};
        init = linalg::GenericOp::create(
                   b, prologue.producer->getLoc(), flatType,
                   ValueRange{prologue.bias}, ValueRange{empty}, maps,
                   SmallVector<utils::IteratorType>(
                       2, utils::IteratorType::parallel),
                   [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                     linalg::YieldOp::create(nested, nestedLoc, args[0]);
                   })
                   ->getResult(0);
      } else {
        init = linalg::FillOp::create(b, prologue.producer->getLoc(),
                                      ValueRange{e0(b, loc)}, ValueRange{empty})
                   ->getResult(0);
      }
    } else {
      init =
          tensor::CollapseShapeOp::create(b, loc, op.getDpsInits()[0], planes);
    }
    AffineExpr f = getAffineDimExpr(last ? 1 : 0, ctx),
               p = getAffineDimExpr(last ? 0 : 1, ctx),
               c = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps =
        last ? SmallVector<AffineMap>{AffineMap::get(3, 0, {p, c}, ctx),
                                      AffineMap::get(3, 0, {f, c}, ctx),
                                      AffineMap::get(3, 0, {p, f}, ctx)}
             : SmallVector<AffineMap>{AffineMap::get(3, 0, {f, c}, ctx),
                                      AffineMap::get(3, 0, {c, p}, ctx),
                                      AffineMap::get(3, 0, {f, p}, ctx)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    SmallVector<Value> operands = last ? SmallVector<Value>{input, weights}
                                       : SmallVector<Value>{weights, input};
    auto product = linalg::GenericOp::create(
        b, loc, flatType, operands, ValueRange{init}, maps, iterators,
        [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value mul =
              arith::MulFOp::create(nested, nestedLoc, args[0], args[1]);
          Value sum = arith::AddFOp::create(nested, nestedLoc, args[2], mul);
          linalg::YieldOp::create(nested, nestedLoc, sum);
        });
    Value result = product->getResult(0);
    Operation *replaced = op;
    if (epilogue) {
      // The consumer on the [F, HW] views: its other inputs collapsed, the
      // same body.
      linalg::GenericOp consumer = epilogue->op;
      b.setInsertionPoint(consumer);
      SmallVector<Value> inputs;
      for (auto [i, v] : llvm::enumerate(consumer.getDpsInputs()))
        inputs.push_back(
            i == epilogue->convInput
                ? result
                : tensor::CollapseShapeOp::create(b, loc, v, planes)
                      .getResult());
      Value empty = tensor::CollapseShapeOp::create(
          b, loc, consumer.getDpsInits()[0], planes);
      auto flat = linalg::GenericOp::create(
          b, consumer.getLoc(), flatType, inputs, ValueRange{empty},
          SmallVector<AffineMap>(inputs.size() + 1, identity),
          SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
      IRMapping mapping;
      consumer.getRegion().cloneInto(&flat.getRegion(), mapping);
      result = flat->getResult(0);
      replaced = consumer;
    }
    Value expanded =
        tensor::ExpandShapeOp::create(b, loc, outType, result, planes);
    replaced->getResult(0).replaceAllUsesWith(expanded);
    if (epilogue)
      epilogue->op->erase();
    op->erase();
    if (prologue.producer && prologue.producer->use_empty())
      prologue.producer->erase();
  }

  static Value e0(OpBuilder &b, Location loc) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  }

  /// The filter-vectorized tile, when the filters of a group fill whole
  /// vectors: the most accumulators within the budget, then the fewest
  /// loads per FMA. With `padded`, the positions are columns of one output
  /// row.
  /// Channels last, a depthwise convolution's tile runs over the channels
  /// (its filters, one per group): each tap reads a vector of channels.
  std::optional<FilterTile> planFilterTile(const Conv2D &conv, int64_t lanes,
                                           bool padded) {
    int64_t tiled = conv.channelsLast && conv.isDepthwise()
                        ? conv.filters
                        : conv.filtersPerGroup;
    if (tiled % lanes != 0)
      return std::nullopt;
    int64_t positions = conv.outHeight * conv.outWidth;
    // Kernels larger than 3x3 keep small tiles: measured on ResNet-18's
    // 7x7 stem with AVX-512, 8 positions ran 1.3x slower than 4.
    int64_t budget = conv.kernelHeight * conv.kernelWidth > 9
                         ? std::min<int64_t>(accumulators, 12)
                         : accumulators;
    std::optional<FilterTile> best;
    // The most accumulators; among those, NCHW, positions that are one
    // whole vector (each filter's outputs stored as one full vector, not
    // two halves written by neighbouring tiles; channels last stores along
    // the filters either way); then the fewest vectors and positions.
    // Measured on MobileNetV2's stem (3 -> 32 filters, 3x3, stride 2,
    // 112x112, AVX-512, 24 accumulators, tessel-bench --profile, 2 x 300
    // runs): 16 positions x 1 vector of filters 0.32-0.33 ms, 8 x 2
    // 0.41-0.47 ms; the network 6.57-6.68 ms against 6.72-6.84.
    auto score = [&](const FilterTile &t) {
      return std::make_tuple(t.filterVectors * t.positions,
                             !conv.channelsLast && t.positions == lanes,
                             -(t.filterVectors + t.positions));
    };
    auto consider = [&](FilterTile t) {
      if (!best || score(t) > score(*best))
        best = t;
    };
    for (int64_t fv = 1; fv <= 3; ++fv) {
      if (tiled % (fv * lanes) != 0 || fv > budget)
        continue;
      if (!padded) {
        consider({fv, pickDivisor(positions, {}, budget / fv)});
        continue;
      }
      consider({fv, pickDivisor(conv.outWidth, {}, budget / fv), true});
    }
    return best;
  }

  /// Output tiles of `filterVectors * lanes` filters x `positions` output
  /// positions: per channel and tap, the tile loads its filters' weights
  /// as vectors and broadcasts one input value per position. With
  /// `padding`, the taps read the unpadded input: the tiles on the border
  /// are emitted one by one, without the taps that fall in the padding.
  void rewriteOverFilters(linalg::GenericOp op, const Conv2D &conv,
                          FilterTile tile, DenseElementsAttr weights,
                          int64_t lanes, std::optional<Padding> padding) {
    tessel::cpu::ConvPrologue prologue = prologueOf(op, conv);
    std::optional<tessel::cpu::ConvEpilogue> epilogue = epilogueOf(op);
    // At the epilogue, when there is one: its other inputs may be computed
    // after the convolution.
    Emitter e(epilogue ? epilogue->op.getOperation() : op.getOperation());
    e.loc = op.getLoc();
    OpBuilder &b = e.b;
    Location loc = e.loc;
    int64_t block = tile.filterVectors * lanes;
    Value packed =
        arith::ConstantOp::create(e.entry, loc, packWeights(weights, block));
    Value input = padding ? padding->source : op.getDpsInputs()[0];
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t top = padding ? padding->top : 0;
    int64_t left = padding ? padding->left : 0;
    int64_t inHeight = inputType.getDimSize(conv.rowDim());
    int64_t inWidth = inputType.getDimSize(conv.colDim());
    auto vecType = VectorType::get({lanes}, b.getF32Type());
    SmallVector<bool> inBounds = {true};
    // Channels last, a depthwise tile reads its channels' inputs as
    // vectors (each filter reads its own channel) instead of broadcasting
    // one input to all its filters.
    bool vectorInputs = conv.channelsLast && conv.isDepthwise();
    // A channels-last input that is a transpose of an NCHW tensor (the
    // graph input in front of the first layer) is read where it comes
    // from, element by element: no transposed copy.
    linalg::TransposeOp readThrough;
    if (conv.channelsLast && !vectorInputs)
      if (auto t = input.getDefiningOp<linalg::TransposeOp>();
          t && t.getPermutation() == ArrayRef<int64_t>{0, 2, 3, 1} &&
          t.hasPureTensorSemantics()) {
        readThrough = t;
        input = t.getDpsInputs()[0];
      }
    // The per-channel shift the input is read through, if any.
    Value shifts;
    if (padding && !padding->shift.empty()) {
      auto shiftType = RankedTensorType::get({int64_t(padding->shift.size())},
                                             b.getF32Type());
      shifts = arith::ConstantOp::create(
          e.entry, loc,
          DenseElementsAttr::get(shiftType, ArrayRef<float>(padding->shift)));
    }
    // The output (and bias) vectors run along the filter dimension.
    auto alongFilters = AffineMapAttr::get(AffineMap::get(
        4, 0, getAffineDimExpr(conv.channelDim(), b.getContext())));
    int64_t positions = conv.outHeight * conv.outWidth;
    int64_t parallelPositions = conv.filters == block ? workOf(conv) : 0;

    // A tile's positions are consecutive columns of one row (a row segment,
    // or row-major tiles that divide the rows): its accumulators, vectors
    // along the filters, are transposed in registers and stored along the
    // row, instead of lane by lane a plane apart (ResNet's and MobileNetV2's
    // first layers, 27 multiply-adds per output, spent 40% of their time
    // on those single-lane stores).
    // Row-major tiles that cross rows (28 columns in tiles of 8 positions)
    // store the same way into the output viewed as [N, F, H*W], where their
    // positions are contiguous, when the output is only written (the
    // accumulators start from the bias or 0).
    // (Channels last, the filters are contiguous already.)
    bool transposable = !conv.channelsLast && tile.positions > 1 &&
                        int64_t(llvm::PowerOf2Ceil(tile.positions)) <= lanes;
    bool rowStores = transposable && (tile.rowSegment ||
                                      conv.outWidth % tile.positions == 0);
    bool planeStores = transposable && !rowStores &&
                       (prologue.bias || prologue.zero);

    // Whether a tile's j-th column reads the padding at tap column kw in
    // every tile of its row, in none or in some.
    auto colReach = [&](int64_t j, int64_t kw) {
      if (!tile.rowSegment)
        return Reach::Always;
      return reachOf(conv.outWidth, tile.positions, j, kw, conv.strideW,
                     conv.dilationW, left, inWidth);
    };
    // Whether some output rows have tap rows in the padding.
    bool rowsReadPadding = false;
    if (tile.rowSegment)
      for (int64_t kh = 0; kh < conv.kernelHeight; ++kh)
        rowsReadPadding |=
            reachOf(conv.outHeight, 1, 0, kh, conv.strideH, conv.dilationH, top,
                    inHeight) != Reach::Always;

    // The tile of filters f0.. at positions (oh[j], ow[j]), written into
    // `out`. With padding, the tile's tap rows that read inside are a
    // loop's range, and a tap column that may read the padding reads a
    // clamped index and selects 0 outside.
    // `khRange`: the tap rows that read inside, when known (a row emitted
    // on its own, or an inner row); else a loop over the range computed
    // from oh.
    auto emitTile = [&](Value n, Value f0, Value fBlock, Value channelBase,
                        ArrayRef<Value> start, ArrayRef<Value> oh,
                        ArrayRef<Value> ow, Value out,
                        std::optional<std::pair<int64_t, int64_t>> khRange =
                            std::nullopt) -> Value {
      bool dynamicRows = rowsReadPadding && !khRange;
      int64_t count = tile.positions;
      auto readAt = [&](Value tensor, int64_t j, int64_t v) -> Value {
        return vector::TransferReadOp::create(
            b, loc, vecType, tensor,
            conv.at(n, e.add(f0, v * lanes), oh[j], ow[j]), alongFilters,
            e.pad(), /*mask=*/Value(), b.getBoolArrayAttr(inBounds));
      };
      SmallVector<Value> accs;
      for (int64_t j = 0; j < count; ++j)
        for (int64_t v = 0; v < tile.filterVectors; ++v)
          accs.push_back(start.empty() ? readAt(out, j, v) : start[v]);
      Value zero = e.pad();
      // The range of tap rows [khBegin, khEnd) that read inside the input
      // for the tile's row: input row oh * strideH - top + kh * dilationH.
      Value khBegin, khEnd;
      if (dynamicRows) {
        Value base = e.add(e.mul(oh[0], conv.strideH), -top);
        Value zeroIdx = e.idx(0);
        Value negBase = arith::SubIOp::create(b, loc, zeroIdx, base);
        Value last = arith::SubIOp::create(b, loc, e.idx(inHeight - 1), base);
        if (conv.dilationH != 1) {
          negBase = arith::CeilDivSIOp::create(b, loc, negBase,
                                               e.idx(conv.dilationH));
          last =
              arith::FloorDivSIOp::create(b, loc, last, e.idx(conv.dilationH));
        }
        khBegin = arith::MaxSIOp::create(b, loc, negBase, zeroIdx);
        khEnd = arith::MinSIOp::create(b, loc, e.add(last, 1),
                                       e.idx(conv.kernelHeight));
      }
      SmallVector<Value> summed =
          e.loop(conv.channelsPerGroup, 1, accs, [&](Value c, ValueRange acc) {
            Value ic = arith::AddIOp::create(b, loc, channelBase, c);
            Value shift =
                shifts
                    ? tensor::ExtractOp::create(b, loc, shifts, ic).getResult()
                    : Value();
            // The input at (ih, iw), shifted.
            auto readInput = [&](Value ih, Value iw) -> Value {
              Value x = tensor::ExtractOp::create(
                  b, loc, input,
                  readThrough ? SmallVector<Value>{n, ic, ih, iw}
                              : conv.at(n, ic, ih, iw));
              return shift ? arith::AddFOp::create(b, loc, x, shift).getResult()
                           : x;
            };
            // The FMAs of tap row kh (its index value, and kh itself when
            // it is a constant).
            auto tapRow = [&](Value khIdx, std::optional<int64_t> khAt,
                              SmallVector<Value> next) {
              for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
                SmallVector<Value> w;
                for (int64_t v = 0; v < tile.filterVectors; ++v)
                  w.push_back(vector::TransferReadOp::create(
                      b, loc, vecType, packed,
                      ValueRange{fBlock, c, khIdx, e.idx(kw), e.idx(v * lanes)},
                      e.pad(), inBounds));
                for (int64_t j = 0; j < count; ++j) {
                  Reach along = colReach(j, kw);
                  if (along == Reach::Never)
                    continue;
                  Value ih = khAt ? e.add(e.mul(oh[j], conv.strideH),
                                          *khAt * conv.dilationH - top)
                                  : arith::AddIOp::create(
                                        b, loc,
                                        e.add(e.mul(oh[j], conv.strideH), -top),
                                        e.mul(khIdx, conv.dilationH))
                                        .getResult();
                  Value iw = e.add(e.mul(ow[j], conv.strideW),
                                   kw * conv.dilationW - left);
                  // The tile's input at (ih, iw): one value broadcast to
                  // every filter vector, or (vectorInputs) one vector per
                  // filter vector. Off the row (some tiles), a clamped
                  // read and a select of 0.
                  Value clamped, inside;
                  if (along != Reach::Always) {
                    clamped = arith::MinSIOp::create(
                        b, loc, arith::MaxSIOp::create(b, loc, iw, e.idx(0)),
                        e.idx(inWidth - 1));
                    inside = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq, iw, clamped);
                  }
                  SmallVector<Value> xv;
                  if (vectorInputs) {
                    for (int64_t v = 0; v < tile.filterVectors; ++v) {
                      Value x = vector::TransferReadOp::create(
                          b, loc, vecType, input,
                          conv.at(n, e.add(f0, v * lanes), ih,
                                  clamped ? clamped : iw),
                          alongFilters, e.pad(), /*mask=*/Value(),
                          b.getBoolArrayAttr(inBounds));
                      if (inside)
                        x = arith::SelectOp::create(b, loc, inside, x,
                                                    e.zeroVector(vecType));
                      xv.push_back(x);
                    }
                  } else {
                    Value x = inside ? arith::SelectOp::create(
                                           b, loc, inside,
                                           readInput(ih, clamped), zero)
                                           .getResult()
                                     : readInput(ih, iw);
                    xv.push_back(
                        vector::BroadcastOp::create(b, loc, vecType, x));
                  }
                  for (int64_t v = 0; v < tile.filterVectors; ++v) {
                    Value &a = next[j * tile.filterVectors + v];
                    Value xs = xv[vectorInputs ? v : 0];
                    a = vector::FMAOp::create(b, loc, w[v], xs, a);
                  }
                }
              }
              return next;
            };
            SmallVector<Value> next(acc.begin(), acc.end());
            if (!dynamicRows) {
              auto [first, last] = khRange.value_or(
                  std::make_pair(int64_t(0), conv.kernelHeight));
              for (int64_t kh = first; kh < last; ++kh)
                next = tapRow(e.idx(kh), kh, next);
              return next;
            }
            return e.loopOver(
                khBegin, khEnd, 1, next, [&](Value kh, ValueRange a) {
                  return tapRow(kh, std::nullopt, SmallVector<Value>(a));
                });
          });
      SmallVector<Value> results;
      for (int64_t j = 0; j < count; ++j)
        for (int64_t v = 0; v < tile.filterVectors; ++v) {
          Value value = summed[j * tile.filterVectors + v];
          if (epilogue)
            value = tessel::cpu::applyEpilogue(
                b, loc, *epilogue, value,
                [&](Value tensor) { return readAt(tensor, j, v); });
          results.push_back(value);
        }
      if (rowStores || planeStores) {
        // Each vector of filters x the tile's positions, transposed in
        // registers: one store of the positions per filter.
        Value position =
            planeStores ? arith::AddIOp::create(
                              b, loc, e.mul(oh[0], conv.outWidth), ow[0])
                              .getResult()
                        : Value();
        for (int64_t v = 0; v < tile.filterVectors; ++v) {
          SmallVector<Value> rows;
          for (int64_t j = 0; j < count; ++j)
            rows.push_back(results[j * tile.filterVectors + v]);
          SmallVector<Value> columns = transposeBlocks(b, loc, rows, lanes);
          for (auto [f, column] : llvm::enumerate(columns)) {
            Value filter = e.add(f0, v * lanes + f);
            SmallVector<Value> at =
                planeStores ? SmallVector<Value>{n, filter, position}
                            : SmallVector<Value>{n, filter, oh[0], ow[0]};
            out = vector::TransferWriteOp::create(b, loc, column, out, at,
                                                  inBounds)
                      .getResult();
          }
        }
        return out;
      }
      for (int64_t j = 0; j < count; ++j)
        for (int64_t v = 0; v < tile.filterVectors; ++v)
          out = vector::TransferWriteOp::create(
                    b, loc, results[j * tile.filterVectors + v], out,
                    conv.at(n, e.add(f0, v * lanes), oh[j], ow[j]),
                    alongFilters, b.getBoolArrayAttr(inBounds))
                    .getResult();
      return out;
    };

    SmallVector<ReassociationIndices> plane = {{0}, {1}, {2, 3}};
    Value init = prologue.init;
    if (planeStores)
      init = tensor::CollapseShapeOp::create(b, loc, init, plane);
    SmallVector<Value> results =
        e.loop(conv.batch, 1, init, [&](Value n, ValueRange a0) {
          return e.loop(
              conv.filters, block, a0,
              [&](Value f0, ValueRange a1) {
                Value group = arith::DivUIOp::create(
                    b, loc, f0, e.idx(conv.filtersPerGroup));
                Value channelBase = e.mul(group, conv.channelsPerGroup);
                Value fBlock = arith::DivUIOp::create(b, loc, f0, e.idx(block));
                // The accumulators' start along the filters: the bias, 0, or
                // (no prologue) the output's values.
                SmallVector<Value> start;
                for (int64_t v = 0; v < tile.filterVectors; ++v) {
                  if (prologue.bias)
                    start.push_back(vector::TransferReadOp::create(
                        b, loc, vecType, prologue.bias,
                        ValueRange{e.add(f0, v * lanes)}, e.pad(), inBounds));
                  else if (prologue.zero)
                    start.push_back(e.zeroVector(vecType));
                }
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
                        return SmallVector<Value>{emitTile(
                            n, f0, fBlock, channelBase, start, oh, ow, a2[0])};
                      },
                      // One block of filters: the positions are split
                      // instead.
                      parallelPositions);
                }
                // Columns of one output row at a time.
                auto rowAt =
                    [&](Value oh0, ValueRange a2,
                        std::optional<std::pair<int64_t, int64_t>> khRange) {
                      return e.loop(
                          conv.outWidth, tile.positions, a2,
                          [&](Value ow0, ValueRange a3) {
                            SmallVector<Value> oh(tile.positions, oh0), ow;
                            for (int64_t j = 0; j < tile.positions; ++j)
                              ow.push_back(e.add(ow0, j));
                            return SmallVector<Value>{
                                emitTile(n, f0, fBlock, channelBase, start, oh,
                                         ow, a3[0], khRange)};
                          });
                    };
                if (!rowsReadPadding || conv.outHeight > kStaticRows)
                  return e.loop(
                      conv.outHeight, 1, a1,
                      [&](Value oh0, ValueRange a2) {
                        return rowAt(oh0, a2, std::nullopt);
                      },
                      parallelPositions);
                // Few rows (7x7, 14x14): the rows whose tap rows read the
                // padding are emitted on their own, each with its range of
                // tap rows unrolled; the others in a loop, all unrolled.
                // (A loop over the range measured 1.3x slower on
                // ResNet-18's 7x7 layers.)
                auto rangeAt = [&](int64_t row) {
                  int64_t first = conv.kernelHeight, last = 0;
                  for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
                    int64_t ih = row * conv.strideH + kh * conv.dilationH - top;
                    if (ih >= 0 && ih < inHeight) {
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
                    carried =
                        e.loopOver(e.idx(innerBegin), e.idx(innerEnd), 1,
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
              conv.filters == block ? 0 : workOf(conv));
        });
    Value result = results[0];
    if (planeStores)
      result = tensor::ExpandShapeOp::create(b, loc, prologue.init.getType(),
                                             result, plane);
    finish(op, result, prologue, epilogue);
    if (readThrough && readThrough->use_empty())
      readThrough->erase();
  }

  /// Output tiles of Fr filters x OHr rows x OWr columns, the columns
  /// vectorized: per channel and tap, one input row segment per row and
  /// one broadcast weight per filter. With `padding`, the taps read the
  /// unpadded input: a tap row that reads the padding in some tiles reads
  /// a clamped row and selects 0 outside, and the column tiles whose
  /// segments leave the row are emitted one by one, their segments read
  /// inside the row and the padded lanes shuffled in as 0.
  void rewriteOverColumns(linalg::GenericOp op, const Conv2D &conv,
                          int64_t lanes, std::optional<Padding> padding) {
    // OWr columns (whole vectors where the width allows), then as many
    // filters x rows as the accumulators fit, filters first (each input
    // row segment is reused by every filter of the tile).
    tessel::cpu::ConvPrologue prologue = prologueOf(op, conv);
    // Tiles of whole or half vectors. When none divides the row, the last
    // tile overlaps the one before it (recomputing a few columns) if the
    // accumulators start from the bias or 0, so that a recomputed column
    // is written twice with the same value: a width such as 28 or 14 would
    // be split into partial registers, and a strided read of 55 columns
    // into single-lane inserts (MobileNetV2's stride-2 depthwise layers).
    int64_t owTile = pickDivisor(conv.outWidth, {2 * lanes, lanes}, 2 * lanes);
    bool startsFresh = prologue.bias || prologue.zero;
    if (conv.outWidth % lanes != 0 && startsFresh)
      for (int64_t width : {lanes, lanes / 2})
        if (width > 1 && conv.outWidth > width && owTile % width != 0) {
          owTile = width;
          break;
        }
    int64_t vectors = (owTile + lanes - 1) / lanes;
    // Column tiles keep 12 accumulators: more measured no faster on
    // MobileNetV2's depthwise convolutions.
    int64_t budget =
        std::max<int64_t>(1, std::min<int64_t>(accumulators, 12) / vectors);
    int64_t fTile = 1, ohTile = 1;
    for (int64_t f = 1; f <= std::min(budget, conv.filtersPerGroup); ++f) {
      if (conv.filtersPerGroup % f != 0)
        continue;
      int64_t h = pickDivisor(conv.outHeight, {}, budget / f);
      if (f * h > fTile * ohTile || (f * h == fTile * ohTile && f > fTile))
        fTile = f, ohTile = h;
    }
    // A strided tile reads whole vectors (stride x its width) where the
    // row holds them, and keeps every stride-th lane.
    int64_t minReadWidth = (owTile - 1) * conv.strideW + 1;
    int64_t readWidth = conv.strideW == 1 || !llvm::isPowerOf2_64(owTile)
                            ? minReadWidth
                            : owTile * conv.strideW;
    // A shifted input is read padded (the shift stays its own loop nest).
    // An edge tile reads its segments inside the row: the row must hold one.
    if (padding &&
        (!padding->shift.empty() ||
         minReadWidth >
             cast<RankedTensorType>(padding->source.getType()).getDimSize(3)))
      padding.reset();

    std::optional<tessel::cpu::ConvEpilogue> epilogue = epilogueOf(op);
    // At the epilogue, when there is one: its other inputs may be computed
    // after the convolution.
    Emitter e(epilogue ? epilogue->op.getOperation() : op.getOperation());
    e.loc = op.getLoc();
    OpBuilder &b = e.b;
    Location loc = e.loc;
    Value input = padding ? padding->source : op.getDpsInputs()[0];
    Value weight = op.getDpsInputs()[1];
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t top = padding ? padding->top : 0;
    int64_t left = padding ? padding->left : 0;
    int64_t inHeight = inputType.getDimSize(2);
    int64_t inWidth = inputType.getDimSize(3);
    if (readWidth > inWidth)
      readWidth = minReadWidth;
    auto vecType = VectorType::get({owTile}, b.getF32Type());
    auto readType = VectorType::get({readWidth}, b.getF32Type());
    SmallVector<bool> inBounds = {true};
    SmallVector<int64_t> lanesOfRead;
    for (int64_t i = 0; i < owTile; ++i)
      lanesOfRead.push_back(i * conv.strideW);
    auto rowReach = [&](int64_t h, int64_t kh) {
      if (!padding)
        return Reach::Always;
      return reachOf(conv.outHeight, ohTile, h, kh, conv.strideH,
                     conv.dilationH, top, inHeight);
    };
    // The column tiles whose segments all lie inside the row: [first,
    // last); the others are edge tiles.
    SmallVector<int64_t> before, after;
    int64_t first = 0, last = 0;
    SmallVector<int64_t> tileStarts;
    for (int64_t ow = 0; ow + owTile <= conv.outWidth; ow += owTile)
      tileStarts.push_back(ow);
    if (conv.outWidth % owTile != 0)
      tileStarts.push_back(conv.outWidth - owTile);
    for (int64_t ow : tileStarts) {
      int64_t start = ow * conv.strideW - left;
      bool inside =
          start >= 0 &&
          start + (conv.kernelWidth - 1) * conv.dilationW + readWidth <=
              inWidth;
      // The overlapping last tile starts off the loop's steps.
      if (inside && (first == last || ow == last) && ow % owTile == 0) {
        if (first == last)
          first = ow;
        last = ow + owTile;
      } else {
        (first == last ? before : after).push_back(ow);
      }
    }

    // The tile at output columns ow0.. (`owAt` their value in an edge
    // tile), written into `out`.
    auto emitTile = [&](Value n, Value f0, Value channelBase, Value oh0,
                        Value ow0, std::optional<int64_t> owAt,
                        Value out) -> Value {
      auto readAt = [&](Value tensor, int64_t r, int64_t h) -> Value {
        return vector::TransferReadOp::create(
            b, loc, vecType, tensor,
            ValueRange{n, e.add(f0, r), e.add(oh0, h), ow0}, e.pad(), inBounds);
      };
      SmallVector<Value> accs;
      for (int64_t r = 0; r < fTile; ++r) {
        // The filter's bias, 0, or (no prologue) the output.
        Value start;
        if (prologue.bias)
          start = vector::BroadcastOp::create(
              b, loc, vecType,
              tensor::ExtractOp::create(b, loc, prologue.bias,
                                        ValueRange{e.add(f0, r)}));
        else if (prologue.zero)
          start = e.zeroVector(vecType);
        for (int64_t h = 0; h < ohTile; ++h)
          accs.push_back(start ? start : readAt(out, r, h));
      }
      SmallVector<Value> summed =
          e.loop(conv.channelsPerGroup, 1, accs, [&](Value c, ValueRange acc) {
            SmallVector<Value> next(acc.begin(), acc.end());
            Value ic = arith::AddIOp::create(b, loc, channelBase, c);
            Value iw0 = e.add(e.mul(ow0, conv.strideW), -left);
            for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
              for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
                // In an edge tile: the segment's read inside the row, and
                // the lanes of the tile's columns in it (readWidth: a 0).
                int64_t readFrom = 0;
                SmallVector<int64_t> edgeLanes;
                if (owAt) {
                  int64_t start =
                      *owAt * conv.strideW + kw * conv.dilationW - left;
                  readFrom = std::clamp<int64_t>(start, 0, inWidth - readWidth);
                  bool any = false;
                  for (int64_t i = 0; i < owTile; ++i) {
                    int64_t col = start + i * conv.strideW;
                    bool in = col >= 0 && col < inWidth;
                    any |= in;
                    edgeLanes.push_back(in ? col - readFrom : readWidth);
                  }
                  if (!any)
                    continue;
                }
                SmallVector<Value> weights;
                for (int64_t r = 0; r < fTile; ++r) {
                  Value w = tensor::ExtractOp::create(
                      b, loc, weight,
                      ValueRange{e.add(f0, r), c, e.idx(kh), e.idx(kw)});
                  weights.push_back(
                      vector::BroadcastOp::create(b, loc, vecType, w));
                }
                Value iw =
                    owAt ? e.idx(readFrom) : e.add(iw0, kw * conv.dilationW);
                for (int64_t h = 0; h < ohTile; ++h) {
                  Reach reach = rowReach(h, kh);
                  if (reach == Reach::Never)
                    continue;
                  Value ih = e.add(e.mul(e.add(oh0, h), conv.strideH),
                                   kh * conv.dilationH - top);
                  Value inside;
                  if (reach == Reach::Sometimes) {
                    Value clamped = arith::MinSIOp::create(
                        b, loc, arith::MaxSIOp::create(b, loc, ih, e.idx(0)),
                        e.idx(inHeight - 1));
                    inside = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq, ih, clamped);
                    ih = clamped;
                  }
                  Value x = vector::TransferReadOp::create(
                      b, loc, readType, input, ValueRange{n, ic, ih, iw},
                      e.pad(), inBounds);
                  if (owAt)
                    x = vector::ShuffleOp::create(
                        b, loc, x, e.zeroVector(readType), edgeLanes);
                  else if (conv.strideW != 1)
                    x = vector::ShuffleOp::create(b, loc, x, x, lanesOfRead);
                  if (inside)
                    x = arith::SelectOp::create(b, loc, inside, x,
                                                e.zeroVector(vecType));
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
        for (int64_t h = 0; h < ohTile; ++h) {
          Value value = summed[r * ohTile + h];
          if (epilogue)
            value = tessel::cpu::applyEpilogue(
                b, loc, *epilogue, value,
                [&](Value tensor) { return readAt(tensor, r, h); });
          out = vector::TransferWriteOp::create(
                    b, loc, value, out,
                    ValueRange{n, e.add(f0, r), e.add(oh0, h), ow0}, inBounds)
                    .getResult();
        }
      return out;
    };

    SmallVector<Value> results =
        e.loop(conv.batch, 1, prologue.init, [&](Value n, ValueRange a0) {
          return e.loop(
              conv.filters, fTile, a0,
              [&](Value f0, ValueRange a1) {
                Value group = arith::DivUIOp::create(
                    b, loc, f0, e.idx(conv.filtersPerGroup));
                Value channelBase = e.mul(group, conv.channelsPerGroup);
                return e.loop(
                    conv.outHeight, ohTile, a1, [&](Value oh0, ValueRange a2) {
                      Value out = a2[0];
                      for (int64_t ow : before)
                        out = emitTile(n, f0, channelBase, oh0, e.idx(ow), ow,
                                       out);
                      if (first < last)
                        out = e.loopOver(e.idx(first), e.idx(last), owTile, out,
                                         [&](Value ow0, ValueRange a3) {
                                           return SmallVector<Value>{emitTile(
                                               n, f0, channelBase, oh0, ow0,
                                               std::nullopt, a3[0])};
                                         })[0];
                      for (int64_t ow : after)
                        out = emitTile(n, f0, channelBase, oh0, e.idx(ow), ow,
                                       out);
                      return SmallVector<Value>{out};
                    });
              },
              workOf(conv));
        });
    finish(op, results[0], prologue, epilogue);
  }

  tessel::cpu::ConvPrologue prologueOf(linalg::GenericOp op,
                                       const Conv2D &conv) {
    if (!fuseEpilogue)
      return {op.getDpsInits()[0], Value(), false, nullptr};
    return tessel::cpu::matchPrologue(op, conv.channelDim());
  }
  std::optional<tessel::cpu::ConvEpilogue> epilogueOf(linalg::GenericOp op) {
    if (!fuseEpilogue)
      return std::nullopt;
    return tessel::cpu::matchEpilogue(op);
  }

  /// Replaces what the loops computed, erases the absorbed ops, and records
  /// the loop nest as one kernel with all their locations.
  void finish(linalg::GenericOp op, Value result,
              const tessel::cpu::ConvPrologue &prologue,
              const std::optional<tessel::cpu::ConvEpilogue> &epilogue) {
    SmallVector<Location> locs;
    if (prologue.producer)
      locs.push_back(prologue.producer->getLoc());
    locs.push_back(op.getLoc());
    if (epilogue) {
      linalg::GenericOp consumer = epilogue->op;
      locs.push_back(consumer.getLoc());
      consumer.getResult(0).replaceAllUsesWith(result);
      consumer.erase();
    } else {
      op.getResult(0).replaceAllUsesWith(result);
    }
    MLIRContext *ctx = op.getContext();
    auto pad = op.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
    op.erase();
    // A padding (and the shift under it) the kernel read through: the
    // shift's ONNX nodes are the kernel's too.
    if (pad && pad->use_empty()) {
      auto shift = pad.getSource().getDefiningOp<linalg::GenericOp>();
      pad.erase();
      if (shift && shift->use_empty()) {
        locs.insert(locs.begin(), shift.getLoc());
        shift.erase();
      }
    }
    tessel::cpu::recordKernel(result.getDefiningOp(), "convolution",
                              FusedLoc::get(ctx, locs));
    if (prologue.producer)
      prologue.producer->erase();
  }
};

} // namespace
