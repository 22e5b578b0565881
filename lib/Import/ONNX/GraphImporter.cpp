//===- GraphImporter.cpp - An ONNX graph to a tessel function -------------===//
//
// Import runs in three steps: read and check the model as a whole (opsets,
// every node's op, names and order, libonnx's checker), then build one
// `func.func` of tessel ops node by node. Every problem found is collected,
// so one run reports all unsupported nodes, not the first.
//
// This file holds the top level (the importer registry, `build`, `run` and
// the public entry points); GraphImporter.h lists where the rest lives.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "ModelChecker.h"
#include "Preprocess.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Import/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

static constexpr int64_t kMaxOpset = kNewestOpset;

int64_t mlir::tessel::getMaxSupportedOpset() { return kMaxOpset; }

const ImporterRegistry &ImporterRegistry::get() {
  static const ImporterRegistry registry = [] {
    ImporterRegistry r;
    registerElementwiseImporters(r);
    registerMathImporters(r);
    registerActivationImporters(r);
    registerLogicImporters(r);
    registerCastImporters(r);
    registerNNImporters(r);
    registerNormalizationImporters(r);
    registerReductionImporters(r);
    registerTensorImporters(r);
    registerIndexingImporters(r);
    registerLossImporters(r);
    registerResizeImporters(r);
    registerQuantizationImporters(r);
    registerRecurrentImporters(r);
    registerSignalImporters(r);
    registerSequenceImporters(r);
    return r;
  }();
  return registry;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

OwningOpRef<ModuleOp> GraphImporter::build() {
  OpBuilder builder(ctx);
  Location unknown = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
  std::string modelName =
      graph->name().empty() ? options.defaultModelName : graph->name();
  (*module)->setAttr(kModelNameAttrName, builder.getStringAttr(modelName));

  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph->initializer())
    initializers.insert(init.name());

  // Graph inputs: those without an initializer of the same name.
  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  llvm::StringSet<> inputNameSet;
  for (const onnx::ValueInfoProto &in : graph->input()) {
    if (initializers.contains(in.name()))
      continue;
    inputNameSet.insert(in.name());
    FailureOr<RankedTensorType> type = inputType(in);
    if (failed(type)) {
      poisoned.insert(in.name());
      continue;
    }
    inputTypes.push_back(*type);
    inputNames.push_back(in.name());
  }
  if (options.batchSize > 0 && error.issues.empty() &&
      batchInputs != inputNames.size())
    issue(options.batchName, "input",
          batchInputs == 0
              ? "--dim-range names '" + options.batchName +
                    "', the dimension 0 of no graph input"
              : "a dynamic batch ('" + options.batchName +
                    "') is dimension 0 of every input, but " +
                    std::to_string(inputNames.size() - batchInputs) +
                    " of the " + std::to_string(inputNames.size()) +
                    " inputs do not have it",
          ErrorCode::InputShape);
  if (options.paddedSize > 0 && error.issues.empty() && paddedDims.empty())
    issue(options.paddedName, "input",
          "--dim-range names '" + options.paddedName +
              "', a dimension of no graph input",
          ErrorCode::InputShape);
  for (const auto &entry : options.inputShapes)
    if (!inputNameSet.contains(entry.getKey())) {
      std::string known;
      for (const std::string &n : inputNames)
        known += (known.empty() ? "" : ", ") + n;
      issue(entry.getKey().str(), "input",
            "--input-shape names '" + entry.getKey().str() +
                "', which is not a graph input (inputs: " + known + ")",
            ErrorCode::InputShape);
    }

  auto func = func::FuncOp::create(builder, unknown, "main",
                                   builder.getFunctionType(inputTypes, {}));
  module->push_back(func);
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  entryBlock = body;
  entryInputNames.assign(inputNames.begin(), inputNames.end());
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name] = body->getArgument(i);
    func.setArgAttr(i, kNameAttrName, builder.getStringAttr(name));
    if (auto padded = paddedDims.find(name); padded != paddedDims.end())
      func.setArgAttr(i, "tessel.padded_dim",
                      builder.getI64IntegerAttr(padded->second));
    auto fixed = options.inputValues.find(name);
    if (fixed == options.inputValues.end())
      continue;
    FailureOr<DenseElementsAttr> value = readFixedValue(
        name, fixed->second, cast<RankedTensorType>(inputTypes[i]));
    if (failed(value)) {
      poisoned.insert(name);
      continue;
    }
    // The graph computes with the constant; the argument stays, unused, and
    // the runtime checks that callers pass this value.
    func.setArgAttr(i, kFixedValueAttrName, *value);
    values[name] = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(name)), *value);
  }
  for (const auto &entry : options.inputValues)
    if (!inputNameSet.contains(entry.getKey()))
      issue(entry.getKey().str(), "input",
            "--input-value names '" + entry.getKey().str() +
                "', which is not a graph input",
            ErrorCode::NonConstantInput);

  for (const onnx::TensorProto &init : graph->initializer()) {
    std::string message;
    FailureOr<ElementsAttr> value =
        convertTensor(ctx, init, message, externalDataDir());
    if (failed(value)) {
      issue(init.name(), "initializer", message,
            init.data_location() == onnx::TensorProto::EXTERNAL
                ? ErrorCode::FileUnreadable
                : ErrorCode::UnsupportedType);
      poisoned.insert(init.name());
      continue;
    }
    values[init.name()] = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(init.name())), *value);
  }

  for (int i = 0; i < graph->node_size(); ++i)
    importNode(builder, i);

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &out : graph->output()) {
    if (poisoned.contains(out.name()))
      continue;
    bool declaredNonTensor =
        !out.type().has_tensor_type() &&
        out.type().value_case() != onnx::TypeProto::VALUE_NOT_SET;
    if (sequences.count(out.name()) || declaredNonTensor) {
      issue(out.name(), "output",
            "graph output '" + out.name() + "' is " +
                (sequences.count(out.name()) ? std::string("a sequence")
                                             : describeNonTensor(out.type())) +
                "; Tessel compiles tensor inputs and outputs only",
            ErrorCode::UnsupportedType);
      continue;
    }
    Value v = values.lookup(out.name());
    auto type = cast<RankedTensorType>(v.getType());
    if (out.type().has_tensor_type()) {
      const onnx::TypeProto::Tensor &declared = out.type().tensor_type();
      Type element = convertElementType(ctx, declared.elem_type());
      if (declared.elem_type() != 0 && element != type.getElementType())
        issue(out.name(), "output",
              "output '" + out.name() + "' is declared as " +
                  elementTypeName(declared.elem_type()) +
                  " but computed with a different element type",
              ErrorCode::MalformedGraph);
      if (declared.has_shape() && declared.shape().dim_size() == type.getRank())
        for (int d = 0; d < type.getRank(); ++d)
          if (declared.shape().dim(d).has_dim_value() &&
              declared.shape().dim(d).dim_value() != type.getDimSize(d) &&
              options.inputShapes.empty()) {
            issue(out.name(), "output",
                  "output '" + out.name() + "' is declared with shape " +
                      "different from the computed " +
                      formatShape(type.getShape()),
                  ErrorCode::MalformedGraph);
            break;
          }
    }
    results.push_back(v);
    resultTypes.push_back(type);
  }
  if (!error.issues.empty())
    return fail(summarizeIssues());

  func::ReturnOp::create(builder, unknown, results);
  func.setFunctionType(builder.getFunctionType(inputTypes, resultTypes));
  for (auto [i, out] : llvm::enumerate(graph->output()))
    func.setResultAttr(i, kNameAttrName, builder.getStringAttr(out.name()));
  func->setAttr(kEntryAttrName, builder.getUnitAttr());
  return module;
}

