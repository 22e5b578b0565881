//===- FoldRequantizationScales.cpp - One multiplier per requantization ---===//
//
// A quantization of integer values that were scaled,
// `(cast<f32>(p) * a + b) / c` with constant a, b and one positive
// constant c, is `cast<f32>(p) * (a / c) + b / c`: the division (the
// slowest vector instruction the epilogue ran) becomes part of the
// multiplier, which is how an integer runtime requantizes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Transforms.h"

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDREQUANTIZATIONSCALESPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A binary op with an f32 constant operand: which operand it is, and the
/// other one.
struct ConstantOperand {
  Operation *op;
  unsigned index;
  Value other;

  Value constant() const { return op->getOperand(index); }
};

/// A constant's values in double, with its shape.
struct Exact {
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

} // namespace

/// The f32 constant operand of the binary `op` (the right-hand one, or
/// either for a commutative add or mul), the other operand having `op`'s
/// type (no broadcast of it); nothing otherwise.
static std::optional<ConstantOperand> constantOperand(Operation *op) {
  Type type = op->getResult(0).getType();
  for (unsigned i : {1u, 0u}) {
    if (i == 0 && !isa<AddOp, MulOp>(op))
      break;
    Value other = op->getOperand(1 - i);
    if (other.getType() == type && getConstantF32Values(op->getOperand(i)))
      return ConstantOperand{op, i, other};
  }
  return std::nullopt;
}

static Exact exactValues(Value constant) {
  std::vector<float> values = *getConstantF32Values(constant);
  return {llvm::to_vector(cast<RankedTensorType>(constant.getType()).getShape()),
          std::vector<double>(values.begin(), values.end())};
}

/// `x * y` elementwise, broadcast as the elementwise ops broadcast;
/// nothing when the shapes do not broadcast.
static std::optional<Exact> multiply(const Exact &x, const Exact &y) {
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(x.shape, y.shape);
  if (failed(shape))
    return std::nullopt;
  Exact result{std::move(*shape), {}};
  size_t rank = result.shape.size();
  SmallVector<int64_t> at(rank, 0);
  // The flat index of `at` in an operand of `shape` (read at 0 along its
  // unit dimensions and its missing leading ones).
  auto flat = [&](ArrayRef<int64_t> shape) {
    int64_t index = 0;
    size_t lead = rank - shape.size();
    for (size_t d = 0; d < shape.size(); ++d)
      index = index * shape[d] + (shape[d] == 1 ? 0 : at[lead + d]);
    return index;
  };
  int64_t count = 1;
  for (int64_t d : result.shape)
    count *= d;
  result.values.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    result.values[i] = x.values[flat(x.shape)] * y.values[flat(y.shape)];
    for (int64_t d = rank - 1; d >= 0 && ++at[d] == result.shape[d]; --d)
      at[d] = 0;
  }
  return result;
}

/// Whether `value`, through subtractions, additions and multiplications by
/// constants, is a cast to f32 of integers.
static bool isScaledInteger(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (auto cast = dyn_cast<CastOp>(op))
      return isa<IntegerType>(
          getElementTypeOrSelf(cast.getInput().getType()));
    if (!isa<AddOp, SubOp, MulOp>(op) || !hasOnlyF32Tensors(op))
      return false;
    std::optional<ConstantOperand> constant = constantOperand(op);
    if (!constant)
      return false;
    value = constant->other;
  }
  return false;
}

FailureOr<Operation *>
mlir::tessel::foldRequantizationScale(RewriterBase &rewriter, DivOp div) {
  if (!hasOnlyF32Tensors(div) ||
      div.getLhs().getType() != div.getResult().getType())
    return rewriter.notifyMatchFailure(div, "not an f32 division");
  std::optional<std::vector<float>> divisor =
      getConstantF32Values(div.getRhs());
  if (!divisor || divisor->size() != 1 || !std::isfinite(divisor->front()) ||
      divisor->front() <= 0.0f)
    return rewriter.notifyMatchFailure(div, "not one positive constant");
  double c = divisor->front();

  // Down the chain of lone ReLUs and additions of constants (both commute
  // with a positive scale) to the multiplication that absorbs 1 / c.
  SmallVector<ConstantOperand> offsets;
  std::optional<ConstantOperand> scale;
  for (Value value = div.getLhs(); !scale;) {
    Operation *op = value.getDefiningOp();
    if (!op || !op->hasOneUse() || !hasOnlyF32Tensors(op))
      return rewriter.notifyMatchFailure(div, "no lone scaling chain");
    if (isa<ReluOp>(op)) {
      value = op->getOperand(0);
      continue;
    }
    if (!isa<AddOp, MulOp>(op))
      return rewriter.notifyMatchFailure(div, "not a relu, add or mul");
    std::optional<ConstantOperand> constant = constantOperand(op);
    if (!constant)
      return rewriter.notifyMatchFailure(div, "no constant operand");
    if (isa<MulOp>(op))
      scale = constant;
    else
      offsets.push_back(*constant);
    value = constant->other;
  }
  if (!isScaledInteger(scale->other))
    return rewriter.notifyMatchFailure(div, "not scaled integers");

  // The multiplications by constants under it (an integer product's scale
  // per tensor, then per channel) join it: one multiplier.
  SmallVector<ConstantOperand> scales = {*scale};
  Exact multiplier = exactValues(scale->constant());
  while (auto inner = scales.back().other.getDefiningOp<MulOp>()) {
    if (!inner->hasOneUse() || !hasOnlyF32Tensors(inner))
      break;
    std::optional<ConstantOperand> next = constantOperand(inner);
    if (!next)
      break;
    std::optional<Exact> joined =
        multiply(multiplier, exactValues(next->constant()));
    if (!joined)
      break;
    multiplier = std::move(*joined);
    scales.push_back(*next);
  }

  // Each constant divided by c, from its values in double, rounded once
  // to f32, in place of the one `at` read.
  auto replaceConstant = [&](const ConstantOperand &at, const Exact &exact) {
    std::vector<float> values;
    values.reserve(exact.values.size());
    for (double v : exact.values)
      values.push_back(static_cast<float>(v / c));
    rewriter.setInsertionPoint(at.op);
    Value replacement = createF32Constant(
        rewriter, at.constant().getLoc(), exact.shape, values);
    rewriter.modifyOpInPlace(at.op,
                             [&] { at.op->setOperand(at.index, replacement); });
  };
  replaceConstant(*scale, multiplier);
  rewriter.modifyOpInPlace(scale->op, [&] {
    scale->op->setOperand(1 - scale->index, scales.back().other);
  });
  // Each now unread, from the first under `scale` down.
  for (const ConstantOperand &inner : ArrayRef(scales).drop_front())
    rewriter.eraseOp(inner.op);
  for (const ConstantOperand &offset : offsets)
    replaceConstant(offset, exactValues(offset.constant()));
  rewriter.replaceOp(div, div.getLhs());
  return scale->op;
}

namespace {

struct FoldRequantizationScalePattern : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    return foldRequantizationScale(rewriter, op);
  }
};

struct TesselFoldRequantizationScalesPass
    : public tessel::impl::TesselFoldRequantizationScalesPassBase<
          TesselFoldRequantizationScalesPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldRequantizationScalesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tessel::populateFoldRequantizationScalesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldRequantizationScalePattern>(patterns.getContext());
}
