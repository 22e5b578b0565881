//===- ChooseKeptProducts.h - --accuracy-budget, driven ---------*- C++ -*-===//

#ifndef TESSEL_LIB_DRIVER_CHOOSEKEPTPRODUCTS_H
#define TESSEL_LIB_DRIVER_CHOOSEKEPTPRODUCTS_H

#include "AccuracyBudget.h"
#include "TemporaryBuild.h"

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Target/LLVM/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/JSON.h"

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir::tessel {

/// Chooses the products `options` (quantize "apply", calibrated) keeps in
/// FP32 to meet `budget` on the samples at `dataPath`: searches a simulation
/// build, checks the choice on the real build (keeping more while it
/// misses), and measures both that and the all-low-precision build, each
/// compiled for `runnable` (the target, or the host where it cannot run
/// the target's code). Sets `options.keepFp32`, the report's `section` and
/// a `summary` for stderr; on failure `code` and `message` say why.
bool chooseKeptProducts(ModuleOp module, const DialectRegistry &registry,
                        llvm::StringRef modelFile, const AccuracyBudget &budget,
                        const std::string &dataPath,
                        const RunnableTarget &runnable, unsigned optLevel,
                        const ArtifactInfo &info, PipelineOptions &options,
                        llvm::json::Value &section, std::string &summary,
                        ::tessel::ErrorCode &code, std::string &message);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_CHOOSEKEPTPRODUCTS_H
