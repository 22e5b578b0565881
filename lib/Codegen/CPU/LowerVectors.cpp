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

/// Whether `op`'s elements may be combined in any order: integer and
/// min/max kinds always, float sums and products under `reassoc`.
bool mayReorder(vector::ReductionOp op) {
  if (!isa<FloatType>(op.getType()))
    return true;
  vector::CombiningKind kind = op.getKind();
  if (kind != vector::CombiningKind::ADD && kind != vector::CombiningKind::MUL)
    return true;
  return bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::reassoc);
}

/// A reduction along a vector whose length is no power of two reduces
/// power-of-two vectors instead, which LLVM lowers as a tree of vector ops:
/// its chunks of the largest power of two that divides the length (8
/// elements or more) combined lane by lane first, or else its power-of-two
/// pieces one after another. LLVM expanded `llvm.vector.reduce.fadd` of a
/// <112 x float> (a 112-wide row of global average pooling) into scalar
/// loads and adds: 96 channels of 112 x 112 took 0.27 ms, now 0.057; short
/// lengths too: 1000 channels of 13 x 13, 0.038 ms, now 0.024 (Zen 4, 1
/// thread).
struct SplitWideReductions : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (type.getRank() != 1 || type.isScalable() || op.isMasked())
      return failure();
    int64_t length = type.getNumElements();
    if (length <= 2 || llvm::isPowerOf2_64(uint64_t(length)) || !mayReorder(op))
      return failure();
    Location loc = op.getLoc();
    vector::CombiningKind kind = op.getKind();
    arith::FastMathFlagsAttr fastmath = op.getFastmathAttr();
    auto slice = [&](int64_t offset, int64_t size) -> Value {
      return vector::ExtractStridedSliceOp::create(
          rewriter, loc, op.getVector(), ArrayRef<int64_t>{offset},
          ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
    };
    auto reduce = [&](Value vector, Value acc) -> Value {
      return vector::ReductionOp::create(
          rewriter, loc, op.getType(),
          vector::CombiningKindAttr::get(rewriter.getContext(), kind), vector,
          acc, fastmath);
    };
    int64_t chunk = int64_t(1) << llvm::countr_zero(uint64_t(length));
    Value result;
    if (chunk >= 8) {
      // Chunks combined lane by lane, pairwise: a tree, not a chain.
      SmallVector<Value> parts;
      for (int64_t at = 0; at < length; at += chunk)
        parts.push_back(slice(at, chunk));
      while (parts.size() > 1) {
        SmallVector<Value> next;
        for (size_t i = 0; i + 1 < parts.size(); i += 2)
          next.push_back(vector::makeArithReduction(
              rewriter, loc, kind, parts[i], parts[i + 1], fastmath));
        if (parts.size() % 2)
          next.push_back(parts.back());
        parts = std::move(next);
      }
      result = reduce(parts.front(), op.getAcc());
    } else {
      // Its power-of-two pieces, largest first.
      result = op.getAcc();
      int64_t at = 0;
      for (int64_t piece = int64_t(llvm::bit_floor(uint64_t(length)));
           piece >= 1; piece /= 2)
        if (length - at >= piece) {
          result = reduce(slice(at, piece), result);
          at += piece;
        }
    }
    rewriter.replaceOp(op, result);
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
    RewritePatternSet split(ctx);
    split.add<SplitWideReductions>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(split))))
      return signalPassFailure();
  }
};

} // namespace
