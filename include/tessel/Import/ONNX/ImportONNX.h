//===- ImportONNX.h - ONNX models to the tessel dialect ---------*- C++ -*-===//
//
// The importer's public face. Protobuf stays behind it: callers see options,
// a module, and a structured error that names every offending node.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_IMPORT_ONNX_IMPORTONNX_H
#define TESSEL_IMPORT_ONNX_IMPORTONNX_H

#include "tessel/Support/ErrorCodes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::tessel {

struct ImportOptions {
  /// Static shapes for graph inputs, by name; they replace the model's
  /// declared shape (which may have dynamic dimensions).
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// Values fixed at compile time for graph inputs, by name: the path of a
  /// TensorProto `.pb` file, or comma-separated numbers in row-major order.
  /// The model computes with them as constants (so inputs that decide shapes,
  /// like Reshape's, can be compiled); the input stays in the signature and
  /// the artifact refuses any other value at run time.
  llvm::StringMap<std::string> inputValues;
  /// --preprocess SPEC (docs/compiler.md, "Preprocessing"): the image
  /// preprocessing prepended to the graph; empty: none.
  std::string preprocess;
  /// A dynamic batch (tessel-compile --dim-range), compiled one batch size
  /// at a time: dimension 0 of every input is the batch, declared by the
  /// model as the symbol `batchName` (an ONNX dim_param) or given as `?` by
  /// --input-shape (ShapedType::kDynamic in `inputShapes`); it takes
  /// `batchSize` in this build. 0: no dynamic batch.
  std::string batchName;
  int64_t batchSize = 0;
  /// A padded dimension (tessel-compile --dim-range on a dimension other
  /// than the batch, a sequence): the model's symbol `paddedName` (an ONNX
  /// dim_param, in any dimension but the batch's, at most one per input)
  /// takes `paddedSize` in this build, and each input that holds it is
  /// marked `tessel.padded_dim` (tessel-mask-padded-positions). 0: none.
  std::string paddedName;
  int64_t paddedSize = 0;
  /// Name for the model when the graph has none.
  std::string defaultModelName = "model";
  /// The file the model was read from (importOnnxFile sets it): initializers
  /// stored as ONNX external data are read from its directory. Empty: such
  /// tensors are refused.
  std::string modelPath;
};

/// One problem at one node (or graph input/output).
struct ImportIssue {
  std::string node;   ///< node name, or `<OpType>#<index>` when unnamed
  std::string opType; ///< ONNX op type; "input"/"output" for graph values
  std::string reason;
  ::tessel::ErrorCode code = ::tessel::ErrorCode::InvalidNode;
};

/// Why an import failed: a coded headline and every offending node.
struct ImportError {
  ::tessel::ErrorCode code = ::tessel::ErrorCode::Internal;
  std::string message;
  std::vector<ImportIssue> issues;
};

/// Reads `path` and builds a module holding one `func.func` of tessel ops,
/// marked `tessel.entry`. On failure returns null and fills `error`.
OwningOpRef<ModuleOp> importOnnxFile(llvm::StringRef path, MLIRContext *ctx,
                                     const ImportOptions &options,
                                     ImportError &error);

/// The same from bytes already in memory.
OwningOpRef<ModuleOp> importOnnxBytes(llvm::StringRef bytes, MLIRContext *ctx,
                                      const ImportOptions &options,
                                      ImportError &error);

/// The symbols (ONNX dim_params) of the graph inputs of the model in
/// `path` (those without an initializer), per input: one per dimension,
/// empty where the dimension has none. Empty when the file does not parse
/// (the import says why).
std::vector<std::vector<std::string>> readInputSymbols(llvm::StringRef path);

/// The highest default-domain opset the importer knows.
int64_t getMaxSupportedOpset();

} // namespace mlir::tessel

#endif // TESSEL_IMPORT_ONNX_IMPORTONNX_H
