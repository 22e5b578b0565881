//===- TesselToLinalg.h - Patterns lowering tessel to linalg ----*- C++ -*-===//

#ifndef TESSEL_CONVERSION_TESSELTOLINALG_TESSELTOLINALG_H
#define TESSEL_CONVERSION_TESSELTOLINALG_TESSELTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// One populate function per op family, each in its own file.
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateMathToLinalgPatterns(RewritePatternSet &patterns);
void populateActivationToLinalgPatterns(RewritePatternSet &patterns);
void populateBinaryMathToLinalgPatterns(RewritePatternSet &patterns);
void populateLogicToLinalgPatterns(RewritePatternSet &patterns);
void populateCastToLinalgPatterns(RewritePatternSet &patterns);
void populateContractionToLinalgPatterns(RewritePatternSet &patterns);
void populateConvolutionToLinalgPatterns(RewritePatternSet &patterns);
void populatePoolingToLinalgPatterns(RewritePatternSet &patterns);
void populateSoftmaxToLinalgPatterns(RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns);
void populateIndexingToLinalgPatterns(RewritePatternSet &patterns);
void populateResizeToLinalgPatterns(RewritePatternSet &patterns);
void populateGridSampleToLinalgPatterns(RewritePatternSet &patterns);
void populateSelectionToLinalgPatterns(RewritePatternSet &patterns);
void populateScatterToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateTesselToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_TESSELTOLINALG_TESSELTOLINALG_H
