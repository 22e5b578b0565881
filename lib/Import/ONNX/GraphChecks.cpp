//===- GraphChecks.cpp - Issues and model-wide checks of an ONNX graph ----===//
//
// How the importer records problems as it goes (`summarizeIssues` turns
// them into the headline), and the checks of the graph as a whole that
// run before any node is imported: every operator known for the opset,
// every value defined once and before its use.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

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
