//===- GraphImporter.cpp - An ONNX graph to a tessel function -------------===//
//
// Import runs in three steps: read and check the model as a whole (opsets,
// every node's op, names and order, libonnx's checker), then build one
// `func.func` of tessel ops node by node. Every problem found is collected,
// so one run reports all unsupported nodes, not the first.
//
//===----------------------------------------------------------------------===//

#include "ModelChecker.h"
#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Import/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

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
    return r;
  }();
  return registry;
}

namespace {

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

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
             ErrorCode code = ErrorCode::InvalidNode) {
    if (error.issues.empty())
      error.code = code;
    error.issues.push_back(
        {std::move(node), std::move(opType), std::move(reason), code});
  }
  OwningOpRef<ModuleOp> fail(ErrorCode code, const Twine &message) {
    if (error.issues.empty())
      error.code = code;
    error.message = message.str();
    return nullptr;
  }
  OwningOpRef<ModuleOp> fail(const Twine &message) {
    error.message = message.str();
    return nullptr;
  }

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
  /// Imports a branch's initializers and nodes in the enclosing scope and
  /// returns its outputs, or fails (the problems are recorded).
  FailureOr<SmallVector<Value>> importBranch(OpBuilder &builder,
                                             const onnx::GraphProto &branch);

  MLIRContext *ctx;
  const ImportOptions &options;
  ImportError &error;
  const onnx::GraphProto *graph = nullptr;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  llvm::StringSet<> poisoned;
  /// Indices of nodes whose operator cannot be imported.
  llvm::DenseSet<int> unsupported;
};

} // namespace

std::string GraphImporter::summarizeIssues() const {
  size_t ops = 0, inputs = 0, nodes = 0;
  for (const ImportIssue &i : error.issues) {
    if (i.code == ErrorCode::UnsupportedOperator)
      ++ops;
    else if (i.opType == "input")
      ++inputs;
    else
      ++nodes;
  }
  auto plural = [](size_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  if (ops == error.issues.size())
    return plural(ops, "node uses an operator", "nodes use operators") +
           " that Tessel does not support";
  if (inputs == error.issues.size())
    return "the model's inputs cannot be imported";
  if (nodes == error.issues.size())
    return plural(nodes, "node", "nodes") + " of the model cannot be imported";
  std::string parts;
  auto add = [&](size_t n, const char *one, const char *many) {
    if (n)
      parts += (parts.empty() ? "" : ", ") + plural(n, one, many);
  };
  add(ops, "unsupported operator", "unsupported operators");
  add(inputs, "input problem", "input problems");
  add(nodes, "node that cannot be imported", "nodes that cannot be imported");
  return "the model cannot be imported: " + parts;
}

bool GraphImporter::checkOperators() {
  const ImporterRegistry &registry = ImporterRegistry::get();
  for (int i = 0; i < graph->node_size(); ++i) {
    const onnx::NodeProto &node = graph->node(i);
    std::string reason;
    if (!isDefaultDomain(node.domain())) {
      reason = "operator '" + node.op_type() + "' of domain '" + node.domain() +
               "' is not supported";
    } else if (node.op_type() == "If") {
      // Imported by the graph importer itself (its branches are subgraphs).
    } else if (const OpImporter *op = registry.lookup(node.op_type())) {
      if (opset < op->minOpset || opset > op->maxOpset)
        reason = "operator '" + node.op_type() + "' is supported for opsets " +
                 std::to_string(op->minOpset) + " to " +
                 std::to_string(op->maxOpset) + ", not opset " +
                 std::to_string(opset);
    } else {
      reason = "operator '" + node.op_type() + "' (opset " +
               std::to_string(opset) + ") is not supported";
    }
    if (!reason.empty()) {
      issue(nodeName(i), node.op_type(), reason,
            ErrorCode::UnsupportedOperator);
      unsupported.insert(i);
    }
  }
  return unsupported.empty();
}

bool GraphImporter::checkNames() {
  llvm::StringSet<> defined;
  auto define = [&](const std::string &name, const std::string &node,
                    const std::string &opType) {
    if (name.empty())
      return;
    if (!defined.insert(name).second)
      issue(node, opType, "value '" + name + "' is defined more than once",
            ErrorCode::MalformedGraph);
  };
  for (const onnx::TensorProto &init : graph->initializer())
    define(init.name(), init.name(), "initializer");
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph->initializer())
    initializers.insert(init.name());
  for (const onnx::ValueInfoProto &in : graph->input())
    if (!initializers.contains(in.name()))
      define(in.name(), in.name(), "input");
  for (int i = 0; i < graph->node_size(); ++i) {
    const onnx::NodeProto &node = graph->node(i);
    for (const std::string &in : node.input())
      if (!in.empty() && !defined.contains(in))
        issue(nodeName(i), node.op_type(),
              "input '" + in +
                  "' is not defined before this node (missing "
                  "initializer, or nodes out of order)",
              ErrorCode::MalformedGraph);
    for (const std::string &out : node.output())
      define(out, nodeName(i), node.op_type());
  }
  // The artifact names its outputs: two of one name would be ambiguous.
  llvm::StringSet<> outputs;
  for (const onnx::ValueInfoProto &out : graph->output()) {
    if (!defined.contains(out.name()))
      issue(out.name(), "output",
            "graph output '" + out.name() + "' is not produced by any node",
            ErrorCode::MalformedGraph);
    else if (!outputs.insert(out.name()).second)
      issue(out.name(), "output",
            "graph output '" + out.name() + "' is listed more than once",
            ErrorCode::MalformedGraph);
  }
  if (error.issues.empty())
    return true;
  error.message = "the model's graph is malformed";
  return false;
}

