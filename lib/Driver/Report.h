//===- Report.h - tessel-compile --report ------------------------*- C++ -*-===//

#ifndef TESSEL_LIB_DRIVER_REPORT_H
#define TESSEL_LIB_DRIVER_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::tessel {

/// What `--report=FILE.json` records. Sections are only ever added
/// (`schema_version` counts additions), never renamed.
struct CompileReport {
  static constexpr int kSchemaVersion = 1;
  std::string input, output, compilerVersion, llvmVersion, flags;
  std::string triple, cpu, features;
  struct PhaseTime {
    std::string name;
    double seconds;
  };
  std::vector<PhaseTime> phases;
  struct Kernel {
    std::string op;
    std::vector<std::string> nodes, opTypes;
  };
  /// One per loop nest that code generation emits: recorded after the CPU
  /// vectorizers (each of their rewrites is one, listed on its function),
  /// or after the linalg phase when compilation stops there; empty when it
  /// stopped earlier.
  std::vector<Kernel> kernels;
  uint64_t workspaceBytes = 0, weightsBytes = 0;
  /// Conv channels tessel-drop-zero-channels removed (structured sparsity).
  int64_t droppedChannels = 0;
  /// NCHW<->NHWC transposes tessel-assign-layouts left, at the graph's
  /// edges and inside it (when the pass ran).
  bool layoutsAssigned = false;
  int64_t layoutConversionsAtEdges = 0, layoutConversionsInside = 0;
  bool memoryRecorded = false;

  /// One kernel per entry of each function's `tessel.kernels` and per
  /// structured (linalg) op, named by its ONNX nodes.
  void recordKernels(ModuleOp module);
  LogicalResult write(llvm::StringRef path, std::string &error) const;
};

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_REPORT_H
