//===- WidenBf16VectorMath.cpp - bf16 vector reductions and FMAs in f32 ---===//
//
// x86 has no bf16 arithmetic: LLVM promotes a bf16 vector reduction or FMA
// to f32 and rounds each result back with a call to __truncsfbf2 where the
// CPU lacks AVX512-BF16, a function that the libgcc an artifact links
// against may lack (Debian 12's gcc 12: a link error). Every
// `vector.reduction` and `vector.fma` on bf16 is computed here in f32, its
// operands extended and its result rounded once, as
// arith-emulate-unsupported-floats does for the arith ops; the rounding is
// then integer code (arith-expand). See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELWIDENBF16VECTORMATHPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// `value` (bf16, or a vector of bf16) extended to f32.
Value widen(PatternRewriter &rewriter, Location loc, Value value) {
  Type f32 = rewriter.getF32Type();
  Type wide = f32;
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    wide = vector.clone(f32);
  return arith::ExtFOp::create(rewriter, loc, wide, value);
}

/// A reduction of bf16 lanes (and its accumulator), summed in f32.
struct WidenReduction : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isBF16())
      return failure();
    Location loc = op.getLoc();
    Value acc = op.getAcc() ? widen(rewriter, loc, op.getAcc()) : Value();
    Value wide = vector::ReductionOp::create(
        rewriter, loc, rewriter.getF32Type(), op.getKind(),
        widen(rewriter, loc, op.getVector()), acc, op.getFastmath());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

/// An FMA of bf16 vectors, in f32.
struct WidenFma : OpRewritePattern<vector::FMAOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::FMAOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getVectorType().getElementType().isBF16())
      return failure();
    Location loc = op.getLoc();
    Value wide = vector::FMAOp::create(
        rewriter, loc, widen(rewriter, loc, op.getLhs()),
        widen(rewriter, loc, op.getRhs()), widen(rewriter, loc, op.getAcc()));
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

struct WidenBf16VectorMathPass
    : tessel::impl::TesselWidenBf16VectorMathPassBase<WidenBf16VectorMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenReduction, WidenFma>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
