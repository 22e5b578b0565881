//===- ControlFlowImporter.cpp - ONNX If and its branches -----------------===//
//
// `importBranch` imports a subgraph (an If branch, a Loop or Scan body) in
// the enclosing scope; `importIf` imports the taken branch of a constant
// condition, or both branches selected between with tessel.where.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

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
