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
    registerSignalImporters(r);
    registerSequenceImporters(r);
    return r;
  }();
  return registry;
}

namespace {

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// "a sequence", "an optional"...: what a graph input or output is instead
/// of a tensor.
std::string describeNonTensor(const onnx::TypeProto &type) {
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
    } else if (node.op_type() == "If" || node.op_type() == "Loop" ||
               (node.op_type() == "Scan" && opset >= 9)) {
      // Imported by the graph importer itself (their bodies are subgraphs).
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
    issue(name, "input",
          "graph input '" + name + "' is " + describeNonTensor(info.type()) +
              "; Tessel compiles tensor inputs and outputs only",
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

FailureOr<DenseElementsAttr>
GraphImporter::readFixedValue(StringRef name, StringRef spec,
                              RankedTensorType type) {
  auto describe = [](Type t) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << t;
    return text;
  };
  auto fail = [&](const Twine &why) -> FailureOr<DenseElementsAttr> {
    issue(name.str(), "input",
          "--input-value for input '" + name.str() + "': " + why.str(),
          ErrorCode::NonConstantInput);
    return failure();
  };
  if (spec.ends_with(".pb")) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(spec, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("cannot read '" + spec + "': " + buffer.getError().message());
    onnx::TensorProto proto;
    StringRef bytes = (*buffer)->getBuffer();
    if (bytes.size() > static_cast<size_t>(INT_MAX) ||
        !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return fail("'" + spec + "' is not a TensorProto file");
    std::string message;
    FailureOr<ElementsAttr> value = convertTensor(ctx, proto, message);
    if (failed(value))
      return fail("'" + spec + "': " + message);
    if (value->getType() != type)
      return fail("'" + spec + "' holds " + describe(value->getType()) +
                  ", the input is " + describe(type));
    auto dense = dyn_cast<DenseElementsAttr>(*value);
    if (!dense)
      return fail("'" + spec + "' cannot be read as dense elements");
    return dense;
  }
  SmallVector<StringRef> parts;
  if (!spec.trim().empty())
    spec.split(parts, ',');
  if (static_cast<int64_t>(parts.size()) != type.getNumElements())
    return fail("'" + spec + "' gives " + Twine(parts.size()) +
                " values, the input is " + describe(type) + " (" +
                Twine(type.getNumElements()) + " values)");
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> numbers;
    for (StringRef part : parts) {
      double d;
      if (part.trim().getAsDouble(d))
        return fail("'" + part.trim() + "' is not a number");
      APFloat value(d);
      bool lost;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      numbers.push_back(value);
    }
    return DenseElementsAttr::get(type, numbers);
  }
  auto intType = dyn_cast<IntegerType>(element);
  if (!intType)
    return fail("the input's element type " + describe(element) +
                " cannot be given as numbers");
  SmallVector<APInt> numbers;
  unsigned width = intType.getWidth();
  for (StringRef part : parts) {
    StringRef text = part.trim();
    APInt value;
    if (width == 1 && (text == "true" || text == "false")) {
      numbers.push_back(APInt(1, text == "true"));
      continue;
    }
    // Parsed wide (as a magnitude and a sign), then checked to fit.
    bool negative = text.consume_front("-");
    if (text.getAsInteger(10, value) || value.getActiveBits() > 127)
      return fail("'" + part.trim() + "' is not an integer");
    value = value.zextOrTrunc(128);
    if (negative)
      value.negate();
    bool fits = intType.isUnsigned() || width == 1
                    ? !value.isNegative() && value.getActiveBits() <= width
                    : value.getSignificantBits() <= width;
    if (!fits)
      return fail("'" + part.trim() + "' does not fit " + describe(element));
    numbers.push_back(value.sextOrTrunc(width));
  }
  return DenseElementsAttr::get(type, numbers);
}

SmallVector<std::string>
GraphImporter::graphInputsFeeding(ArrayRef<Value> roots) const {
  SmallVector<std::string> names;
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == entryBlock &&
          arg.getArgNumber() < entryInputNames.size())
        names.push_back(entryInputNames[arg.getArgNumber()]);
      continue;
    }
    if (Operation *op = v.getDefiningOp())
      llvm::append_range(work, op->getOperands());
  }
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string GraphImporter::inputValueHint(ArrayRef<Value> roots) const {
  SmallVector<std::string> sources = graphInputsFeeding(roots);
  if (sources.empty())
    return "";
  std::string quoted, flags;
  for (const std::string &source : sources) {
    quoted += (quoted.empty() ? "'" : ", '") + source + "'";
    flags += " --input-value " + source + "=<v0,v1,...|file.pb>";
  }
  return "; it is computed from graph input" +
         std::string(sources.size() > 1 ? "s " : " ") + quoted +
         ": to compile for one value, fix it with" + flags +
         " (the artifact then refuses other values)";
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
  SmallVector<const Sequence *> sequenceInputs;
  for (const std::string &in : node.input()) {
    sequenceInputs.push_back(nullptr);
    if (in.empty()) {
      inputs.push_back(Value());
      continue;
    }
    if (poisoned.contains(in))
      return poisonOutputs();
    auto sequence = sequences.find(in);
    if (sequence != sequences.end())
      sequenceInputs.back() = &sequence->second;
    inputs.push_back(values.lookup(in));
  }
  Location loc = FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, name))},
                               StringAttr::get(ctx, node.op_type()));
  NodeContext nodeCtx(builder, loc, node, inputs, opset);
  nodeCtx.sequenceInputs = sequenceInputs;
  for (auto [i, v] : llvm::enumerate(inputs))
    if (v && !isa<RankedTensorType>(v.getType())) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " is not a ranked tensor");
      return poisonOutputs();
    }
  bool defaultDomain = isDefaultDomain(node.domain());
  // Identity passes a sequence on as it is.
  if (defaultDomain && node.op_type() == "Identity" &&
      node.input_size() == 1 && node.output_size() == 1 && sequenceInputs[0]) {
    Sequence copy = *sequenceInputs[0];
    sequences[node.output(0)] = std::move(copy);
    return;
  }
  const OpImporter *importer = ImporterRegistry::get().lookup(node.op_type());
  if (!defaultDomain)
    importer = nullptr;
  // Sequences exist only inside the importer: a sequence reaches only the
  // inputs of the operators that resolve it.
  for (auto [i, sequence] : llvm::enumerate(sequenceInputs)) {
    bool expected = importer && i < 32 && (importer->sequenceInputs >> i) & 1;
    if (sequence && !expected) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " ('" + node.input(i) +
                "') is a sequence; Tessel resolves sequences while importing, "
                "and '" +
                node.op_type() + "' cannot take one there",
            ErrorCode::UnsupportedType);
      return poisonOutputs();
    }
    if (!sequence && expected && inputs[i]) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " ('" + node.input(i) +
                "') is a tensor where a sequence is expected");
      return poisonOutputs();
    }
  }
  if (node.op_type() == "If" && defaultDomain)
    return importIf(builder, node, name);
  if (node.op_type() == "Loop" && defaultDomain)
    return importLoop(builder, node, name);
  if (node.op_type() == "Scan" && defaultDomain && opset >= 9)
    return importScan(builder, node, name);
  if (!importer || opset < importer->minOpset || opset > importer->maxOpset) {
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
    if (!inputs[i] && !sequenceInputs[i]) {
      issue(name, node.op_type(),
            "input " + std::to_string(i) + " is required but empty");
      return poisonOutputs();
    }
  SmallVector<Value> results;
  if (failed(importer->fn(nodeCtx, results))) {
    std::string reason =
        nodeCtx.failure.empty() ? "cannot be imported" : nodeCtx.failure;
    if (nodeCtx.failureCode == ErrorCode::NonConstantInput)
      reason += inputValueHint(ArrayRef<Value>(inputs).drop_front(
          std::min<size_t>(nodeCtx.nonConstantFrom, inputs.size())));
    issue(name, node.op_type(), reason, nodeCtx.failureCode);
    return poisonOutputs();
  }
  if (importer->sequenceResult) {
    assert(nodeCtx.sequenceResult && results.empty() &&
           "a sequence operator returns its sequence in sequenceResult");
    if (node.output_size() != 1 || node.output(0).empty()) {
      issue(name, node.op_type(), "expects one output");
      return poisonOutputs();
    }
    sequences[node.output(0)] = std::move(*nodeCtx.sequenceResult);
    return;
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
GraphImporter::importBranch(OpBuilder &builder, const onnx::GraphProto &branch,
                            const std::string &name, bool sequencesAllowed,
                            StringRef opType) {
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
    if (poisoned.contains(out.name()))
      return failure();
    if (sequences.count(out.name())) {
      if (sequencesAllowed) {
        outputs.push_back(Value());
        continue;
      }
      issue(name, opType.str(),
            "output '" + out.name() + "' of branch '" + branch.name() +
                "' is a sequence and the condition is not a constant; "
                "Tessel selects between tensors only",
            ErrorCode::UnsupportedType);
      return failure();
    }
    Value v = values.lookup(out.name());
    if (!v) {
      issue(name, opType.str(),
            "output '" + out.name() + "' of branch '" + branch.name() +
                "' is not defined",
            ErrorCode::MalformedGraph);
      return failure();
    }
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
    const onnx::GraphProto &branch = taken ? *thenBranch : *elseBranch;
    FailureOr<SmallVector<Value>> outputs =
        importBranch(builder, branch, name, /*sequencesAllowed=*/true);
    if (failed(outputs))
      return poisonOutputs();
    results = *outputs;
    // The taken branch's sequences are the node's.
    for (auto [i, v] : llvm::enumerate(results))
      if (!v && !node.output(i).empty()) {
        Sequence copy = sequences.find(branch.output(i).name())->second;
        sequences[node.output(i)] = std::move(copy);
      }
  } else {
    Block *block = builder.getInsertionBlock();
    Operation *before = block->empty() ? nullptr : &block->back();
    FailureOr<SmallVector<Value>> thenOutputs =
        importBranch(builder, *thenBranch, name, /*sequencesAllowed=*/false);
    FailureOr<SmallVector<Value>> elseOutputs =
        failed(thenOutputs) ? thenOutputs
                            : importBranch(builder, *elseBranch, name,
                                           /*sequencesAllowed=*/false);
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
    if (!out.empty() && v)
      values[out] = v;
}

/// The most iterations a Loop or Scan is unrolled for.
static constexpr int64_t kMaxUnrolledIterations = 1024;

FailureOr<Value> GraphImporter::stack(OpBuilder &builder, Location loc,
                                      ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value part : parts) {
    auto type = cast<RankedTensorType>(part.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(ReshapeOp::create(
        builder, loc, RankedTensorType::get(shape, type.getElementType()), part,
        builder.getDenseI64ArrayAttr(shape)));
  }
  if (expanded.size() == 1)
    return expanded.front();
  auto first = cast<RankedTensorType>(expanded.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = static_cast<int64_t>(expanded.size());
  for (Value part : expanded)
    if (part.getType() != first)
      return failure();
  return ConcatOp::create(builder, loc,
                          RankedTensorType::get(shape, first.getElementType()),
                          expanded, builder.getI64IntegerAttr(axis))
      .getResult();
}

/// ONNX Loop, unrolled at import: the trip count and the condition must be
/// constants (or fixed with --input-value), and so must the condition each
/// iteration computes; then each iteration's body is imported in turn, the
/// loop-carried values threaded through, and the scan outputs stacked along
/// a new first axis. Loops whose iteration count is only known at run time
/// are refused.
void GraphImporter::importLoop(OpBuilder &builder, const onnx::NodeProto &node,
                               const std::string &name) {
  auto poisonOutputs = [&] {
    for (const std::string &out : node.output())
      poisoned.insert(out);
  };
  auto refuse = [&](const Twine &why, ErrorCode code = ErrorCode::InvalidNode) {
    issue(name, "Loop", why.str(), code);
    poisonOutputs();
  };
  const onnx::GraphProto *body = nullptr;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "body" && a.has_g())
      body = &a.g();
  int carried = node.input_size() - 2;
  if (!body || node.input_size() < 2 || body->input_size() != carried + 2 ||
      body->output_size() < carried + 1 ||
      node.output_size() != body->output_size() - 1)
    return refuse("expects a body taking the iteration number, the condition "
                  "and each loop-carried value, and returning the condition, "
                  "each loop-carried value and the scan outputs");
  int scans = body->output_size() - 1 - carried;
  Location loc = FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, name))},
                               StringAttr::get(ctx, "Loop"));
  // A missing trip count or condition means "no limit" / "true".
  auto constantOf = [&](int index, Value &value) -> std::optional<APInt> {
    const std::string &input = node.input(index);
    if (input.empty())
      return std::nullopt;
    value = values.lookup(input);
    if (!value)
      return std::nullopt;
    auto constant = value.getDefiningOp<ConstantOp>();
    auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                          : DenseElementsAttr();
    if (!dense || dense.getNumElements() != 1 ||
        !isa<IntegerType>(dense.getElementType()))
      return std::nullopt;
    return *dense.getValues<APInt>().begin();
  };
  for (const std::string &in : node.input())
    if (!in.empty() && (poisoned.contains(in) || sequences.count(in)))
      return sequences.count(in)
                 ? refuse("a loop-carried sequence is not supported",
                          ErrorCode::UnsupportedType)
                 : poisonOutputs();
  Value tripValue, condValue;
  std::optional<APInt> trip = constantOf(0, tripValue);
  std::optional<APInt> cond = constantOf(1, condValue);
  auto nonConstant = [&](ArrayRef<Value> roots, const char *what) {
    refuse(std::string(what) +
               " must be constant: Tessel unrolls Loop at compile time" +
               inputValueHint(roots),
           ErrorCode::NonConstantInput);
  };
  bool tripKnown = node.input(0).empty() || trip;
  bool condKnown = node.input(1).empty() || cond;
  if (!tripKnown && !condKnown)
    return nonConstant({tripValue, condValue},
                       "the trip count and the condition");
  if (!tripKnown)
    return nonConstant({tripValue}, "the trip count");
  if (!condKnown)
    return nonConstant({condValue}, "the condition");
  if (!trip && !cond)
    return refuse("a Loop without a trip count or a condition runs forever");
  int64_t limit = trip ? trip->getSExtValue() : kMaxUnrolledIterations + 1;
  bool running = cond ? !cond->isZero() : true;

  SmallVector<Value> state;
  for (int i = 0; i < carried; ++i)
    state.push_back(values.lookup(node.input(i + 2)));
  SmallVector<SmallVector<Value>> scanParts(scans);
  auto boolScalar = [&](bool b) {
    return ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, builder.getI1Type()),
                               b));
  };
  int64_t iteration = 0;
  for (; running && iteration < limit; ++iteration) {
    if (iteration >= kMaxUnrolledIterations)
      return refuse("runs more than " + Twine(kMaxUnrolledIterations) +
                    " iterations, the most Tessel unrolls");
    values[body->input(0).name()] = ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, builder.getI64Type()),
                               iteration));
    values[body->input(1).name()] = boolScalar(true);
    for (int i = 0; i < carried; ++i)
      values[body->input(i + 2).name()] = state[i];
    FailureOr<SmallVector<Value>> outputs =
        importBranch(builder, *body, name, /*sequencesAllowed=*/true, "Loop");
    if (failed(outputs))
      return poisonOutputs();
    for (Value v : *outputs)
      if (!v)
        return refuse("the body returns a sequence, which Tessel does not "
                      "carry through a Loop",
                      ErrorCode::UnsupportedType);
    auto next = (*outputs)[0].getDefiningOp<ConstantOp>();
    auto nextDense = next ? dyn_cast<DenseElementsAttr>(next.getValue())
                          : DenseElementsAttr();
    if (!nextDense || nextDense.getNumElements() != 1 ||
        !nextDense.getElementType().isInteger(1))
      return nonConstant({(*outputs)[0]}, "the condition the body computes");
    running = !(*nextDense.getValues<APInt>().begin()).isZero();
    for (int i = 0; i < carried; ++i)
      state[i] = (*outputs)[i + 1];
    for (int k = 0; k < scans; ++k)
      scanParts[k].push_back((*outputs)[1 + carried + k]);
  }
  if (scans > 0 && iteration == 0)
    return refuse("runs no iteration, so its scan outputs have no known shape");
  for (int i = 0; i < carried; ++i)
    if (!node.output(i).empty())
      values[node.output(i)] = state[i];
  for (int k = 0; k < scans; ++k) {
    FailureOr<Value> stacked = stack(builder, loc, scanParts[k], 0);
    if (failed(stacked))
      return refuse("scan output " + Twine(k) +
                    " changes shape between iterations");
    if (!node.output(carried + k).empty())
      values[node.output(carried + k)] = *stacked;
  }
}

