//===- Artifact.h - From the LLVM dialect to a model artifact ---*- C++ -*-===//
//
// The last steps of CPU compilation: translate the LLVM dialect to LLVM IR,
// add the artifact's descriptor and entry point (runtime/include/tessel/abi.h),
// optimise for the target CPU, emit an object file, and link it into one
// shared object with the system's C compiler driver.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_LLVM_ARTIFACT_H
#define TESSEL_TARGET_LLVM_ARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tessel {

/// What code is generated for.
struct CpuTarget {
  std::string triple;   ///< empty: the host's
  std::string cpu;      ///< "host" or an LLVM CPU name
  std::string features; ///< extra LLVM features, "+avx2,-avx512f"
  unsigned optLevel = 2;
};

/// One entry tensor of the model, as the descriptor records it.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; ///< a tessel_dtype
  std::vector<int64_t> shape;
  /// For an input fixed at compile time (--input-value): its value, dense,
  /// row-major, little-endian, in the dtype's layout (bool: one byte).
  std::optional<std::vector<uint8_t>> fixedValue;
};

/// The model's interface, read from the module's `tessel.signature`.
struct ModelSignature {
  std::string name;
  std::vector<TensorSignature> inputs, outputs;
};

/// Strings recorded in the descriptor.
struct ArtifactInfo {
  std::string compilerVersion;
  std::string compileFlags;
};

/// The tessel_dtype code of an MLIR element type, or 0 if it has none.
int32_t getDTypeCode(Type elementType);

/// Reads `tessel.signature` from a module; emits an error if it is missing.
FailureOr<ModelSignature> readSignature(ModuleOp module);

/// Creates the target machine, resolving "host" to this CPU's name and
/// features.
FailureOr<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CpuTarget &target, std::string &error);

/// Every feature the generated code may use, the CPU's implied ones
/// included, as "+f1,+f2,...": what the descriptor records, so the runtime can
/// refuse a host that lacks one.
std::string getEnabledTargetFeatures(const llvm::TargetMachine &machine);

/// Translates an LLVM-dialect module (with `tessel.signature`) to LLVM IR and
/// adds the descriptor and `tessel_model_v1`. Returns null after emitting an
/// error on `module`. `weightsBytes`, if given, receives the size of the
/// constant data (the weights) inside.
std::unique_ptr<llvm::Module>
translateToArtifactModule(ModuleOp module, llvm::LLVMContext &llvmContext,
                          llvm::TargetMachine &machine,
                          const ArtifactInfo &info,
                          uint64_t *weightsBytes = nullptr);

/// Runs LLVM's optimisation pipeline for the machine's level.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    unsigned optLevel);

/// Writes an object file.
LogicalResult emitObjectFile(llvm::Module &module,
                             llvm::TargetMachine &machine,
                             llvm::StringRef path, std::string &error);

/// Links one object into a shared library depending only on libc and libm,
/// then seals it (sealArtifact).
LogicalResult linkSharedObject(llvm::StringRef objectPath,
                               llvm::StringRef outputPath, std::string &error);

/// Appends to the shared object at `path` the seal the runtime checks before
/// loading it: its size and XXH64 checksum (tessel/seal.h).
LogicalResult sealArtifact(llvm::StringRef path, std::string &error);

} // namespace mlir::tessel

#endif // TESSEL_TARGET_LLVM_ARTIFACT_H
