//===- FoldActivationClips.cpp - One clamp instead of a ReLU and a Clip ---===//
//
// clip(relu(x), a >= 0, b) -> clip(x, a, b); relu(clip(x, a, b)) ->
// clip(x, max(a, 0), max(b, 0)); relu(relu(x)) -> relu(x). The worked
// example of docs/writing-a-pass.md: a transformation as a plain function,
// patterns that call it, and a pass that applies them.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Transforms.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDACTIVATIONCLIPSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

FailureOr<Operation *>
mlir::tessel::foldActivationClip(RewriterBase &rewriter, Operation *op) {
  // clip(relu(x), a, b) with a >= 0: the clip's lower bound already does
  // what the ReLU did.
  if (auto clip = dyn_cast<ClipOp>(op)) {
    auto relu = clip.getInput().getDefiningOp<ReluOp>();
    if (!relu || !relu->hasOneUse())
      return rewriter.notifyMatchFailure(op, "input is not a lone relu");
    FloatAttr min = clip.getMinAttr();
    if (!min || min.getValueAsDouble() < 0.0)
      return rewriter.notifyMatchFailure(op, "lower bound below 0");
    rewriter.modifyOpInPlace(
        clip, [&] { clip.getInputMutable().assign(relu.getInput()); });
    rewriter.eraseOp(relu);
    return op;
  }
  auto relu = dyn_cast<ReluOp>(op);
  if (!relu)
    return rewriter.notifyMatchFailure(op, "neither relu nor clip");
  // relu(relu(x)) = relu(x).
  if (auto inner = relu.getInput().getDefiningOp<ReluOp>()) {
    rewriter.replaceOp(relu, inner.getResult());
    return inner.getOperation();
  }
  // relu(clip(x, a, b)) = clip(x, max(a, 0), max(b, 0)).
  auto clip = relu.getInput().getDefiningOp<ClipOp>();
  if (!clip || !clip->hasOneUse())
    return rewriter.notifyMatchFailure(op, "input is not a lone clip");
  double min = 0.0;
  if (FloatAttr lower = clip.getMinAttr())
    min = std::max(lower.getValueAsDouble(), 0.0);
  std::optional<double> max;
  if (FloatAttr upper = clip.getMaxAttr())
    max = std::max(upper.getValueAsDouble(), 0.0);
  rewriter.modifyOpInPlace(clip, [&] {
    clip.setMinAttr(rewriter.getF64FloatAttr(min));
    if (max)
      clip.setMaxAttr(rewriter.getF64FloatAttr(*max));
  });
  rewriter.replaceOp(relu, clip.getResult());
  return clip.getOperation();
}

namespace {

/// Applies foldActivationClip to every op of type `OpTy`.
template <typename OpTy>
struct FoldActivationClipPattern : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return foldActivationClip(rewriter, op);
  }
};

struct TesselFoldActivationClipsPass
    : public tessel::impl::TesselFoldActivationClipsPassBase<
          TesselFoldActivationClipsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldActivationClipsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tessel::populateFoldActivationClipsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldActivationClipPattern<ClipOp>,
               FoldActivationClipPattern<ReluOp>>(patterns.getContext());
}