OwningOpRef<ModuleOp> GraphImporter::run(const onnx::ModelProto &model) {
  if (!model.has_graph() || model.opset_import_size() == 0)
    return fail(ErrorCode::NotOnnx,
                "not an ONNX model: it has no graph or no opset_import");
  graph = &model.graph();
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (isDefaultDomain(id.domain()))
      opset = id.version();
  if (opset <= 0)
    return fail(ErrorCode::UnsupportedOpset,
                "the model imports no default-domain ONNX opset");
  if (opset > kMaxOpset)
    return fail(ErrorCode::UnsupportedOpset,
                "the model uses opset " + Twine(opset) +
                    ", newer than Tessel supports (" + Twine(kMaxOpset) +
                    "); re-export it for opset " + Twine(kMaxOpset) +
                    " or older");
  if (graph->output_size() == 0)
    return fail(ErrorCode::MalformedGraph, "the model's graph has no outputs");
  if (!checkNames())
    return nullptr;
  // Unsupported operators are reported together with every other problem
  // the rest of the import finds (input shapes, types, invalid nodes).
  bool operatorsKnown = checkOperators();
  if (operatorsKnown && model.ir_version() <= kCheckerMaxIrVersion &&
      opset <= kCheckerMaxOpset)
    if (std::optional<std::string> complaint =
            runOnnxChecker(model, options.modelPath))
      return fail(ErrorCode::MalformedGraph,
                  "the model is not valid ONNX: " + *complaint);
  return build();
}

std::string GraphImporter::externalDataDir() const {
  if (options.modelPath.empty())
    return {};
  llvm::SmallString<256> dir(options.modelPath);
  llvm::sys::path::remove_filename(dir);
  return dir.empty() ? "." : dir.str().str();
}

OwningOpRef<ModuleOp>
mlir::tessel::importOnnxBytes(llvm::StringRef bytes, MLIRContext *ctx,
                              const ImportOptions &options,
                              ImportError &error) {
  ctx->loadDialect<TesselDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    error.code = ErrorCode::NotOnnx;
    error.message = "not a valid ONNX model (the protobuf does not parse; "
                    "the file may be truncated or not ONNX)";
    return nullptr;
  }
  if (options.preprocess.empty())
    return GraphImporter(ctx, options, error).run(model);
  // The preprocessing's nodes join the graph before the import, which then
  // checks and imports them as the model's own.
  std::string why;
  ImportOptions withPreprocessing = options;
  std::optional<onnx_import::PreprocessSpec> spec =
      onnx_import::parsePreprocessSpec(options.preprocess, why);
  if (!spec || !model.has_graph() ||
      !onnx_import::prependPreprocessing(model, *spec,
                                         withPreprocessing.inputShapes, why)) {
    error.code = ErrorCode::Preprocess;
    error.message = "--preprocess='" + options.preprocess + "': " +
                    (why.empty() ? std::string("the model has no graph") : why);
    return nullptr;
  }
  return GraphImporter(ctx, withPreprocessing, error).run(model);
}

OwningOpRef<ModuleOp> mlir::tessel::importOnnxFile(llvm::StringRef path,
                                                   MLIRContext *ctx,
                                                   const ImportOptions &options,
                                                   ImportError &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error.code = ErrorCode::FileUnreadable;
    error.message = "cannot read the file: " + buffer.getError().message();
    return nullptr;
  }
  ImportOptions withPath = options;
  withPath.modelPath = path.str();
  return importOnnxBytes((*buffer)->getBuffer(), ctx, withPath, error);
}
