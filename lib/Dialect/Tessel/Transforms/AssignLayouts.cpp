//===- AssignLayouts.cpp - Channels-last activations for conv chains ------===//
//
// Runs 2-D convolutions and pooling channels last (NHWC): each such op gets
// transposes into and out of its layout, then the transposes sink through
// the elementwise ops and concats after them until they meet the inverse
// transposes of the next layer and fold away. What remains converts layouts
// at the graph's edges (or in front of an op no transpose can pass).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Support/Remarks.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELASSIGNLAYOUTSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// NCHW -> NHWC and back, as `tessel.transpose` permutations.
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  return TransposeOp::create(rewriter, loc, value,
                             rewriter.getDenseI64ArrayAttr(perm))
      .getResult();
}

/// Whether `count` fills whole vectors of `lanes` f32 (or, with 16 lanes,
/// half vectors).
bool fillsVectors(int64_t count, int64_t lanes) {
  return count % lanes == 0 || (lanes >= 16 && count % (lanes / 2) == 0);
}

/// Whether `value` is a constant, or a constant cast.
bool isConstant(Value value) {
  if (auto cast = value.getDefiningOp<CastOp>())
    value = cast.getInput();
  return matchPattern(value, m_Constant());
}

/// Whether `value` is an 8-bit integer tensor cast to a wider type, maybe
/// minus a one-value zero point.
bool isWidenedFromEightBits(Value value) {
  // (A zero point of one value: it subtracts alike in either layout.)
  if (auto sub = value.getDefiningOp<SubOp>()) {
    if (cast<RankedTensorType>(sub.getRhs().getType()).getNumElements() != 1)
      return false;
    value = sub.getLhs();
  }
  auto cast = value.getDefiningOp<CastOp>();
  return cast && getElementTypeOrSelf(cast.getInput().getType())
                     .isInteger(8);
}

/// Whether the CPU kernels run `op` channels last as fast as channels
/// first (lib/Codegen/CPU): f32 only; a convolution that is a pointwise
/// product, or has constant weights and filters (per group; depthwise: in
/// all) that fill vectors; pooling whose channels fill vectors; any global
/// average; an ungrouped i32 convolution of 8-bit values (cast, maybe
/// centred by a zero point) or a bf16 one, with constant weights, which
/// runs as a product on its gathered windows (quantized models,
/// --precision=bf16). Other ops would become
/// scalar loops channels last.
bool hasChannelsLastKernel(Operation *op, int64_t lanes) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (inputType.getRank() != 4)
    return false;
  if (auto conv = dyn_cast<ConvOp>(op);
      conv && inputType.getElementType().isInteger(32))
    return conv.getGroup() == 1 && isConstant(conv.getWeight()) &&
           isWidenedFromEightBits(conv.getInput());
  // bf16 or f16 operands (--precision): a product of the gathered windows
  // on the bf16 or f16 kernel, as for 8-bit values.
  if (auto conv = dyn_cast<ConvOp>(op);
      conv && (inputType.getElementType().isBF16() ||
               inputType.getElementType().isF16()))
    return conv.getGroup() == 1 && isConstant(conv.getWeight());
  // f32, and a model's own f16 or bf16 pooling (its windows vectorize
  // alike).
  Type element = inputType.getElementType();
  bool half = element.isF16() || element.isBF16();
  if (!element.isF32() && !(half && !isa<ConvOp>(op)))
    return false;
  int64_t channels = inputType.getDimSize(1);
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
    int64_t filters = weightType.getDimSize(0), group = conv.getGroup();
    auto ones = [](ArrayRef<int64_t> v) {
      return llvm::all_of(v, [](int64_t x) { return x == 1; });
    };
    bool pointwise =
        group == 1 && weightType.getDimSize(2) == 1 &&
        weightType.getDimSize(3) == 1 && ones(conv.getStrides()) &&
        llvm::all_of(conv.getPads(), [](int64_t p) { return p == 0; });
    // (Channels last, run-time weights would be a product whose right-hand
    // side reads along the reduction.)
    if (!matchPattern(conv.getWeight(), m_Constant()))
      return false;
    if (pointwise)
      return true;
    bool depthwise = group == channels && filters == channels;
    return fillsVectors(depthwise ? filters : filters / group, lanes);
  }
  if (isa<MaxPoolOp, AvgPoolOp>(op))
    return fillsVectors(channels, lanes);
  return isa<GlobalAveragePoolOp>(op);
}

