//===- LowerVectors.cpp - Vector ops down to 1-D vectors and FMAs ---------===//
//
// After bufferization: contractions become outer products, outer products
// become FMAs, n-D transfers, broadcasts, transposes and shape casts
// become 1-D vector ops, and multi-reductions become reductions along the
// innermost dimension, which LLVM may reassociate. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWERVECTORSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// A transfer_read that broadcasts along some of its vector's dimensions
/// (a constant 0 in its permutation map: a per-channel scale read across a
/// row) reads those dimensions at size 1 and broadcasts the read. Upstream's
/// permutation lowering moves broadcast dimensions to the front and
/// transposes them back element by element: a scale broadcast along 40
/// columns became 40 scalar inserts through the stack in every iteration
/// (EfficientNet-B1's first squeeze-excitation scale: 0.67 ms, where
/// onnxruntime's multiply takes 0.084).
struct ReadBroadcastDimsOnce : OpRewritePattern<vector::TransferReadOp> {
  ReadBroadcastDimsOnce(MLIRContext *ctx)
      : OpRewritePattern<vector::TransferReadOp>(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getMask())
      return failure();
    VectorType type = read.getVectorType();
    if (type.isScalable())
      return failure();
    SmallVector<int64_t> shape(type.getShape());
    bool stretched = false;
    for (auto [i, result] :
         llvm::enumerate(read.getPermutationMap().getResults()))
      if (auto zero = dyn_cast<AffineConstantExpr>(result);
          zero && shape[i] != 1) {
        shape[i] = 1;
        stretched = true;
      }
    if (!stretched)
      return failure();
    Location loc = read.getLoc();
    auto once = vector::TransferReadOp::create(
        rewriter, loc, VectorType::get(shape, type.getElementType()),
        read.getBase(), read.getIndices(), read.getPermutationMapAttr(),
        read.getPadding(), /*mask=*/Value(), read.getInBoundsAttr());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, type, once);
    return success();
  }
};

struct LowerVectorsPass
    : tessel::impl::TesselLowerVectorsPassBase<LowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ReadBroadcastDimsOnce>(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::ContractionOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // Float sums and products along a vector may be reassociated, so LLVM
    // reduces in a tree of vector adds instead of one lane after another
    // (as vectorized reductions in BLAS and onnxruntime do).
    getOperation()->walk([&](vector::ReductionOp op) {
      if (!isa<FloatType>(op.getType()) ||
          (op.getKind() != vector::CombiningKind::ADD &&
           op.getKind() != vector::CombiningKind::MUL))
        return;
      op.setFastmathAttr(arith::FastMathFlagsAttr::get(
          ctx, op.getFastmath() | arith::FastMathFlags::reassoc));
    });
  }
};

} // namespace
