//===- FuseElementwise.cpp - Fuse chains of elementwise generics ----------===//
//
// Upstream's elementwise fusion (linalg::fuseElementwiseOps), restricted to
// all-parallel consumers and producers that only they use (see the pass
// description).
//
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFUSEELEMENTWISEPASS
#include "tessel/Linalg/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// Fuses an all-parallel generic producer used by nothing else into an
/// all-parallel generic consumer (upstream's FuseElementwiseOps with our
/// rules), and gives the fused op both ops' locations, so reports name
/// every ONNX node.
struct FuseIntoParallelConsumer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer.getNumReductionLoops() != 0)
      return failure();
    for (OpOperand &operand : consumer->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      // A broadcast (non-permutation) read would recompute the producer
      // once per element of the broadcast dimensions.
      // Every use of the producer is this consumer's (GELU reads its input
      // twice): after the fusion no one else needs it computed.
      if (!producer || !tessel::mayFuse(producer, consumer) ||
          !llvm::all_of(producer->getUsers(),
                        [&](Operation *user) { return user == consumer; }) ||
          !consumer.getMatchingIndexingMap(&operand).isPermutation() ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      Location loc =
          rewriter.getFusedLoc({producer->getLoc(), consumer.getLoc()});
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      rewriter.modifyOpInPlace(fused->fusedOp, [&] {
        fused->fusedOp->setLoc(loc);
        tessel::copyFusionGroup(consumer, fused->fusedOp);
      });
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != producer;
        });
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

struct TesselFuseElementwisePass
    : public tessel::impl::TesselFuseElementwisePassBase<
          TesselFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseIntoParallelConsumer>(&getContext());
    // A producer read twice leaves its inputs twice in the fused op: one
    // operand each, so that the op's producers have one use per value.
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