/// `value` transposed to channels last; a widened 8-bit value (maybe minus
/// a zero point) is transposed before it widens, so that the transpose
/// meets the inverse one of the layer before on the 8-bit values, and the
/// convolution reads the widening (which its kernel reads narrow).
Value toChannelsLast(PatternRewriter &rewriter, Location loc, Value value) {
  if (!isWidenedFromEightBits(value))
    return transpose(rewriter, loc, value, kToChannelsLast);
  auto sub = value.getDefiningOp<SubOp>();
  auto cast = (sub ? sub.getLhs() : value).getDefiningOp<CastOp>();
  Value narrow = transpose(rewriter, loc, cast.getInput(), kToChannelsLast);
  Value wide = CastOp::create(rewriter, cast.getLoc(), narrow, cast.getToAttr());
  if (!sub)
    return wide;
  return SubOp::create(rewriter, sub.getLoc(), wide, sub.getRhs());
}

/// A 2-D conv or pooling op in NCHW becomes the same op in NHWC between a
/// transpose of its input and one of its result, when the kernels run it
/// channels last.
template <typename OpTy> struct RunChannelsLast : OpRewritePattern<OpTy> {
  RunChannelsLast(MLIRContext *ctx, int64_t lanes)
      : OpRewritePattern<OpTy>(ctx), lanes(lanes) {}
  int64_t lanes;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    if (op.getLayout() != Layout::NCHW || inputType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "not a 2-D NCHW op");
    if (!hasChannelsLastKernel(op, lanes))
      return rewriter.notifyMatchFailure(op, "no channels-last kernel");
    Location loc = op.getLoc();
    Value input = toChannelsLast(rewriter, loc, op.getInput());
    Operation *clone = rewriter.clone(*op.getOperation());
    clone->setOperand(0, input);
    cast<OpTy>(clone).setLayout(Layout::NHWC);
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> s = resultType.getShape();
    clone->getResult(0).setType(resultType.clone({s[0], s[2], s[3], s[1]}));
    rewriter.replaceOp(
        op, transpose(rewriter, loc, clone->getResult(0), kToChannelsFirst));
    return success();
  }
};

/// The operand's transpose, when it is one.
TransposeOp transposeOf(Value value) {
  return value.getDefiningOp<TransposeOp>();
}

/// The inverse of permutation `perm`.
SmallVector<int64_t> invert(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  return inverse;
}

/// `op(transpose(x, p)) -> transpose(op(x), p)` for an elementwise op of
/// one tensor operand.
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  static bool isElementwiseUnary(Operation *op) {
    return isa<ReluOp, SigmoidOp, TanhOp, ClipOp, LeakyReluOp, EluOp, SeluOp,
               CeluOp, HardSigmoidOp, HardSwishOp, ThresholdedReluOp,
               SoftplusOp, SoftsignOp, MishOp, GeluOp, AbsOp, NegOp, SignOp,
               ExpOp, LogOp, SqrtOp, ReciprocalOp, FloorOp, CeilOp, RoundOp,
               ErfOp, CastOp>(op);
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseUnary(op) || op->getNumOperands() != 1)
      return failure();
    TransposeOp producer = transposeOf(op->getOperand(0));
    if (!producer)
      return failure();
    // An 8-bit value widened to integers (an integer convolution's input)
    // stays transposed narrow: toChannelsLast put it there, where the layer
    // before's inverse transpose meets it on the 8-bit values.
    if (isa<CastOp>(op) && isWidenedFromEightBits(op->getResult(0)) &&
        isa<IntegerType>(getElementTypeOrSelf(op->getResult(0).getType())))
      return failure();
    Operation *clone = rewriter.clone(*op);
    clone->setOperand(0, producer.getInput());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto inputType = cast<RankedTensorType>(producer.getInput().getType());
    clone->getResult(0).setType(inputType.clone(resultType.getElementType()));
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(),
                                     clone->getResult(0), producer.getPerm()));
    return success();
  }
};

/// `op(transpose(x, p), transpose(y, p)) -> transpose(op(x, y), p)` for a
/// broadcasting binary op; an operand that is a constant instead (of any
/// rank up to the other's) is transposed by the inverse (and folds).
template <typename OpTy> struct SinkThroughBinary : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    TransposeOp lhs = transposeOf(op.getLhs()), rhs = transposeOf(op.getRhs());
    TransposeOp some = lhs ? lhs : rhs;
    if (!some)
      return failure();
    ArrayRef<int64_t> perm = some.getPerm();
    int64_t rank = perm.size();
    SmallVector<int64_t> inverse = invert(perm);
    // Every operand transposed alike, or a constant of at most that rank;
    // checked before anything is built.
    auto alike = [&](Value operand) {
      TransposeOp t = transposeOf(operand);
      return t && t.getPerm() == perm;
    };
    for (Value operand : {op.getLhs(), op.getRhs()})
      if (!alike(operand) &&
          (!matchPattern(operand, m_Constant()) ||
           cast<RankedTensorType>(operand.getType()).getRank() > rank))
        return rewriter.notifyMatchFailure(op, "operand not transposed alike");
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    for (Value operand : {op.getLhs(), op.getRhs()}) {
      if (alike(operand)) {
        operands.push_back(transposeOf(operand).getInput());
        continue;
      }
      // A constant: to the full rank (leading unit dimensions), then into
      // the untransposed layout (both fold). One value broadcasts alike in
      // any layout: it stays as it is (a scalar, which the kernels read
      // once, where a [1, 1, 1, 1] tensor is read through a broadcast).
      auto type = cast<RankedTensorType>(operand.getType());
      if (type.getNumElements() == 1) {
        operands.push_back(operand);
        continue;
      }
      if (type.getRank() < rank) {
        SmallVector<int64_t> shape(rank - type.getRank(), 1);
        llvm::append_range(shape, type.getShape());
        operand = ReshapeOp::create(rewriter, loc, type.clone(shape), operand,
                                    rewriter.getDenseI64ArrayAttr(shape))
                      .getResult();
      }
      operands.push_back(transpose(rewriter, loc, operand, inverse));
    }
    auto clone = cast<OpTy>(rewriter.clone(*op.getOperation()));
    clone->setOperands(operands);
    // The result untransposed: dimension j is the old result's inverse[j]
    // (broadcasting commutes with permuting every operand alike).
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> shape;
    for (int64_t j : inverse)
      shape.push_back(resultType.getDimSize(j));
    clone->getResult(0).setType(resultType.clone(shape));
    rewriter.replaceOp(op, transpose(rewriter, loc, clone.getResult(), perm));
    return success();
  }
};