FailureOr<RankedTensorType>
GraphImporter::inputType(const onnx::ValueInfoProto &info) {
  const std::string &name = info.name();
  if (!info.type().has_tensor_type()) {
    issue(name, "input", "input '" + name + "' is not a tensor",
          ErrorCode::UnsupportedType);
    return failure();
  }
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = convertElementType(ctx, tensor.elem_type());
  if (!element) {
    issue(name, "input",
          "input '" + name + "' has unsupported element type " +
              elementTypeName(tensor.elem_type()),
          ErrorCode::UnsupportedType);
    return failure();
  }
  SmallVector<int64_t> shape;
  auto given = options.inputShapes.find(name);
  if (given != options.inputShapes.end()) {
    shape = given->second;
    if (tensor.has_shape() &&
        tensor.shape().dim_size() != static_cast<int>(shape.size())) {
      issue(name, "input",
            "--input-shape gives " + std::to_string(shape.size()) +
                " dimensions for input '" + name + "', the model declares " +
                std::to_string(tensor.shape().dim_size()),
            ErrorCode::InputShape);
      return failure();
    }
  } else if (!tensor.has_shape()) {
    issue(name, "input",
          "input '" + name +
              "' has no declared shape; give one with "
              "--input-shape " +
              name + "=<d0>x<d1>...",
          ErrorCode::InputShape);
    return failure();
  } else {
    for (int d = 0; d < tensor.shape().dim_size(); ++d) {
      const onnx::TensorShapeProto::Dimension &dim = tensor.shape().dim(d);
      if (!dim.has_dim_value() || dim.dim_value() < 0) {
        std::string symbol =
            dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "";
        issue(name, "input",
              "input '" + name + "' has a dynamic dimension " +
                  std::to_string(d) + symbol +
                  "; give a static shape with --input-shape " + name +
                  "=<d0>x<d1>...",
              ErrorCode::InputShape);
        return failure();
      }
      shape.push_back(dim.dim_value());
    }
  }
  int64_t count = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(count, d, count) ||
        count > (int64_t(1) << 40)) {
      issue(name, "input",
            "input '" + name + "' has an invalid or too large shape",
            ErrorCode::InputShape);
      return failure();
    }
  return RankedTensorType::get(shape, element);
}

void GraphImporter::importNode(OpBuilder &builder, int index) {
  const onnx::NodeProto &node = graph->node(index);
  if (unsupported.contains(index)) {
    // Already reported.
    for (const std::string &out : node.output())
      poisoned.insert(out);
    return;
  }
  importNode(builder, node, nodeName(index));
}

