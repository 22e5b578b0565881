//===- SequenceImporters.cpp - Sequence operators, resolved at import -----===//
//
// Tessel has no sequence type. A sequence is resolved while importing: the
// importer keeps it as the list of tensor values it holds (`Sequence`), and
// each sequence operator edits that list or reads from it. Only
// ConcatFromSequence and SplitToSequence emit tensor ops; SequenceAt returns
// one of the held values and SequenceLength a constant. Positions must
// therefore be import-time constants, and a sequence may not leave the graph.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// The node's name as diagnostics give it (`<OpType>#<index>` if unnamed).
std::string nodeName(NodeContext &ctx) {
  if (auto fused = dyn_cast<FusedLoc>(ctx.loc))
    if (!fused.getLocations().empty())
      if (auto name = dyn_cast<NameLoc>(fused.getLocations().front()))
        return name.getName().str();
  return ctx.node.name();
}

/// Reads the position input `i` against a sequence of `length` elements:
/// an import-time constant in [-length, length - 1], or up to `length` when
/// `inserting`; negative positions count from the end.
FailureOr<int64_t> readPosition(NodeContext &ctx, size_t i, int64_t length,
                                bool inserting) {
  RankedTensorType type = ctx.inputType(i);
  if (type && type.getRank() != 0 && type.getNumElements() != 1) {
    (void)ctx.fail("position must be a scalar");
    return failure();
  }
  std::optional<SmallVector<int64_t>> position = ctx.constantInts(i);
  if (!position) {
    (void)ctx.fail("position '" + ctx.node.input(i) +
                   "' is not an import-time constant; Tessel resolves "
                   "sequences while importing, so a position must be an "
                   "initializer, a Constant or computed from constants");
    return failure();
  }
  int64_t p = position->front();
  int64_t last = inserting ? length : length - 1;
  if (p < -length || p > last) {
    (void)ctx.fail("position " + Twine(p) +
                   " is out of range for a sequence of " + Twine(length) +
                   " tensors (valid: " + Twine(-length) + " to " + Twine(last) +
                   ")");
    return failure();
  }
  return p < 0 ? p + length : p;
}

/// Element `i` of `sequence`, or a failure naming why it is unknown.
FailureOr<Value> element(NodeContext &ctx, const Sequence &sequence,
                         int64_t i) {
  if (Value v = sequence.elements[i])
    return v;
  (void)ctx.fail(
      "element " + Twine(i) +
      " of the sequence is unknown at import: " + sequence.unresolved);
  return failure();
}

LogicalResult checkElementType(NodeContext &ctx, const Sequence &sequence,
                               Value tensor) {
  Type element = cast<RankedTensorType>(tensor.getType()).getElementType();
  if (element == sequence.elementType)
    return success();
  return ctx.fail("the tensor's element type " + typeName(element) +
                  " differs from the sequence's " +
                  typeName(sequence.elementType));
}

LogicalResult importSequenceEmpty(NodeContext &ctx, SmallVectorImpl<Value> &) {
  int64_t dtype = ctx.intAttr("dtype", onnx::TensorProto::FLOAT);
  Type element = convertElementType(ctx.builder.getContext(), dtype);
  if (!element)
    return ctx.fail("dtype " + elementTypeName(dtype) + " is not supported",
                    ::tessel::ErrorCode::UnsupportedType);
  ctx.sequenceResult = Sequence{element, {}, {}};
  return success();
}

LogicalResult importSequenceConstruct(NodeContext &ctx,
                                      SmallVectorImpl<Value> &) {
  Sequence sequence{ctx.inputType(0).getElementType(), {}, {}};
  for (auto [i, tensor] : llvm::enumerate(ctx.inputs)) {
    if (!tensor)
      return ctx.fail("input " + Twine(i) + " is empty");
    if (failed(checkElementType(ctx, sequence, tensor)))
      return failure();
    sequence.elements.push_back(tensor);
  }
  ctx.sequenceResult = std::move(sequence);
  return success();
}

LogicalResult importSequenceInsert(NodeContext &ctx, SmallVectorImpl<Value> &) {
  Sequence sequence = *ctx.sequenceInput(0);
  if (failed(checkElementType(ctx, sequence, ctx.input(1))))
    return failure();
  int64_t length = sequence.elements.size();
  int64_t position = length;
  if (ctx.input(2)) {
    FailureOr<int64_t> given = readPosition(ctx, 2, length, true);
    if (failed(given))
      return failure();
    position = *given;
  }
  sequence.elements.insert(sequence.elements.begin() + position, ctx.input(1));
  ctx.sequenceResult = std::move(sequence);
  return success();
}

