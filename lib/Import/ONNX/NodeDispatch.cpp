//===- NodeDispatch.cpp - One ONNX node to its importer -------------------===//
//
// `importNode`: checks one node's inputs (poisoned, sequence or tensor,
// arity), hands If, Loop and Scan to the control-flow importers and every
// other operator to its registered importer, and binds the results.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

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
