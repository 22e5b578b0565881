//===- TesselToLinalg.cpp - The tessel-to-linalg conversion pass ----------===//

#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "LoweringUtils.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTTESSELTOLINALGPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

void mlir::tessel::populateTesselToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateMathToLinalgPatterns(patterns);
  populateActivationToLinalgPatterns(patterns);
  populateBinaryMathToLinalgPatterns(patterns);
  populateLogicToLinalgPatterns(patterns);
  populateCastToLinalgPatterns(patterns);
  populateContractionToLinalgPatterns(patterns);
  populateConvolutionToLinalgPatterns(patterns);
  populatePoolingToLinalgPatterns(patterns);
  populateSoftmaxToLinalgPatterns(patterns);
  populateReductionToLinalgPatterns(patterns);
  populateNormalizationToLinalgPatterns(patterns);
  populateDataMovementToLinalgPatterns(patterns);
  populateIndexingToLinalgPatterns(patterns);
  populateResizeToLinalgPatterns(patterns);
  populateGridSampleToLinalgPatterns(patterns);
  populateSelectionToLinalgPatterns(patterns);
  populateScatterToLinalgPatterns(patterns);
}

namespace {

/// Makes every unsigned integer type in `func` (operand, result and block
/// argument types, attributes, the function type) signless: arith computes
/// on signless integers only, and the lowering patterns have already chosen
/// unsigned ops where the sign matters.
void makeSignless(func::FuncOp func) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](IntegerType type) -> std::optional<Type> {
    if (!type.isUnsigned())
      return std::nullopt;
    return IntegerType::get(type.getContext(), type.getWidth());
  });
  // Dense constants keep their element type inside the attribute.
  replacer.addReplacement(
      [](DenseElementsAttr attr) -> std::optional<Attribute> {
        auto element = dyn_cast<IntegerType>(attr.getElementType());
        if (!element || !element.isUnsigned())
          return std::nullopt;
        return attr.bitcast(
            IntegerType::get(attr.getContext(), element.getWidth()));
      });
  replacer.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

/// Ops whose lowering computes with signed integer semantics (comparisons,
/// divisions): unsigned operands would give silently wrong results, so they
/// are refused up front, at the op's location (the ONNX node).
std::optional<std::string> whyNotLowerable(Operation *op) {
  if (!isa<ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceL1Op, ReduceL2Op,
           ReduceLogSumOp, ReduceLogSumExpOp, ArgMaxOp, ArgMinOp>(op))
    return std::nullopt;
  if (llvm::any_of(op->getOperandTypes(), isUnsignedInteger))
    return std::string("computes on unsigned integers, which Tessel cannot "
                       "lower yet");
  return std::nullopt;
}

/// Wraps every tessel op of `func` that is in no `tessel.fused` region (but
/// constants) in a region of its own: each is a fusion group by itself.
void wrapLoneOps(func::FuncOp func) {
  SmallVector<Operation *> lone;
  func.walk([&](Operation *op) {
    if (isa<TesselDialect>(op->getDialect()) &&
        !isa<FusedOp, YieldOp, ConstantOp>(op) &&
        !op->getParentOfType<FusedOp>() && op->getNumResults() > 0)
      lone.push_back(op);
  });
  OpBuilder builder(func.getContext());
  for (Operation *op : lone) {
    builder.setInsertionPoint(op);
    auto fused = FusedOp::create(builder, op->getLoc(), op->getResultTypes(),
                                 builder.getStringAttr("single"));
    Block *body = builder.createBlock(&fused.getBody());
    op->replaceAllUsesWith(fused.getResults());
    op->moveBefore(body, body->end());
    builder.setInsertionPointToEnd(body);
    YieldOp::create(builder, op->getLoc(), op->getResults());
  }
}

/// Replaces every `tessel.fused` region of `func` by its (lowered) ops,
/// the structured ones marked with the region's fusion group, numbered in
/// program order.
void inlineFusedRegions(func::FuncOp func) {
  SmallVector<FusedOp> regions;
  func.walk([&](FusedOp op) { regions.push_back(op); });
  Builder builder(func.getContext());
  int64_t group = 0;
  for (FusedOp fused : regions) {
    IntegerAttr tag = builder.getI64IntegerAttr(group++);
    YieldOp yield = fused.getYield();
    fused->replaceAllUsesWith(yield.getValues());
    Block &body = fused.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (&op == yield.getOperation())
        continue;
      // The code generators decide fusion on structured ops (a fill only
      // ever initialises its own op's result: it needs no group).
      if (isa<linalg::LinalgOp>(op) && !isa<linalg::FillOp>(op))
        op.setAttr(kFusionGroupAttr, tag);
      op.moveBefore(fused);
    }
    fused->erase();
  }
}

struct ConvertTesselToLinalgPass
    : tessel::impl::ConvertTesselToLinalgPassBase<ConvertTesselToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool unsupported = false;
    getOperation().walk([&](Operation *op) {
      if (std::optional<std::string> reason = whyNotLowerable(op)) {
        op->emitOpError() << *reason;
        unsupported = true;
      }
    });
    if (unsupported)
      return signalPassFailure();

    wrapLoneOps(getOperation());
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TesselDialect>();
    // Regions stay until their ops are lowered, then give them their group.
    target.addLegalOp<FusedOp, YieldOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    RewritePatternSet patterns(ctx);
    populateTesselToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    inlineFusedRegions(getOperation());
    makeSignless(getOperation());
  }
};
} // namespace