void GraphImporter::importNode(OpBuilder &builder, const onnx::NodeProto &node,
                               const std::string &name) {
  auto poisonOutputs = [&] {
    for (const std::string &out : node.output())
      poisoned.insert(out);
  };
  SmallVector<Value> inputs;
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      inputs.push_back(Value());
      continue;
    }
    if (poisoned.contains(in))
      return poisonOutputs();
    inputs.push_back(values.lookup(in));
  }
  Location loc = FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, name))},
                               StringAttr::get(ctx, node.op_type()));
  NodeContext nodeCtx(builder, loc, node, inputs, opset);
  for (auto [i, v] : llvm::enumerate(inputs))
    if (v && !isa<RankedTensorType>(v.getType())) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " is not a ranked tensor");
      return poisonOutputs();
    }
  if (node.op_type() == "If" && isDefaultDomain(node.domain()))
    return importIf(builder, node, name);
  const OpImporter *importer = ImporterRegistry::get().lookup(node.op_type());
  if (!importer || !isDefaultDomain(node.domain()) ||
      opset < importer->minOpset || opset > importer->maxOpset) {
    // Only a branch's nodes get here: the graph's were checked up front.
    issue(name, node.op_type(),
          "operator '" + node.op_type() + "' (opset " + std::to_string(opset) +
              ") is not supported",
          ErrorCode::UnsupportedOperator);
    return poisonOutputs();
  }
  Arity arity = importer->inputs;
  if (inputs.size() < arity.min || inputs.size() > arity.max) {
    std::string expected =
        arity.max == kVariadic ? "at least " + std::to_string(arity.min)
        : arity.min == arity.max
            ? std::to_string(arity.min)
            : std::to_string(arity.min) + " to " + std::to_string(arity.max);
    issue(name, node.op_type(),
          "expects " + expected + " inputs, has " +
              std::to_string(inputs.size()));
    return poisonOutputs();
  }
  for (unsigned i = 0; i < arity.min; ++i)
    if (!inputs[i]) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " is required but empty");
      return poisonOutputs();
    }
  SmallVector<Value> results;
  if (failed(importer->fn(nodeCtx, results))) {
    issue(name, node.op_type(),
          nodeCtx.failure.empty() ? "cannot be imported" : nodeCtx.failure,
          nodeCtx.failureCode);
    return poisonOutputs();
  }
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &out = node.output(i);
    if (out.empty())
      continue;
    if (i >= static_cast<int>(results.size())) {
      issue(name, node.op_type(),
            "output " + std::to_string(i) + " ('" + out +
                "') is not supported");
      return poisonOutputs();
    }
    values[out] = results[i];
  }
}

FailureOr<SmallVector<Value>>
GraphImporter::importBranch(OpBuilder &builder,
                            const onnx::GraphProto &branch) {
  size_t issuesBefore = error.issues.size();
  for (const onnx::TensorProto &init : branch.initializer()) {
    std::string message;
    FailureOr<ElementsAttr> value = convertTensor(ctx, init, message);
    if (failed(value)) {
      issue(init.name(), "initializer", message, ErrorCode::UnsupportedType);
      return failure();
    }
    values[init.name()] = ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(init.name())), *value);
  }
  for (auto [i, node] : llvm::enumerate(branch.node())) {
    for (const std::string &in : node.input())
      if (!in.empty() && !values.count(in) && !poisoned.contains(in)) {
        issue(node.name().empty() ? node.op_type() + "#" + std::to_string(i)
                                  : node.name(),
              node.op_type(), "input '" + in + "' is not defined",
              ErrorCode::MalformedGraph);
        return failure();
      }
    importNode(builder, node,
               node.name().empty()
                   ? branch.name() + "/" + node.op_type() + "#" +
                         std::to_string(i)
                   : node.name());
  }
  if (error.issues.size() != issuesBefore)
    return failure();
  SmallVector<Value> outputs;
  for (const onnx::ValueInfoProto &out : branch.output()) {
    Value v = values.lookup(out.name());
    if (!v)
      return failure();
    outputs.push_back(v);
  }
  return outputs;
}

