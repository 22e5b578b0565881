//===- Pipelines.h - Tessel's compilation phases ----------------*- C++ -*-===//
//
// A model goes through fixed phases; each phase boundary is a place a user
// can stop (`tessel-compile --compile-to=<phase>`) and look at the IR.
//
//   import  - the tessel dialect as the ONNX importer built it
//   graph   - after graph-level cleanup (canonicalize, CSE)
//   linalg  - linalg/tensor/arith/math on tensors
//   llvm    - the LLVM dialect, ready for translation to LLVM IR
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>

#include <optional>

namespace mlir::tessel {

enum class Phase { Import, Graph, Linalg, LLVM };

/// Parses "import", "graph", "linalg" or "llvm".
std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef getPhaseName(Phase phase);

/// Options shared by the pipelines.
struct PipelineOptions {
  /// Optimisation level, 0..3. At 0, contractions stay scalar loops.
  unsigned optLevel = 2;
  /// f32 elements per vector register of the target: 16 with AVX-512, 8
  /// with AVX/AVX2, 4 otherwise. Sizes the register tiles.
  int64_t vectorWidth = 8;
  /// Optimisations switched off by name (tessel-compile --disable=NAME), for
  /// A/B comparisons; see getOptimizationNames().
  llvm::SmallVector<std::string> disabled;
  /// The activations' layout for 2-D convolutions and pooling: "nchw" (the
  /// model's) or "nhwc" (tessel-assign-layouts).
  std::string layout = "nchw";

  bool enabled(llvm::StringRef name) const {
    return llvm::find(disabled, name) == disabled.end();
  }
};

/// The optimisations --disable can name, each with a one-line description.
llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>>
getOptimizationNames();

/// import -> graph: graph-level simplification on the tessel dialect.
void buildGraphPipeline(OpPassManager &pm, const PipelineOptions &options);
/// graph -> linalg: tessel ops to structured ops on tensors.
void buildLinalgPipeline(OpPassManager &pm, const PipelineOptions &options);
/// linalg -> llvm: entry ABI, bufferization, loops, and the LLVM dialect.
void buildLLVMPipeline(OpPassManager &pm, const PipelineOptions &options);

/// Adds the phases after `from` up to and including `to`.
void buildPipeline(OpPassManager &pm, Phase from, Phase to,
                   const PipelineOptions &options);

/// Registers `tessel-graph-pipeline`, `tessel-linalg-pipeline`,
/// `tessel-llvm-pipeline` and `tessel-cpu-pipeline` (all three) for
/// tessel-opt.
void registerTesselPipelines();

} // namespace mlir::tessel

#endif // TESSEL_PIPELINES_PIPELINES_H
