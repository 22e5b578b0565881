//===- DynamicBuilds.h - The builds of a dynamic artifact -------*- C++ -*-===//
//
// A dynamic batch or a padded dimension (--dim-range) compiles the model
// once per batch size and length; the driver builds the first (batch 1,
// the shortest length) and the batch's check build itself, these helpers
// the others, and check what they share.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_DYNAMICBUILDS_H
#define TESSEL_LIB_DRIVER_DYNAMICBUILDS_H

#include "BatchConstants.h"
#include "BatchOptions.h"
#include "Report.h"

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Target/LLVM/Artifact.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace mlir::tessel {

/// Imports the model at `batch` samples (0: the model's own batch) and
/// `length` positions of the padded dimension (0: none), and lowers it up
/// to `phase`; an exit code on failure (the diagnostics printed). Given
/// `constants`, it is a comparison build: lowered to linalg without the
/// padded dimension's masks, whose constants it records (those that are
/// only reshapes' shapes left out: the masks check the reshapes).
using BuildFn = llvm::function_ref<std::optional<int>(
    OwningOpRef<ModuleOp> &module, int64_t batch, int64_t length, Phase phase,
    BatchConstants *constants)>;

/// Builds, up to `to`, each batch size at each length but the first build
/// and those already in `builds`, appending them to `builds` (with their
/// modules in `modules`). A padded dimension's constants are compared
/// between two lengths first. With `checkOnly`, only that comparison.
std::optional<int> buildVariants(const BatchRequest &batch,
                                 const PaddedRequest &padded, bool checkOnly,
                                 BuildFn build, Phase to,
                                 std::vector<DynamicBatch::Build> &builds,
                                 std::vector<OwningOpRef<ModuleOp>> &modules);

/// Records, from a build lowered to linalg, where its inputs and outputs
/// hold the padded dimension (tessel-mask-padded-positions' marks); a later
/// build must agree.
LogicalResult recordPaddedDims(ModuleOp module, CompileReport &report);

inline std::vector<int32_t> toInt32(llvm::ArrayRef<int64_t> values) {
  return std::vector<int32_t>(values.begin(), values.end());
}

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_DYNAMICBUILDS_H
