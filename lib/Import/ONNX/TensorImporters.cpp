//===- TensorImporters.cpp - Constants and data movement ------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

LogicalResult reshapeInput(NodeContext &ctx, ArrayRef<int64_t> shape,
                           SmallVectorImpl<Value> &results) {
  return ctx.emit<ReshapeOp>(results, ctx.input(0),
                             ctx.builder.getDenseI64ArrayAttr(shape));
}

LogicalResult importConstant(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  if (ctx.node.attribute_size() != 1)
    return ctx.fail("Constant must have exactly one value attribute");
  const onnx::AttributeProto &a = ctx.node.attribute(0);
  MLIRContext *mctx = ctx.builder.getContext();
  Builder &b = ctx.builder;
  ElementsAttr value;
  if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) {
    std::string error;
    FailureOr<ElementsAttr> converted = convertTensor(mctx, a.t(), error);
    if (failed(converted))
      return ctx.fail(error);
    value = *converted;
  } else if (a.name() == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                   a.f());
  } else if (a.name() == "value_floats") {
    SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  } else if (a.name() == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                   static_cast<int64_t>(a.i()));
  } else if (a.name() == "value_ints") {
    SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  } else {
    return ctx.fail("Constant attribute '" + a.name() +
                    "' is not supported (sparse and string constants are "
                    "not)");
  }
  return ctx.emit<ConstantOp>(results, value);
}

/// Reshape with a constant shape: 0 copies the input's extent (unless
/// allowzero), -1 takes what remains.
LogicalResult importReshape(NodeContext &ctx,
                            SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  std::optional<SmallVector<int64_t>> shape = ctx.constantInts(1);
  if (!shape)
    return ctx.failNonConstant("the target shape must be a constant");
  bool allowZero = ctx.intAttr("allowzero", 0) != 0;
  int64_t known = 1, inferred = -1;
  for (auto [i, d] : llvm::enumerate(*shape)) {
    if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= x.getRank())
        return ctx.fail("shape entry 0 copies a dimension the input lacks");
      d = x.getDimSize(i);
    }
    if (d == -1) {
      if (inferred >= 0)
        return ctx.fail("the target shape has more than one -1");
      inferred = i;
      continue;
    }
    if (d < 0 || llvm::MulOverflow(known, d, known))
      return ctx.fail("the target shape has an invalid entry");
  }
  if (inferred >= 0) {
    if (known == 0 || x.getNumElements() % known != 0)
      return ctx.fail("cannot infer the -1 entry of the target shape");
    (*shape)[inferred] = x.getNumElements() / known;
  } else if (known != x.getNumElements()) {
    return ctx.fail("cannot reshape " + llvm::Twine(x.getNumElements()) +
                    " elements into " + llvm::Twine(known));
  }
  return reshapeInput(ctx, *shape, results);
}

LogicalResult importFlatten(NodeContext &ctx,
                            SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  int64_t rank = x.getRank();
  int64_t axis = ctx.intAttr("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.fail("axis is out of range");
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? rows : cols) *= x.getDimSize(i);
  return reshapeInput(ctx, {rows, cols}, results);
}

/// Squeeze and Unsqueeze: axes as an attribute before opset 13, an input
/// from 13 on.
std::optional<SmallVector<int64_t>> readAxes(NodeContext &ctx) {
  if (ctx.opset < 13)
    return ctx.intsAttr("axes");
  if (!ctx.input(1))
    return std::nullopt;
  return ctx.constantInts(1);
}

LogicalResult importSqueeze(NodeContext &ctx,
                            SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  std::optional<SmallVector<int64_t>> axes = readAxes(ctx);
  if (ctx.opset >= 13 && ctx.input(1) && !axes)
    return ctx.failNonConstant("axes must be a constant");
  SmallVector<bool> drop(x.getRank(), false);
  if (!axes) {
    for (int64_t i = 0; i < x.getRank(); ++i)
      drop[i] = x.getDimSize(i) == 1;
  } else {
    for (int64_t a : *axes) {
      std::optional<int64_t> axis = normalizeAxis(a, x.getRank());
      if (!axis || x.getDimSize(*axis) != 1)
        return ctx.fail("axis " + llvm::Twine(a) +
                        " is out of range or not of extent 1");
      drop[*axis] = true;
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i)
    if (!drop[i])
      shape.push_back(x.getDimSize(i));
  return reshapeInput(ctx, shape, results);
}

LogicalResult importUnsqueeze(NodeContext &ctx,
                              SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  std::optional<SmallVector<int64_t>> axes = readAxes(ctx);
  if (!axes)
    return ctx.failNonConstant("axes must be given as a constant");
  int64_t rank = x.getRank() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis || inserted[*axis])
      return ctx.fail("axis " + llvm::Twine(a) + " is out of range or repeated");
    inserted[*axis] = true;
  }
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : x.getDimSize(next++));
  return reshapeInput(ctx, shape, results);
}

LogicalResult importTranspose(NodeContext &ctx,
                              SmallVectorImpl<Value> &results) {
  int64_t rank = ctx.inputType(0).getRank();
  SmallVector<int64_t> perm;
  if (auto given = ctx.intsAttr("perm"))
    perm = *given;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return ctx.fail("perm must have one entry per dimension");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return ctx.fail("perm is not a permutation");
    seen[p] = true;
  }
  return ctx.emit<TransposeOp>(results, ctx.input(0),
                                        ctx.builder.getDenseI64ArrayAttr(perm));
}

LogicalResult importConcat(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType first = ctx.inputType(0);
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), first.getRank());
  if (!axis)
    return ctx.fail("axis is out of range");
  SmallVector<Value> inputs;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    RankedTensorType t = ctx.inputType(i);
    if (!t || t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return ctx.fail("inputs must share rank and element type");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != first.getDimSize(d))
        return ctx.fail("input shapes differ outside the concatenation axis");
    inputs.push_back(ctx.input(i));
  }
  return ctx.emit<ConcatOp>(results, inputs,
                                     ctx.builder.getI64IntegerAttr(*axis));
}

} // namespace

void mlir::tessel::onnx_import::registerTensorImporters(
    ImporterRegistry &registry) {
  registry.add("Constant", importConstant, {0, 0});
  registry.add("Reshape", importReshape, {2, 2}, 5);
  registry.add("Flatten", importFlatten, {1, 1});
  registry.add("Squeeze", importSqueeze, {1, 2});
  registry.add("Unsqueeze", importUnsqueeze, {1, 2});
  registry.add("Transpose", importTranspose, {1, 1});
  registry.add("Concat", importConcat, {1, kVariadic}, 4);
}
