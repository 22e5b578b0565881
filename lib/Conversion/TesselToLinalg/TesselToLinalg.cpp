//===- TesselToLinalg.cpp - The tessel-to-linalg conversion pass ----------===//

#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTTESSELTOLINALGPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

void mlir::tessel::populateTesselToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateContractionToLinalgPatterns(patterns);
  populateConvolutionToLinalgPatterns(patterns);
  populatePoolingToLinalgPatterns(patterns);
  populateSoftmaxToLinalgPatterns(patterns);
  populateReductionToLinalgPatterns(patterns);
  populateNormalizationToLinalgPatterns(patterns);
  populateDataMovementToLinalgPatterns(patterns);
}

namespace {

/// Says why Tessel cannot lower `op` yet, before conversion would fail with
/// only "failed to legalize".
std::optional<std::string> whyNotLowerable(Operation *op) {
  auto isUnsigned = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    auto element = tensor ? dyn_cast<IntegerType>(tensor.getElementType())
                          : IntegerType();
    return element && element.isUnsigned();
  };
  if (llvm::any_of(op->getOperandTypes(), isUnsigned) ||
      llvm::any_of(op->getResultTypes(), isUnsigned))
    return std::string("computes on unsigned integers, which Tessel cannot "
                       "lower yet");
  return std::nullopt;
}

struct ConvertTesselToLinalgPass
    : tessel::impl::ConvertTesselToLinalgPassBase<ConvertTesselToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool unsupported = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<TesselDialect>(op->getDialect()))
        return;
      if (std::optional<std::string> reason = whyNotLowerable(op)) {
        op->emitOpError() << *reason;
        unsupported = true;
      }
    });
    if (unsupported)
      return signalPassFailure();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<TesselDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    RewritePatternSet patterns(ctx);
    populateTesselToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
