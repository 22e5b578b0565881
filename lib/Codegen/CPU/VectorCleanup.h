//===- VectorCleanup.h - Folding after vectorization on tensors -*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The vectorizers tile ops into slices of
// tensors and vectorize each slice; reads and writes of those slices then
// fold into transfers of the whole tensor, and canonicalization tidies the
// loops.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_VECTORCLEANUP_H
#define TESSEL_LIB_CODEGEN_CPU_VECTORCLEANUP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel::cpu {

/// Folds tensor slices into vector transfers and runs every loaded
/// dialect's and op's canonicalization on `func`.
inline LogicalResult foldSubsetsAndCanonicalize(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  return applyPatternsGreedily(func, std::move(patterns));
}

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_VECTORCLEANUP_H