/// `concat(transpose(x_i, p), axis) -> transpose(concat(x_i, p[axis]), p)`.
struct SinkThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    ArrayRef<int64_t> perm;
    for (Value input : op.getInputs()) {
      TransposeOp t = transposeOf(input);
      if (!t || (!perm.empty() && t.getPerm() != perm))
        return failure();
      perm = t.getPerm();
      inputs.push_back(t.getInput());
    }
    if (perm.empty())
      return failure();
    int64_t axis = perm[op.getAxis()];
    auto concat = ConcatOp::create(rewriter, op.getLoc(), inputs,
                                   rewriter.getI64IntegerAttr(axis));
    rewriter.replaceOp(
        op, transpose(rewriter, op.getLoc(), concat.getResult(), perm));
    return success();
  }
};

/// Whether `op` converts between NCHW and NHWC.
bool isLayoutConversion(TransposeOp op) {
  ArrayRef<int64_t> perm = op.getPerm();
  return perm == ArrayRef<int64_t>(kToChannelsLast) ||
         perm == ArrayRef<int64_t>(kToChannelsFirst);
}

struct TesselAssignLayoutsPass
    : public tessel::impl::TesselAssignLayoutsPassBase<
          TesselAssignLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // With `integer-only`, only a module holding a convolution of 8-bit
    // values or bf16 or f16 ones (whose kernels exist only channels last) goes
    // channels last;
    // then every op with a channels-last kernel does, so that the f32 ones
    // between them (a quantized model's depthwise convolutions, pooling)
    // do not sit between transposes.
    if (integerOnly) {
      bool quantized = false;
      module.walk([&](ConvOp conv) {
        Type element = getElementTypeOrSelf(conv.getInput().getType());
        quantized |= conv.getLayout() == Layout::NCHW &&
                     (element.isInteger(32) || element.isBF16() ||
                      element.isF16()) &&
                     hasChannelsLastKernel(conv, vectorWidth);
      });
      if (!quantized)
        return;
    }
    RewritePatternSet patterns(ctx);
    patterns
        .add<RunChannelsLast<ConvOp>, RunChannelsLast<MaxPoolOp>,
             RunChannelsLast<AvgPoolOp>, RunChannelsLast<GlobalAveragePoolOp>>(
            ctx, vectorWidth);
    patterns.add<SinkThroughUnary, SinkThroughConcat, SinkThroughBinary<AddOp>,
                 SinkThroughBinary<SubOp>, SinkThroughBinary<MulOp>,
                 SinkThroughBinary<DivOp>, SinkThroughBinary<MinOp>,
                 SinkThroughBinary<MaxOp>, SinkThroughBinary<PReluOp>>(ctx);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    ReshapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
    // Ops that read one value through a transpose each made their own.
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(module);
    eliminateCommonSubExpressions(rewriter, dominance, module);

    // What converts layouts now: at the edges (reading a graph input, or
    // only feeding the function's results) or inside.
    int64_t edges = 0, inside = 0;
    module.walk([&](TransposeOp op) {
      if (!isLayoutConversion(op))
        return;
      bool fromInput = isa<BlockArgument>(op.getInput());
      bool toOutput = llvm::all_of(op->getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::IsTerminator>();
      });
      (fromInput || toOutput ? edges : inside) += 1;
    });
    remark::analysis(module.getLoc(),
                     remark::RemarkOpts::name(kLayoutConversionsRemark)
                         .category(kRemarkCategory))
        << remark::metric("edges", edges) << remark::metric("inside", inside);
  }
};

} // namespace