LogicalResult importSequenceErase(NodeContext &ctx, SmallVectorImpl<Value> &) {
  Sequence sequence = *ctx.sequenceInput(0);
  int64_t length = sequence.elements.size();
  if (length == 0)
    return ctx.fail("erases from an empty sequence");
  int64_t position = length - 1;
  if (ctx.input(1)) {
    FailureOr<int64_t> given = readPosition(ctx, 1, length, false);
    if (failed(given))
      return failure();
    position = *given;
  }
  sequence.elements.erase(sequence.elements.begin() + position);
  ctx.sequenceResult = std::move(sequence);
  return success();
}

LogicalResult importSequenceAt(NodeContext &ctx,
                               SmallVectorImpl<Value> &results) {
  const Sequence &sequence = *ctx.sequenceInput(0);
  FailureOr<int64_t> position =
      readPosition(ctx, 1, sequence.elements.size(), false);
  if (failed(position))
    return failure();
  FailureOr<Value> tensor = element(ctx, sequence, *position);
  if (failed(tensor))
    return failure();
  results.push_back(*tensor);
  return success();
}

LogicalResult importSequenceLength(NodeContext &ctx,
                                   SmallVectorImpl<Value> &results) {
  int64_t length = ctx.sequenceInput(0)->elements.size();
  auto type = RankedTensorType::get({}, ctx.builder.getI64Type());
  results.push_back(ConstantOp::create(
      ctx.builder, ctx.loc, DenseElementsAttr::get(type, ArrayRef(length))));
  return success();
}

/// ConcatFromSequence: Concat of the elements along `axis`, or, with
/// `new_axis = 1`, Concat of the elements each given a unit dimension at
/// `axis` (numpy's stack).
LogicalResult importConcatFromSequence(NodeContext &ctx,
                                       SmallVectorImpl<Value> &results) {
  const Sequence &sequence = *ctx.sequenceInput(0);
  if (!ctx.attr("axis"))
    return ctx.fail("the 'axis' attribute is required");
  if (sequence.elements.empty())
    return ctx.fail("concatenates an empty sequence");
  bool newAxis = ctx.intAttr("new_axis", 0) != 0;
  for (int64_t i = 0, e = sequence.elements.size(); i < e; ++i)
    if (failed(element(ctx, sequence, i)))
      return failure();
  auto first = cast<RankedTensorType>(sequence.elements.front().getType());
  int64_t rank = first.getRank() + (newAxis ? 1 : 0);
  int64_t given = ctx.intAttr("axis", 0);
  std::optional<int64_t> axis = normalizeAxis(given, rank);
  if (!axis)
    return ctx.fail("axis " + Twine(given) + " is out of range for rank " +
                    Twine(first.getRank()) + (newAxis ? " with new_axis" : ""));
  SmallVector<Value> inputs;
  for (auto [i, tensor] : llvm::enumerate(sequence.elements)) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (type.getRank() != first.getRank())
      return ctx.fail("element " + Twine(i) + " has rank " +
                      Twine(type.getRank()) + ", element 0 has rank " +
                      Twine(first.getRank()));
    for (int64_t d = 0; d < type.getRank(); ++d)
      if ((newAxis || d != *axis) && type.getDimSize(d) != first.getDimSize(d))
        return ctx.fail("element " + Twine(i) +
                        " differs from element 0 in dimension " + Twine(d) +
                        (newAxis ? "" : ", outside the concatenation axis"));
    if (!newAxis) {
      inputs.push_back(tensor);
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + *axis, 1);
    FailureOr<Value> expanded =
        ctx.build<ReshapeOp>(tensor, ctx.builder.getDenseI64ArrayAttr(shape));
    if (failed(expanded))
      return failure();
    inputs.push_back(*expanded);
  }
  return ctx.emit<ConcatOp>(results, inputs,
                            ctx.builder.getI64IntegerAttr(*axis));
}

