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

/// The weights file beside the artifact (abi.h, ABI 1.3), when there is one.
struct WeightsFileInfo {
  std::string name; ///< relative to the artifact's directory; empty: none
  uint64_t size = 0;
  uint64_t checksum = 0; ///< tessel_weights_checksum (tessel/seal.h)
};

/// Strings recorded in the descriptor.
struct ArtifactInfo {
  std::string compilerVersion;
  std::string compileFlags;
  WeightsFileInfo weightsFile;
};

/// The builds of a model with a dynamic batch (abi.h, ABI 1.4), a padded
/// dimension (ABI 1.5), or both. A dynamic batch is dimension 0 of every
/// input and output, `name`, in [min, max] (max 0: static). A padded
/// dimension is `padded.name`, in [padded.min, padded.max] (max 0: none),
/// held by input i in its dimension `padded.inputDims[i]` (-1: not held),
/// by output i in `padded.outputDims[i]`. The module given to
/// translateToArtifactModule is the first build: batch 1 (with a dynamic
/// batch) at the shortest length, `padded.length`; `variants` are the
/// others, each with its batch (1 when the batch is static) and length
/// (0 without a padded dimension), in the LLVM dialect.
struct DynamicBatch {
  std::string name;
  int64_t min = 0, max = 0;
  struct Padded {
    std::string name;
    int64_t min = 0, max = 0;
    std::vector<int32_t> inputDims, outputDims;
    int64_t length = 0;
  } padded;
  struct Build {
    int64_t batch = 1;
    int64_t length = 0;
    ModuleOp module;
  };
  std::vector<Build> variants;
};

/// Constants moved out of a module in the LLVM dialect into a weights file:
/// each one's data and where it starts in the file.
struct ExternalWeights {
  struct Tensor {
    uint64_t offset = 0;
    DenseElementsAttr data;
  };
  std::vector<Tensor> tensors;
  uint64_t size = 0; ///< the file's size
};

/// Constants smaller than this stay in the artifact when the others move to
/// a weights file: a bias or a scale is not worth a pointer load.
inline constexpr uint64_t kMinExternalTensorBytes = 64 * 1024;

/// The name of the global that holds the weights file's address at run time
/// (the runtime stores it through the descriptor's `weights_base`).
inline constexpr llvm::StringLiteral kWeightsBaseName = "tessel_weights_base";

/// Moves every constant global of at least `minBytes` (dense, not a splat,
/// of a byte-sized element type) out of `module`, which is in the LLVM
/// dialect: its uses read `kWeightsBaseName` (filled by the runtime)
/// plus the constant's offset in the weights file. Records the moved data,
/// in file order, in `out`; does nothing when their total is below
/// `minTotalBytes`.
void externalizeWeights(ModuleOp module, uint64_t minBytes,
                        uint64_t minTotalBytes, ExternalWeights &out);

/// Writes `weights` to `path` (each tensor at its offset, zeros between),
/// streamed through one 1 MiB buffer, and returns the file's size and
/// checksum.
LogicalResult writeWeightsFile(const ExternalWeights &weights,
                               llvm::StringRef path, WeightsFileInfo &info,
                               std::string &error);

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
/// constant data (the weights) inside. With `batch`, the builds of its
/// other batch sizes are linked in, each with its entry in the
/// descriptor's `batch_entries` (the weights they share stored once).
std::unique_ptr<llvm::Module> translateToArtifactModule(
    ModuleOp module, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine, const ArtifactInfo &info,
    uint64_t *weightsBytes = nullptr, const DynamicBatch *batch = nullptr);

/// Runs LLVM's optimisation pipeline for the machine's level.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    unsigned optLevel);

/// Writes an object file.
LogicalResult emitObjectFile(llvm::Module &module,
                             llvm::TargetMachine &machine,
                             llvm::StringRef path, std::string &error);

/// How many parts `emitObjectFiles` splits a module into: one per 48
/// defined functions, 1 to 4. It depends on the module only, so an
/// artifact is the same whatever machine compiles it.
unsigned codegenParts(const llvm::Module &module);

/// Writes `module` as `paths.size()` object files: its functions dealt to
/// that many parts in turn, its data in the first (local symbols become
/// hidden ones), each part optimised at `optLevel` (optimizeModule; none
/// when std::nullopt: the module arrives optimised) and compiled on a
/// thread of its own. One path: the whole module, optimised and emitted
/// here.
LogicalResult emitObjectFiles(std::unique_ptr<llvm::Module> module,
                              llvm::TargetMachine &machine,
                              llvm::ArrayRef<std::string> paths,
                              std::optional<unsigned> optLevel,
                              std::string &error);

/// Links objects into a shared library depending only on libc and libm,
/// then seals it (sealArtifact).
LogicalResult linkSharedObject(llvm::ArrayRef<std::string> objectPaths,
                               llvm::StringRef outputPath, std::string &error);

/// Appends to the shared object at `path` the seal the runtime checks before
/// loading it: its size and XXH64 checksum (tessel/seal.h).
LogicalResult sealArtifact(llvm::StringRef path, std::string &error);

} // namespace mlir::tessel

#endif // TESSEL_TARGET_LLVM_ARTIFACT_H
