//===- Report.h - tessel-compile --report ------------------------*- C++ -*-===//

#ifndef TESSEL_LIB_DRIVER_REPORT_H
#define TESSEL_LIB_DRIVER_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/StringRef.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::tessel {

/// What `--report=FILE.json` records. Sections are only ever added
/// (`schema_version` counts additions), never renamed.
struct CompileReport {
  static constexpr int kSchemaVersion = 1;
  std::string input, output, compilerVersion, gitRevision, llvmVersion, flags;
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
  /// vectorizers (each of their rewrites is one, reported by a `kernel`
  /// remark), or after the linalg phase when compilation stops there; empty
  /// when it stopped earlier.
  std::vector<Kernel> kernels;
  /// The `kernel` remarks so far, by function (names sort the functions:
  /// function passes report from several threads).
  std::map<std::string, std::vector<Kernel>> formedKernels;
  uint64_t workspaceBytes = 0, weightsBytes = 0;
  /// The weights file beside the artifact (--weights-file-threshold); empty:
  /// none.
  std::string weightsFile;
  uint64_t weightsFileBytes = 0;
  /// Conv channels tessel-drop-zero-channels removed (structured sparsity).
  int64_t droppedChannels = 0;
  /// NCHW<->NHWC transposes tessel-assign-layouts left, at the graph's
  /// edges and inside it (when the pass ran).
  bool layoutsAssigned = false;
  int64_t layoutConversionsAtEdges = 0, layoutConversionsInside = 0;
  bool memoryRecorded = false;
  /// Products of dequantized values: those tessel-integer-products runs on
  /// integers (with the operands' element types), those left in f32 (with
  /// the reason), each named by its ONNX nodes.
  struct QuantizedProduct {
    std::vector<std::string> nodes, opTypes;
    std::string detail;
  };
  std::vector<QuantizedProduct> integerProducts, floatQuantizedProducts;
  /// --precision: the products moved to bf16 (detail: the precision) and
  /// those left in f32 (detail: the reason).
  std::vector<QuantizedProduct> lowPrecisionProducts, fullPrecisionProducts;
  /// tessel-sample-loops' loops over a batch's samples: the ONNX nodes each
  /// runs one sample at a time, and the batch.
  struct SampleLoop {
    std::vector<std::string> nodes, opTypes;
    int64_t samples = 0;
  };
  std::vector<SampleLoop> sampleLoops;
  /// A dynamic batch (--dim-range): its name, range and the batch sizes
  /// built (each build's phases are listed in turn); empty name: none.
  std::string batchName;
  int64_t batchMin = 0, batchMax = 0;
  std::vector<int64_t> batchSizes;
  /// A padded dimension (--dim-range on another dimension): its name,
  /// range, the lengths built, and where inputs and outputs hold it (-1:
  /// not at all); empty name: none.
  std::string paddedName;
  int64_t paddedMin = 0, paddedMax = 0;
  std::vector<int64_t> paddedLengths;
  std::vector<int64_t> paddedInputDims, paddedOutputDims;
  /// Post-training quantization (--quantize): the calibration method, the
  /// number of samples, and each calibrated activation's range and uint8
  /// parameters (in tessel-quantize-products' order); empty without it.
  struct CalibratedActivation {
    double low, high, scale;
    int64_t zeroPoint;
  };
  std::string calibrationMethod;
  int64_t calibrationSamples = 0;
  std::vector<CalibratedActivation> calibratedActivations;
  /// --accuracy-budget: the search's choice and figures (null without).
  llvm::json::Value accuracyBudget = nullptr;

  /// The kernels: one per `kernel` remark so far and one per structured
  /// (linalg) op left in `module`, named by their ONNX nodes.
  void recordKernels(ModuleOp module);
  /// Takes in one of Tessel's remarks (tessel/Support/Remarks.h).
  void recordRemark(const remark::detail::Remark &remark);
  LogicalResult write(llvm::StringRef path, std::string &error) const;

private:
  std::mutex remarksMutex;
};

/// Installs on `context` a remark engine that records Tessel's remarks in
/// `report`.
LogicalResult recordRemarksIn(MLIRContext &context, CompileReport &report);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_REPORT_H
