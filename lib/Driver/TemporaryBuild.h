//===- TemporaryBuild.h - A build of the model for the driver to run -*- C++ -*-===//
//
// Internal to lib/Driver: calibration and the accuracy budget's search each
// compile the model once more, with other pipeline options, into a
// temporary shared object that the driver loads through the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_TEMPORARYBUILD_H
#define TESSEL_LIB_DRIVER_TEMPORARYBUILD_H

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Support/ErrorCodes.h"
#include "tessel/Target/LLVM/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir::tessel {

/// A temporary shared object, removed when this goes.
class TemporaryArtifact {
public:
  TemporaryArtifact() = default;
  explicit TemporaryArtifact(std::string path) : path(std::move(path)) {}
  TemporaryArtifact(TemporaryArtifact &&other) noexcept
      : path(std::move(other.path)) {
    other.path.clear();
  }
  TemporaryArtifact &operator=(TemporaryArtifact &&other) noexcept;
  TemporaryArtifact(const TemporaryArtifact &) = delete;
  TemporaryArtifact &operator=(const TemporaryArtifact &) = delete;
  ~TemporaryArtifact();
  const std::string &getPath() const { return path; }

private:
  std::string path;
};

/// What the builds the driver runs itself (calibration's, the accuracy
/// budget's) are compiled for: the target where this host has every ISA
/// feature the target enables, else the host (a cross-compile for a CPU
/// this host cannot run, such as --target-cpu=znver4 on an AVX2 machine).
struct RunnableTarget {
  llvm::TargetMachine *machine = nullptr;
  CpuTargetInfo info;
  /// The host's machine, when the target's code cannot run here.
  std::unique_ptr<llvm::TargetMachine> host;
  /// The target's ISA features this host lacks, comma-separated (empty
  /// when the builds are the target's own).
  std::string lacking;
};

/// Picks the machine (and its description) for those builds.
FailureOr<RunnableTarget> selectRunnableTarget(llvm::TargetMachine &target,
                                               const CpuTargetInfo &info,
                                               unsigned optLevel,
                                               std::string &error);

/// Compiles a copy of `module` (as imported; its own context, so its
/// diagnostics and remarks stay out of the main build's) with `options`:
/// the graph phase, then `inspectGraph` on the result (it may fail), then
/// code generation into a temporary shared object. On failure `code` and
/// `message` say why.
FailureOr<TemporaryArtifact> buildTemporaryArtifact(
    ModuleOp module, const DialectRegistry &registry,
    llvm::StringRef diagnosticsFile, const PipelineOptions &options,
    llvm::TargetMachine &machine, unsigned optLevel, const ArtifactInfo &info,
    llvm::function_ref<LogicalResult(ModuleOp)> inspectGraph,
    ::tessel::ErrorCode &code, std::string &message);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_TEMPORARYBUILD_H
