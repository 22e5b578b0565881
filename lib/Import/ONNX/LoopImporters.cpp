//===- LoopImporters.cpp - ONNX Loop and Scan, unrolled -------------------===//
//
// Loop and Scan are unrolled at import: each iteration's body is imported
// in turn (through `importBranch`) with the carried values threaded
// through, and the per-iteration scan outputs are stacked.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;
using ::tessel::ErrorCode;

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