/// ONNX If. A constant condition imports only the taken branch. Otherwise
/// both branches are imported and each output selects between them with
/// tessel.where: both are computed, which is correct because tessel ops have
/// no side effects, and needs the two branches to produce the same static
/// types.
void GraphImporter::importIf(OpBuilder &builder, const onnx::NodeProto &node,
                             const std::string &name) {
  auto poisonOutputs = [&] {
    for (const std::string &out : node.output())
      poisoned.insert(out);
  };
  if (node.input_size() != 1 || poisoned.contains(node.input(0)))
    return poisonOutputs();
  Value cond = values.lookup(node.input(0));
  auto condType = dyn_cast<RankedTensorType>(cond.getType());
  const onnx::GraphProto *thenBranch = nullptr, *elseBranch = nullptr;
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (a.name() == "then_branch" && a.has_g())
      thenBranch = &a.g();
    if (a.name() == "else_branch" && a.has_g())
      elseBranch = &a.g();
  }
  if (!condType || !condType.getElementType().isInteger(1) ||
      condType.getNumElements() != 1 || !thenBranch || !elseBranch ||
      thenBranch->output_size() != node.output_size() ||
      elseBranch->output_size() != node.output_size()) {
    issue(name, "If",
          "expects a one-element bool condition and two branches with one "
          "output per output of the node");
    return poisonOutputs();
  }
  SmallVector<Value> results;
  if (auto constant = cond.getDefiningOp<ConstantOp>()) {
    bool taken = !(*constant.getValue().getValues<APInt>().begin()).isZero();
    FailureOr<SmallVector<Value>> outputs =
        importBranch(builder, taken ? *thenBranch : *elseBranch);
    if (failed(outputs))
      return poisonOutputs();
    results = *outputs;
  } else {
    Block *block = builder.getInsertionBlock();
    Operation *before = block->empty() ? nullptr : &block->back();
    FailureOr<SmallVector<Value>> thenOutputs =
        importBranch(builder, *thenBranch);
    FailureOr<SmallVector<Value>> elseOutputs =
        failed(thenOutputs) ? thenOutputs : importBranch(builder, *elseBranch);
    if (failed(elseOutputs))
      return poisonOutputs();
    // Both branches run: one that may trap (integer division by a zero the
    // condition guards against) cannot.
    for (Operation &op : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             block->end()))
      if (isa<DivOp, ModOp>(op) &&
          isa<IntegerType>(getElementTypeOrSelf(op.getResult(0).getType()))) {
        issue(name, "If",
              "a branch divides integers and the condition is not a "
              "constant; both branches would run, and the division may trap");
        return poisonOutputs();
      }
    Location loc = FusedLoc::get(
        ctx, {NameLoc::get(StringAttr::get(ctx, name))},
        StringAttr::get(ctx, "If"));
    Value scalar = ReshapeOp::create(
        builder, loc, RankedTensorType::get({}, builder.getI1Type()), cond,
        builder.getDenseI64ArrayAttr({}));
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(*thenOutputs, *elseOutputs))) {
      auto [t, e] = pair;
      if (t.getType() != e.getType()) {
        issue(name, "If",
              "output " + std::to_string(i) +
                  " has different types in the two branches and the "
                  "condition is not a constant; Tessel needs one static type");
        return poisonOutputs();
      }
      results.push_back(WhereOp::create(builder, loc, t.getType(), scalar, t, e));
    }
  }
  for (auto [out, v] : llvm::zip(node.output(), results))
    if (!out.empty())
      values[out] = v;
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
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name] = body->getArgument(i);
    func.setArgAttr(i, kNameAttrName, builder.getStringAttr(name));
  }

  for (const onnx::TensorProto &init : graph->initializer()) {
    std::string message;
    FailureOr<ElementsAttr> value = convertTensor(ctx, init, message);
    if (failed(value)) {
      issue(init.name(), "initializer", message, ErrorCode::UnsupportedType);
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
    if (std::optional<std::string> complaint = runOnnxChecker(model))
      return fail(ErrorCode::MalformedGraph,
                  "the model is not valid ONNX: " + *complaint);
  return build();
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
  return GraphImporter(ctx, options, error).run(model);
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
  return importOnnxBytes((*buffer)->getBuffer(), ctx, options, error);
}