/// SplitToSequence: slices along `axis` of the constant sizes in `split` (a
/// 1-D list of sizes, or a scalar chunk size with a smaller last chunk), or
/// of size 1 without `split`, dropping the axis when `keepdims = 0`.
LogicalResult importSplitToSequence(NodeContext &ctx,
                                    SmallVectorImpl<Value> &) {
  RankedTensorType x = ctx.inputType(0);
  int64_t given = ctx.intAttr("axis", 0);
  std::optional<int64_t> axis = normalizeAxis(given, x.getRank());
  if (!axis)
    return ctx.fail("axis " + Twine(given) + " is out of range for rank " +
                    Twine(x.getRank()));
  int64_t extent = x.getDimSize(*axis);
  SmallVector<int64_t> parts;
  bool dropAxis = false;
  if (!ctx.input(1)) {
    parts.assign(extent, 1);
    dropAxis = ctx.intAttr("keepdims", 1) == 0;
  } else {
    ElementsAttr split = ctx.constantInput(1);
    std::optional<SmallVector<int64_t>> sizes = ctx.constantInts(1);
    RankedTensorType splitType = ctx.inputType(1);
    if (!split && splitType.getRank() == 1) {
      // Sizes known only at run time: the parts are unknown, their number
      // (the length of `split`) is not.
      ctx.sequenceResult =
          Sequence{x.getElementType(),
                   SmallVector<Value>(splitType.getDimSize(0), Value()),
                   "it is a part of SplitToSequence '" + nodeName(ctx) +
                       "', whose split '" + ctx.node.input(1) +
                       "' is known only at run time"};
      return success();
    }
    if (split && !sizes)
      return ctx.fail("split must hold integers");
    if (!split)
      return ctx.fail("split '" + ctx.node.input(1) +
                      "' is not an import-time constant; Tessel resolves "
                      "sequences while importing and needs each part's size");
    if (splitType.getRank() > 1)
      return ctx.fail("split must be a scalar or a 1-D tensor");
    if (splitType.getRank() == 0) {
      int64_t chunk = sizes->front();
      if (chunk <= 0)
        return ctx.fail("split " + Twine(chunk) + " is not a positive size");
      for (int64_t left = extent; left > 0; left -= chunk)
        parts.push_back(std::min(chunk, left));
    } else {
      int64_t total = 0;
      for (int64_t s : *sizes)
        if (s < 0 || llvm::AddOverflow(total, s, total))
          return ctx.fail("split has a negative part");
      if (total != extent)
        return ctx.fail("split parts sum to " + Twine(total) +
                        ", the axis has " + Twine(extent));
      parts = *sizes;
    }
  }
  Sequence sequence{x.getElementType(), {}, {}};
  SmallVector<int64_t> starts(x.getRank(), 0), sizes(x.getShape()),
      steps(x.getRank(), 1);
  Builder &b = ctx.builder;
  for (int64_t part : parts) {
    sizes[*axis] = part;
    // An empty part has no valid start; any in-range value will do.
    SmallVector<int64_t> safeStarts(starts);
    for (auto [s, size] : llvm::zip(safeStarts, sizes))
      if (size == 0)
        s = 0;
    FailureOr<Value> slice = ctx.build<SliceOp>(
        ctx.input(0), b.getDenseI64ArrayAttr(safeStarts),
        b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(steps));
    if (failed(slice))
      return failure();
    if (dropAxis) {
      SmallVector<int64_t> shape(sizes);
      shape.erase(shape.begin() + *axis);
      slice = ctx.build<ReshapeOp>(*slice, b.getDenseI64ArrayAttr(shape));
      if (failed(slice))
        return failure();
    }
    sequence.elements.push_back(*slice);
    starts[*axis] += part;
  }
  ctx.sequenceResult = std::move(sequence);
  return success();
}

} // namespace

void mlir::tessel::onnx_import::registerSequenceImporters(
    ImporterRegistry &registry) {
  constexpr uint32_t none = 0, first = 1;
  registry.addSequenceOp("SequenceEmpty", importSequenceEmpty, {0, 0}, 11, none,
                         true);
  registry.addSequenceOp("SequenceConstruct", importSequenceConstruct,
                         {1, kVariadic}, 11, none, true);
  registry.addSequenceOp("SequenceInsert", importSequenceInsert, {2, 3}, 11,
                         first, true);
  registry.addSequenceOp("SequenceErase", importSequenceErase, {1, 2}, 11,
                         first, true);
  registry.addSequenceOp("SequenceAt", importSequenceAt, {2, 2}, 11, first,
                         false);
  registry.addSequenceOp("SequenceLength", importSequenceLength, {1, 1}, 11,
                         first, false);
  registry.addSequenceOp("ConcatFromSequence", importConcatFromSequence, {1, 1},
                         11, first, false);
  registry.addSequenceOp("SplitToSequence", importSplitToSequence, {1, 2}, 11,
                         none, true);
}
