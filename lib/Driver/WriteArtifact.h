//===- WriteArtifact.h - tessel-compile's last phases -----------*- C++ -*-===//
//
// From the module in the LLVM dialect to the output: the weights file past
// its threshold, then LLVM IR, an object file or the sealed shared object.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_WRITEARTIFACT_H
#define TESSEL_LIB_DRIVER_WRITEARTIFACT_H

#include "Progress.h"
#include "Report.h"

#include "tessel/Support/ErrorCodes.h"
#include "tessel/Target/LLVM/Artifact.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::tessel {

/// What the command line asks of the artifact.
struct ArtifactRequest {
  std::string emitKind;  ///< "so", "obj" or "llvm-ir"
  std::string path;      ///< the output file
  std::string inputFile; ///< the model, for messages
  unsigned optLevel = 2;
  uint64_t weightsFileThreshold = 0; ///< --weights-file-threshold
  ArtifactInfo info;                 ///< the descriptor's strings
  /// A dynamic batch or a padded dimension: `module` is the first build
  /// (batch 1, the shortest length), these the others.
  const DynamicBatch *batch = nullptr;
  /// --codegen-parts: how many parts a shared object's machine code is
  /// compiled in, on threads; 0: codegenParts decides.
  unsigned codegenParts = 0;
};

/// Why writeArtifact failed: print `where: error[code]: message`; an empty
/// message means the diagnostics are already printed.
struct ArtifactFailure {
  std::string where;
  ::tessel::ErrorCode code = ::tessel::ErrorCode::Target;
  std::string message;
};

/// Writes the artifact of `module` (in the LLVM dialect; its constants may
/// move to a weights file), recording the target, memory and phases in
/// `report`.
LogicalResult writeArtifact(ModuleOp module, llvm::TargetMachine &machine,
                            ArtifactRequest request, CompileReport &report,
                            Progress &progress, ArtifactFailure &why);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_WRITEARTIFACT_H
