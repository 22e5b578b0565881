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

/// The f32 constant operand of the binary `op` (the right-hand one, or
/// either for a commutative add or mul) and the other operand, which must
/// have `op`'s type (no broadcast of it); nothing otherwise.
static std::optional<std::pair<unsigned, Value>> constantOperand(Operation *op) {
  Type type = op->getResult(0).getType();
  for (unsigned i : {1u, 0u}) {
    if (i == 0 && !isa<AddOp, MulOp>(op))
      break;
    Value other = op->getOperand(1 - i);
    if (other.getType() == type && getConstantF32Values(op->getOperand(i)))
      return std::make_pair(i, other);
  }
  return std::nullopt;
}

namespace {

/// A constant's values in double, with its shape.
struct Exact {
  SmallVector<int64_t> shape;
  std::vector<double> values;
};

} // namespace

static Exact exactValues(Value constant) {
  std::vector<float> values = *getConstantF32Values(constant);
  return {llvm::to_vector(cast<RankedTensorType>(constant.getType()).getShape()),
          std::vector<double>(values.begin(), values.end())};
}

/// `x * y` elementwise, broadcast as the elementwise ops broadcast (shapes
/// aligned at their last dimensions); nothing when the shapes do not
/// broadcast.
static std::optional<Exact> multiply(const Exact &x, const Exact &y) {
  Exact result;
  result.shape.assign(std::max(x.shape.size(), y.shape.size()), 1);
  size_t rank = result.shape.size();
  for (size_t i = 0; i < rank; ++i) {
    int64_t dx = i < x.shape.size() ? x.shape[x.shape.size() - 1 - i] : 1;
    int64_t dy = i < y.shape.size() ? y.shape[y.shape.size() - 1 - i] : 1;
    if (dx != dy && dx != 1 && dy != 1)
      return std::nullopt;
    result.shape[rank - 1 - i] = std::max(dx, dy);
  }
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
    std::optional<std::pair<unsigned, Value>> constant = constantOperand(op);
    if (!constant)
      return false;
    value = constant->second;
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
  SmallVector<Operation *> offsets;
  Operation *scale = nullptr;
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
    std::optional<std::pair<unsigned, Value>> constant = constantOperand(op);
    if (!constant)
      return rewriter.notifyMatchFailure(div, "no constant operand");
    if (isa<MulOp>(op))
      scale = op;
    else
      offsets.push_back(op);
    value = constant->second;
    if (scale && !isScaledInteger(value))
      return rewriter.notifyMatchFailure(div, "not scaled integers");
  }

  // The multiplications by constants under it (an integer product's scale
  // per tensor, then per channel) join it: one multiplier.
  SmallVector<Operation *> scales = {scale};
  Exact multiplier =
      exactValues(scale->getOperand(constantOperand(scale)->first));
  while (true) {
    auto inner = constantOperand(scales.back())->second.getDefiningOp<MulOp>();
    if (!inner || !inner->hasOneUse() || !hasOnlyF32Tensors(inner))
      break;
    std::optional<std::pair<unsigned, Value>> constant =
        constantOperand(inner);
    if (!constant)
      break;
    std::optional<Exact> joined =
        multiply(multiplier, exactValues(inner->getOperand(constant->first)));
    if (!joined)
      break;
    multiplier = std::move(*joined);
    scales.push_back(inner);
  }

  // The constants divided by c, from their values in double, each rounded
  // once to f32.
  auto replaceConstant = [&](Operation *op, Exact exact) {
    std::vector<float> values;
    for (double v : exact.values)
      values.push_back(static_cast<float>(v / c));
    unsigned i = constantOperand(op)->first;
    rewriter.setInsertionPoint(op);
    Value replacement = createF32Constant(
        rewriter, op->getOperand(i).getLoc(), exact.shape, values);
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(i, replacement); });
  };
  Value scaled = constantOperand(scales.back())->second;
  replaceConstant(scale, std::move(multiplier));
  rewriter.modifyOpInPlace(scale, [&] {
    scale->setOperand(1 - constantOperand(scale)->first, scaled);
  });
  // Each now unread, from the first under `scale` down.
  for (Operation *inner : ArrayRef(scales).drop_front())
    rewriter.eraseOp(inner);
  for (Operation *offset : offsets)
    replaceConstant(offset, exactValues(
                                offset->getOperand(constantOperand(offset)->first)));
  rewriter.replaceOp(div, div.getLhs());
  return scale;
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
