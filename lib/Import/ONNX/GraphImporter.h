//===- GraphImporter.h - Importing an ONNX graph ----------------*- C++ -*-===//
//
// Internal to the importer. `GraphImporter` turns one ONNX graph into a
// tessel function; its members are split by concern over several files:
// GraphImporter.cpp (the top level: build, run and the public entry points),
// GraphChecks.cpp (issue collection and the model-wide checks),
// GraphInputs.cpp (graph inputs: types, --input-value, hints),
// NodeDispatch.cpp (one node to its importer), ControlFlowImporter.cpp (If
// and its branches) and LoopImporters.cpp (Loop and Scan, unrolled).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
#define TESSEL_LIB_IMPORT_ONNX_GRAPHIMPORTER_H

#include "NodeImporter.h"

#include "tessel/Import/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::tessel::onnx_import {

/// Whether `domain` names the default ONNX operator set.
inline bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// "a sequence", "an optional"...: what a graph input or output is instead
/// of a tensor.
inline std::string describeNonTensor(const onnx::TypeProto &type) {
  if (type.has_sequence_type())
    return "a sequence";
  if (type.has_optional_type())
    return "an optional";
  if (type.has_map_type())
    return "a map";
  if (type.has_sparse_tensor_type())
    return "a sparse tensor";
  return "not a tensor";
}

/// Imports one ONNX model's graph into a module holding one `func.func` of
/// tessel ops. Every problem found is recorded in the `ImportError` given to
/// the constructor, so one run reports all of them.
class GraphImporter {
public:
  GraphImporter(MLIRContext *ctx, const ImportOptions &options,
                ImportError &error)
      : ctx(ctx), options(options), error(error) {}

  OwningOpRef<ModuleOp> run(const onnx::ModelProto &model);

private:
  /// The node's name, or `<OpType>#<index>` when it has none.
  std::string nodeName(int index) const {
    const onnx::NodeProto &node = graph->node(index);
    return node.name().empty() ? node.op_type() + "#" + std::to_string(index)
                               : node.name();
  }
  /// Records a problem; the first one recorded gives the headline its code.
  void issue(std::string node, std::string opType, std::string reason,
             ::tessel::ErrorCode code = ::tessel::ErrorCode::InvalidNode) {
    if (error.issues.empty())
      error.code = code;
    error.issues.push_back(
        {std::move(node), std::move(opType), std::move(reason), code});
  }
  OwningOpRef<ModuleOp> fail(::tessel::ErrorCode code, const Twine &message) {
    if (error.issues.empty())
      error.code = code;
    error.message = message.str();
    return nullptr;
  }
  OwningOpRef<ModuleOp> fail(const Twine &message) {
    error.message = message.str();
    return nullptr;
  }

  /// The value `spec` (a .pb path or comma-separated numbers) of
  /// --input-value for the graph input `name` of `type`, or failure (the
  /// problem is recorded).
  FailureOr<DenseElementsAttr> readFixedValue(StringRef name, StringRef spec,
                                              RankedTensorType type);
  /// The names of the graph inputs that `roots` are computed from.
  SmallVector<std::string> graphInputsFeeding(ArrayRef<Value> roots) const;
  /// For an E0014 reason about `roots`: "; it is computed from graph input
  /// 'x': ... --input-value x=...", or "" when no graph input feeds them.
  std::string inputValueHint(ArrayRef<Value> roots) const;
  bool checkOperators();
  /// The headline for the collected issues.
  std::string summarizeIssues() const;
  bool checkNames();
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info);
  OwningOpRef<ModuleOp> build();
  void importNode(OpBuilder &builder, int index);
  void importNode(OpBuilder &builder, const onnx::NodeProto &node,
                  const std::string &name);
  /// If: the taken branch of a constant condition, or both branches selected
  /// between elementwise (see the definition).
  void importIf(OpBuilder &builder, const onnx::NodeProto &node,
                const std::string &name);
  /// Imports a branch of If node `name`: its initializers and nodes in the
  /// enclosing scope; returns its outputs, or fails (the problems are
  /// recorded). With `sequencesAllowed`, an output that is a sequence is a
  /// null value (the sequence is under the output's name in `sequences`).
  FailureOr<SmallVector<Value>> importBranch(OpBuilder &builder,
                                             const onnx::GraphProto &branch,
                                             const std::string &name,
                                             bool sequencesAllowed,
                                             StringRef opType = "If");
  /// Loop with a constant trip count and conditions, unrolled (see the
  /// definition).
  void importLoop(OpBuilder &builder, const onnx::NodeProto &node,
                  const std::string &name);
  /// Scan (opset 9+), unrolled over its static sequence length.
  void importScan(OpBuilder &builder, const onnx::NodeProto &node,
                  const std::string &name);
  /// Stacks `parts` (one per iteration, equal types) along a new `axis`.
  FailureOr<Value> stack(OpBuilder &builder, Location loc,
                         ArrayRef<Value> parts, int64_t axis);
  /// Where external data is read from: the model file's directory ("." for
  /// a file name alone); empty when the model was not read from a file.
  std::string externalDataDir() const;

  MLIRContext *ctx;
  const ImportOptions &options;
  ImportError &error;
  const onnx::GraphProto *graph = nullptr;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  /// The entry block and its arguments' graph input names.
  Block *entryBlock = nullptr;
  SmallVector<std::string> entryInputNames;
  /// Sequence values by name (see `Sequence`); a name is in `values` or here.
  llvm::StringMap<Sequence> sequences;
  llvm::StringSet<> poisoned;
  /// The graph inputs whose dimension 0 took options.batchSize.
  unsigned batchInputs = 0;
  /// Per graph input's name: the dimension that took options.paddedSize.
  llvm::StringMap<int64_t> paddedDims;
  /// Indices of nodes whose operator cannot be imported.
  llvm::DenseSet<int> unsupported;
};

} // namespace mlir::tessel::onnx_import

#endif // TESSEL_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