/// ONNX Scan (opset 9 on), unrolled over the static length of its scan
/// inputs: iteration t reads slice t (or length-1-t, reversed) of each scan
/// input along its axis, threads the states, and the scan outputs are
/// stacked along their axes (in reverse order for a reversed output).
void GraphImporter::importScan(OpBuilder &builder, const onnx::NodeProto &node,
                               const std::string &name) {
  auto poisonOutputs = [&] {
    for (const std::string &out : node.output())
      poisoned.insert(out);
  };
  auto refuse = [&](const Twine &why) {
    issue(name, "Scan", why.str());
    poisonOutputs();
  };
  const onnx::GraphProto *body = nullptr;
  int64_t numScanInputs = -1;
  std::vector<int64_t> inputDirs, outputDirs, inputAxes, outputAxes;
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (a.name() == "body" && a.has_g())
      body = &a.g();
    else if (a.name() == "num_scan_inputs")
      numScanInputs = a.i();
    else if (a.name() == "scan_input_directions")
      inputDirs.assign(a.ints().begin(), a.ints().end());
    else if (a.name() == "scan_output_directions")
      outputDirs.assign(a.ints().begin(), a.ints().end());
    else if (a.name() == "scan_input_axes")
      inputAxes.assign(a.ints().begin(), a.ints().end());
    else if (a.name() == "scan_output_axes")
      outputAxes.assign(a.ints().begin(), a.ints().end());
  }
  int64_t numStates = node.input_size() - numScanInputs;
  if (!body || numScanInputs < 1 || numStates < 0 ||
      body->input_size() != node.input_size() ||
      body->output_size() != node.output_size() ||
      body->output_size() < numStates)
    return refuse("expects num_scan_inputs >= 1 and a body taking each state "
                  "and scan input slice, returning each state and scan output");
  int64_t numScanOutputs = body->output_size() - numStates;
  auto sizedOr = [](std::vector<int64_t> &v, int64_t n) {
    if (v.empty())
      v.assign(n, 0);
    return static_cast<int64_t>(v.size()) == n;
  };
  if (!sizedOr(inputDirs, numScanInputs) ||
      !sizedOr(inputAxes, numScanInputs) ||
      !sizedOr(outputDirs, numScanOutputs) ||
      !sizedOr(outputAxes, numScanOutputs))
    return refuse("a directions or axes attribute has the wrong length");
  for (const std::string &in : node.input())
    if (in.empty() || poisoned.contains(in) || !values.lookup(in))
      return poisonOutputs();
  Location loc = FusedLoc::get(ctx, {NameLoc::get(StringAttr::get(ctx, name))},
                               StringAttr::get(ctx, "Scan"));
  int64_t length = -1;
  SmallVector<Value> scanInputs;
  for (int64_t k = 0; k < numScanInputs; ++k) {
    Value input = values.lookup(node.input(numStates + k));
    auto type = cast<RankedTensorType>(input.getType());
    std::optional<int64_t> axis = normalizeAxis(inputAxes[k], type.getRank());
    if (!axis)
      return refuse("scan_input_axes[" + Twine(k) + "] is out of range");
    inputAxes[k] = *axis;
    if (length >= 0 && type.getDimSize(*axis) != length)
      return refuse("the scan inputs have different lengths");
    length = type.getDimSize(*axis);
    scanInputs.push_back(input);
  }
  if (length == 0 && numScanOutputs > 0)
    return refuse("the sequence is empty, so the scan outputs have no known "
                  "shape");
  if (length > kMaxUnrolledIterations)
    return refuse("runs " + Twine(length) + " iterations, more than the " +
                  Twine(kMaxUnrolledIterations) + " Tessel unrolls");
  SmallVector<Value> state;
  for (int64_t i = 0; i < numStates; ++i)
    state.push_back(values.lookup(node.input(i)));
  SmallVector<SmallVector<Value>> parts(numScanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t i = 0; i < numStates; ++i)
      values[body->input(i).name()] = state[i];
    for (int64_t k = 0; k < numScanInputs; ++k) {
      int64_t index = inputDirs[k] ? length - 1 - t : t;
      auto type = cast<RankedTensorType>(scanInputs[k].getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + inputAxes[k]);
      Value indexValue = ConstantOp::create(
          builder, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({}, builder.getI64Type()), index));
      values[body->input(numStates + k).name()] = GatherOp::create(
          builder, loc, RankedTensorType::get(shape, type.getElementType()),
          scanInputs[k], indexValue, builder.getI64IntegerAttr(inputAxes[k]));
    }
    FailureOr<SmallVector<Value>> outputs =
        importBranch(builder, *body, name, /*sequencesAllowed=*/false, "Scan");
    if (failed(outputs))
      return poisonOutputs();
    for (int64_t i = 0; i < numStates; ++i)
      state[i] = (*outputs)[i];
    for (int64_t k = 0; k < numScanOutputs; ++k)
      parts[k].push_back((*outputs)[numStates + k]);
  }
  for (int64_t i = 0; i < numStates; ++i)
    if (!node.output(i).empty())
      values[node.output(i)] = state[i];
  for (int64_t k = 0; k < numScanOutputs; ++k) {
    if (outputDirs[k])
      std::reverse(parts[k].begin(), parts[k].end());
    auto type = cast<RankedTensorType>(parts[k].front().getType());
    std::optional<int64_t> axis =
        normalizeAxis(outputAxes[k], type.getRank() + 1);
    if (!axis)
      return refuse("scan_output_axes[" + Twine(k) + "] is out of range");
    FailureOr<Value> stacked = stack(builder, loc, parts[k], *axis);
    if (failed(stacked))
      return refuse("scan output " + Twine(k) +
                    " changes shape between iterations");
    if (!node.output(numStates + k).empty())
      values[node.output(numStates + k)] = *stacked;
  }
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
  entryBlock = body;
  entryInputNames.assign(inputNames.begin(), inputNames.end());
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name] = body->getArgument(i);
    func.setArgAttr(i, kNameAttrName, builder.getStringAttr(name));
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
