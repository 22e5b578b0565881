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
  populateDataMovementToLinalgPatterns(patterns);
}

namespace {
struct ConvertTesselToLinalgPass
    : tessel::impl::ConvertTesselToLinalgPassBase<ConvertTesselToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
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
