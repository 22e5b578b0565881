//===- IndexingImporters.cpp - Shapes, gathers, slices, pads, tiles -------===//
//
// Shape, Size, ConstantOfShape and Range become constants at import (shapes
// are static); Gather, Slice, Expand and friends become tessel ops, which
// fold when their inputs are constants, so the shape computations exporters
// emit (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) end as constants.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

LogicalResult emitConstant(NodeContext &ctx, SmallVectorImpl<Value> &results,
                           ElementsAttr value) {
  return ctx.emit<ConstantOp>(results, value);
}

DenseElementsAttr i64Tensor(NodeContext &ctx, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> values) {
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, ctx.builder.getI64Type()), values);
}

LogicalResult importShape(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  ArrayRef<int64_t> shape = ctx.inputType(0).getShape();
  int64_t rank = shape.size();
  int64_t start = ctx.intAttr("start", 0), end = ctx.intAttr("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  ArrayRef<int64_t> dims = shape.slice(start, std::max<int64_t>(end - start, 0));
  return emitConstant(ctx, results,
                      i64Tensor(ctx, {static_cast<int64_t>(dims.size())}, dims));
}

LogicalResult importSize(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  return emitConstant(ctx, results,
                      i64Tensor(ctx, {}, {ctx.inputType(0).getNumElements()}));
}

LogicalResult importConstantOfShape(NodeContext &ctx,
                                    SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> shape = ctx.constantInts(0);
  if (!shape)
    return ctx.failNonConstant("the shape input must be a constant",
                               /*firstInput=*/0);
  int64_t count = 1;
  for (int64_t d : *shape)
    if (d < 0 || llvm::MulOverflow(count, d, count) ||
        count > (int64_t(1) << 40))
      return ctx.fail("the shape has a negative or too large dimension");
  Type element = ctx.builder.getF32Type();
  Attribute fill = ctx.builder.getF32FloatAttr(0);
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    std::string error;
    FailureOr<ElementsAttr> value =
        convertTensor(ctx.builder.getContext(), a->t(), error);
    if (failed(value))
      return ctx.fail(error);
    if (value->getNumElements() != 1)
      return ctx.fail("'value' must hold one element");
    element = value->getElementType();
    fill = *value->getValues<Attribute>().begin();
  }
  return emitConstant(ctx, results,
                      DenseElementsAttr::get(
                          RankedTensorType::get(*shape, element), fill));
}

/// Range with constant start, limit and delta, computed at import.
LogicalResult importRange(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  Type element = ctx.inputType(0).getElementType();
  std::optional<double> start = ctx.constantScalar(0),
                        limit = ctx.constantScalar(1),
                        delta = ctx.constantScalar(2);
  if (!start || !limit || !delta)
    return ctx.failNonConstant(
        "start, limit and delta must be constants (the output shape depends "
        "on them)",
        /*firstInput=*/0);
  if (*delta == 0)
    return ctx.fail("delta is zero");
  // Opset 27's stash_type=0 accumulates float16/bfloat16 in their own type;
  // the values here are computed in double and rounded once (stash_type=1).
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32 &&
      ctx.opset >= 27 && ctx.intAttr("stash_type", 1) == 0)
    return ctx.fail("stash_type=0 (accumulating in " +
                    std::string(element.isF16() ? "float16" : "bfloat16") +
                    ") is not supported");
  double steps = std::ceil((*limit - *start) / *delta);
  int64_t count = steps > 0 ? static_cast<int64_t>(steps) : 0;
  if (count > (int64_t(1) << 24))
    return ctx.fail("the range is too long to hold as a constant");
  auto type = RankedTensorType::get({count}, element);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    if (isa<FloatType>(element))
      values.push_back(ctx.builder.getFloatAttr(element, *start + i * *delta));
    else
      values.push_back(ctx.builder.getIntegerAttr(
          element, static_cast<int64_t>(*start) +
                       i * static_cast<int64_t>(*delta)));
  }
  return emitConstant(ctx, results, DenseElementsAttr::get(type, values));
}

LogicalResult importGather(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), ctx.inputType(0).getRank());
  if (!axis)
    return ctx.fail("axis is out of range");
  return ctx.emit<GatherOp>(results, ctx.input(0), ctx.input(1),
                            ctx.builder.getI64IntegerAttr(*axis));
}

LogicalResult importGatherElements(NodeContext &ctx,
                                   SmallVectorImpl<Value> &results) {
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), ctx.inputType(0).getRank());
  if (!axis)
    return ctx.fail("axis is out of range");
  return ctx.emit<GatherElementsOp>(results, ctx.input(0), ctx.input(1),
                                    ctx.builder.getI64IntegerAttr(*axis));
}

/// Resolves one dimension of an ONNX slice to (start, size) for `step`,
/// clamping as ONNX specifies.
std::pair<int64_t, int64_t> resolveSlice(int64_t start, int64_t end,
                                         int64_t step, int64_t extent) {
  auto wrap = [&](int64_t v) { return v < 0 ? v + extent : v; };
  start = wrap(start);
  end = wrap(end);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, extent);
    end = std::clamp<int64_t>(end, 0, extent);
    return {start, std::max<int64_t>(0, (end - start + step - 1) / step)};
  }
  start = std::clamp<int64_t>(start, 0, extent - 1);
  end = std::clamp<int64_t>(end, -1, extent - 1);
  return {start, std::max<int64_t>(0, (start - end + (-step) - 1) / -step)};
}

/// Emits a slice of input 0 given per-dimension (start, size, step).
LogicalResult emitSlice(NodeContext &ctx, SmallVectorImpl<Value> &results,
                        ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes,
                        ArrayRef<int64_t> steps) {
  // An empty dimension has no valid start; any in-range value will do.
  SmallVector<int64_t> safeStarts(starts);
  for (auto [s, size] : llvm::zip(safeStarts, sizes))
    if (size == 0)
      s = 0;
  Builder &b = ctx.builder;
  return ctx.emit<SliceOp>(results, ctx.input(0),
                           b.getDenseI64ArrayAttr(safeStarts),
                           b.getDenseI64ArrayAttr(sizes),
                           b.getDenseI64ArrayAttr(steps));
}

LogicalResult importSlice(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  int64_t rank = x.getRank();
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = ctx.intsAttr("starts");
    ends = ctx.intsAttr("ends");
    axes = ctx.intsAttr("axes");
  } else {
    starts = ctx.constantInts(1);
    ends = ctx.constantInts(2);
    if (ctx.input(3) && !(axes = ctx.constantInts(3)))
      return ctx.failNonConstant("axes must be a constant");
    if (ctx.input(4) && !(steps = ctx.constantInts(4)))
      return ctx.failNonConstant("steps must be a constant");
  }
  if (!starts || !ends)
    return ctx.failNonConstant("starts and ends must be constants");
  size_t n = starts->size();
  if (ends->size() != n || (axes && axes->size() != n) ||
      (steps && steps->size() != n))
    return ctx.fail("starts, ends, axes and steps differ in length");
  SmallVector<int64_t> outStarts(rank, 0), outSizes(x.getShape()),
      outSteps(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> axis =
        normalizeAxis(axes ? (*axes)[i] : static_cast<int64_t>(i), rank);
    if (!axis || seen[*axis])
      return ctx.fail("an axis is out of range or repeated");
    seen[*axis] = true;
    int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0)
      return ctx.fail("a step is zero");
    auto [start, size] =
        resolveSlice((*starts)[i], (*ends)[i], step, x.getDimSize(*axis));
    outStarts[*axis] = start;
    outSizes[*axis] = size;
    outSteps[*axis] = step;
  }
  return emitSlice(ctx, results, outStarts, outSizes, outSteps);
}

/// Split into consecutive slices along an axis.
LogicalResult importSplit(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), x.getRank());
  if (!axis)
    return ctx.fail("axis is out of range");
  int64_t extent = x.getDimSize(*axis);
  int64_t outputs = ctx.node.output_size();
  std::optional<SmallVector<int64_t>> split;
  if (ctx.opset < 13)
    split = ctx.intsAttr("split");
  else if (ctx.input(1) && !(split = ctx.constantInts(1)))
    return ctx.failNonConstant("split must be a constant");
  if (!split) {
    // Equal parts; from opset 18 `num_outputs` allows a smaller last part.
    int64_t parts = ctx.opset >= 18 ? ctx.intAttr("num_outputs", outputs)
                                    : outputs;
    if (parts < 1 || parts != outputs)
      return ctx.fail("num_outputs does not match the node's outputs");
    int64_t size = ctx.opset >= 18 ? (extent + parts - 1) / parts
                                   : extent / parts;
    if (ctx.opset < 18 && extent % parts != 0)
      return ctx.fail("the axis does not split into equal parts");
    split.emplace();
    for (int64_t i = 0, left = extent; i < parts; ++i) {
      split->push_back(std::min(size, left));
      left -= split->back();
    }
  }
  if (static_cast<int64_t>(split->size()) != outputs)
    return ctx.fail("split has " + Twine(split->size()) + " parts for " +
                    Twine(outputs) + " outputs");
  int64_t total = 0;
  for (int64_t s : *split)
    if (s < 0 || llvm::AddOverflow(total, s, total))
      return ctx.fail("split has a negative part");
  if (total != extent)
    return ctx.fail("split parts sum to " + Twine(total) + ", the axis has " +
                    Twine(extent));
  SmallVector<int64_t> starts(x.getRank(), 0), sizes(x.getShape()),
      steps(x.getRank(), 1);
  for (int64_t part : *split) {
    sizes[*axis] = part;
    if (failed(emitSlice(ctx, results, starts, sizes, steps)))
      return failure();
    starts[*axis] += part;
  }
  return success();
}

LogicalResult importExpand(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> shape = ctx.constantInts(1);
  if (!shape)
    return ctx.failNonConstant("the shape input must be a constant");
  FailureOr<SmallVector<int64_t>> result =
      broadcastShapes(ctx.inputType(0).getShape(), *shape);
  if (failed(result))
    return ctx.fail("the input does not broadcast with the shape");
  return ctx.emit<BroadcastToOp>(results, ctx.input(0),
                                 ctx.builder.getDenseI64ArrayAttr(*result));
}

LogicalResult importTile(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> repeats = ctx.constantInts(1);
  if (!repeats)
    return ctx.failNonConstant("repeats must be a constant");
  return ctx.emit<TileOp>(results, ctx.input(0),
                          ctx.builder.getDenseI64ArrayAttr(*repeats));
}

LogicalResult importPad(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  int64_t rank = x.getRank();
  std::string mode = ctx.stringAttr("mode", "constant");
  std::optional<SmallVector<int64_t>> pads;
  double value = 0;
  if (ctx.opset < 11) {
    pads = ctx.intsAttr(ctx.opset < 2 ? "paddings" : "pads");
    value = ctx.floatAttr("value", 0);
  } else {
    if (!(pads = ctx.constantInts(1)))
      return ctx.failNonConstant("pads must be a constant");
    if (ctx.input(2)) {
      std::optional<double> v = ctx.constantScalar(2);
      if (!v)
        return ctx.failNonConstant("constant_value must be a constant");
      value = *v;
    }
    if (ctx.input(3)) {
      // Opset 18: pads for the listed axes only.
      std::optional<SmallVector<int64_t>> axes = ctx.constantInts(3);
      if (!axes || pads->size() != 2 * axes->size())
        return ctx.failNonConstant("axes must be a constant matching pads");
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, a] : llvm::enumerate(*axes)) {
        std::optional<int64_t> axis = normalizeAxis(a, rank);
        if (!axis)
          return ctx.fail("an axis is out of range");
        full[*axis] = (*pads)[i];
        full[rank + *axis] = (*pads)[axes->size() + i];
      }
      pads = full;
    }
  }
  if (!pads || static_cast<int64_t>(pads->size()) != 2 * rank)
    return ctx.fail("pads needs two entries per dimension");
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return ctx.fail("negative pads (cropping) are not supported yet");
  if (mode == "wrap")
    return ctx.fail("Pad mode 'wrap' is not supported yet");
  std::optional<PadMode> padMode = symbolizePadMode(mode);
  if (!padMode)
    return ctx.fail("unknown mode '" + mode + "' (constant, reflect, edge)");
  return ctx.emit<PadOp>(results, ctx.input(0),
                         ctx.builder.getDenseI64ArrayAttr(*pads),
                         PadModeAttr::get(ctx.builder.getContext(), *padMode),
                         ctx.builder.getF64FloatAttr(value));
}

/// DepthToSpace and SpaceToDepth: reshape, transpose, reshape.
LogicalResult importSpaceDepth(NodeContext &ctx,
                               SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (x.getRank() != 4)
    return ctx.fail("the input must be 4-D (NCHW)");
  int64_t b = ctx.intAttr("blocksize", 0);
  int64_t n = x.getDimSize(0), c = x.getDimSize(1), h = x.getDimSize(2),
          w = x.getDimSize(3);
  bool toSpace = ctx.node.op_type() == "DepthToSpace";
  if (b < 1 || (toSpace ? c % (b * b) : (h % b) | (w % b)) != 0)
    return ctx.fail("blocksize " + Twine(b) + " does not divide the input");
  // SpaceToDepth has `mode` from opset 28; DepthToSpace from opset 11.
  std::string mode = ctx.stringAttr("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return ctx.fail("unknown mode '" + mode + "' (expected DCR or CRD)");
  bool crd = mode == "CRD";
  SmallVector<int64_t> first, perm, last;
  if (toSpace) {
    first = crd ? SmallVector<int64_t>{n, c / (b * b), b, b, h, w}
                : SmallVector<int64_t>{n, b, b, c / (b * b), h, w};
    perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
               : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
    last = {n, c / (b * b), h * b, w * b};
  } else {
    // [n, c, h/b, b, w/b, b]: DCR puts the block offsets before the channel,
    // CRD after it.
    first = {n, c, h / b, b, w / b, b};
    perm = crd ? SmallVector<int64_t>{0, 1, 3, 5, 2, 4}
               : SmallVector<int64_t>{0, 3, 5, 1, 2, 4};
    last = {n, c * b * b, h / b, w / b};
  }
  Builder &bld = ctx.builder;
  FailureOr<Value> v =
      ctx.build<ReshapeOp>(ctx.input(0), bld.getDenseI64ArrayAttr(first));
  if (failed(v))
    return failure();
  v = ctx.build<TransposeOp>(*v, bld.getDenseI64ArrayAttr(perm));
  if (failed(v))
    return failure();
  return ctx.emit<ReshapeOp>(results, *v, bld.getDenseI64ArrayAttr(last));
}

LogicalResult importTrilu(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (ctx.inputType(0).getRank() < 2)
    return ctx.fail("the input must have rank >= 2");
  return ctx.emit<TriluOp>(results, ctx.input(0), ctx.input(1),
                           ctx.builder.getBoolAttr(ctx.intAttr("upper", 1)));
}

/// EyeLike: ones on the k-th diagonal of a matrix of the input's shape, as
/// an upper triangle of ones cut to its lower triangle at the same `k`.
LogicalResult importEyeLike(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (x.getRank() != 2)
    return ctx.fail("the input must be 2-D");
  Type element = x.getElementType();
  if (const onnx::AttributeProto *dtype = ctx.attr("dtype")) {
    element = convertElementType(ctx.builder.getContext(), dtype->i());
    if (!element)
      return ctx.fail("unsupported dtype " + elementTypeName(dtype->i()));
  }
  Builder &b = ctx.builder;
  auto type = RankedTensorType::get(x.getShape(), element);
  Attribute one = isa<FloatType>(element)
                      ? Attribute(b.getFloatAttr(element, 1.0))
                      : Attribute(b.getIntegerAttr(element, 1));
  Value ones = ConstantOp::create(ctx.builder, ctx.loc,
                                  DenseElementsAttr::get(type, one));
  Value k;
  if (int64_t diagonal = ctx.intAttr("k", 0))
    k = ConstantOp::create(ctx.builder, ctx.loc, i64Tensor(ctx, {}, {diagonal}));
  FailureOr<Value> upper =
      ctx.build<TriluOp>(ones, k, b.getBoolAttr(true));
  if (failed(upper))
    return failure();
  return ctx.emit<TriluOp>(results, *upper, k, b.getBoolAttr(false));
}

/// NonZero: the indices of the non-zero elements, int64[rank, count]. The
/// count depends on the values, so the input must be a constant (exporters
/// emit NonZero on constant masks); it is computed at import.
LogicalResult importNonZero(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  ElementsAttr value = ctx.constantInput(0);
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!dense)
    return ctx.failNonConstant("NonZero's result shape depends on its input's "
                               "values, which must be a constant",
                               /*firstInput=*/0);
  auto type = cast<RankedTensorType>(dense.getType());
  SmallVector<bool> nonZero;
  if (isa<FloatType>(type.getElementType())) {
    for (const APFloat &v : dense.getValues<APFloat>())
      nonZero.push_back(!v.isZero());
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      nonZero.push_back(!v.isZero());
  }
  int64_t rank = type.getRank(), count = llvm::count(nonZero, true);
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  // Row-major order of the elements, one column per non-zero element.
  SmallVector<int64_t> indices(std::max<int64_t>(rank, 1) * count, 0);
  int64_t column = 0;
  for (auto [linear, isNonZero] : llvm::enumerate(nonZero)) {
    if (!isNonZero)
      continue;
    for (int64_t d = 0; d < rank; ++d)
      indices[d * count + column] =
          (static_cast<int64_t>(linear) / strides[d]) % type.getDimSize(d);
    ++column;
  }
  // A scalar is read as a one-element vector (numpy's nonzero, which ONNX's
  // reference uses): int64[1, count], its index 0.
  SmallVector<int64_t> shape = {std::max<int64_t>(rank, 1), count};
  return ctx.emit<ConstantOp>(results, i64Tensor(ctx, shape, indices));
}

/// OneHot: `depth` is a constant (it decides the shape); `values` may be a
/// graph input.
LogicalResult importOneHot(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  std::optional<double> depth = ctx.constantScalar(1);
  if (!depth)
    return ctx.failNonConstant(
        "depth must be a constant scalar (it decides the result "
        "shape)");
  if (*depth < 1 || *depth > double(int64_t(1) << 40))
    return ctx.fail("depth " + std::to_string(*depth) +
                    " is not in [1, 2^40]");
  RankedTensorType indices = ctx.inputType(0);
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", -1), indices.getRank() + 1);
  if (!axis)
    return ctx.fail("axis is out of range");
  RankedTensorType values = ctx.inputType(2);
  Value valuesInput = ctx.input(2);
  if (values.getNumElements() != 2)
    return ctx.fail("values must hold two elements [off, on]");
  if (values.getRank() != 1) {
    FailureOr<Value> flat = ctx.build<ReshapeOp>(
        valuesInput, ctx.builder.getDenseI64ArrayAttr({2}));
    if (failed(flat))
      return failure();
    valuesInput = *flat;
  }
  Builder &b = ctx.builder;
  return ctx.emit<OneHotOp>(results, ctx.input(0), valuesInput,
                            b.getI64IntegerAttr(static_cast<int64_t>(*depth)),
                            b.getI64IntegerAttr(*axis));
}

LogicalResult importGatherND(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  return ctx.emit<GatherNDOp>(
      results, ctx.input(0), ctx.input(1),
      ctx.builder.getI64IntegerAttr(ctx.intAttr("batch_dims", 0)));
}

/// The `reduction` attribute of ScatterElements and ScatterND, or failure
/// (the node failed) for one Tessel does not know or cannot apply to the
/// input's elements.
FailureOr<ScatterReductionAttr> scatterReduction(NodeContext &ctx) {
  std::string name = ctx.stringAttr("reduction", "none");
  std::optional<ScatterReduction> reduction = symbolizeScatterReduction(name);
  if (!reduction) {
    (void)ctx.fail("unknown reduction '" + name + "'");
    return failure();
  }
  if (*reduction != ScatterReduction::None &&
      ctx.inputType(0).getElementType().isInteger(1)) {
    (void)ctx.fail("reduction '" + name + "' on bool is not supported");
    return failure();
  }
  return ScatterReductionAttr::get(ctx.builder.getContext(), *reduction);
}

/// ScatterElements, and Scatter (its name before opset 11).
LogicalResult importScatterElements(NodeContext &ctx,
                                    SmallVectorImpl<Value> &results) {
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), ctx.inputType(0).getRank());
  if (!axis)
    return ctx.fail("axis is out of range");
  FailureOr<ScatterReductionAttr> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  Builder &b = ctx.builder;
  return ctx.emit<ScatterElementsOp>(results, ctx.input(0), ctx.input(1),
                                     ctx.input(2), b.getI64IntegerAttr(*axis),
                                     *reduction);
}

LogicalResult importScatterND(NodeContext &ctx,
                              SmallVectorImpl<Value> &results) {
  FailureOr<ScatterReductionAttr> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  return ctx.emit<ScatterNDOp>(results, ctx.input(0), ctx.input(1),
                               ctx.input(2), *reduction);
}

/// ReverseSequence: a gather along the time axis at
/// `t < len[b] ? len[b] - 1 - t : t`, the positions computed from the
/// (possibly run-time) sequence lengths with broadcasting ops.
LogicalResult importReverseSequence(NodeContext &ctx,
                                    SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), lens = ctx.inputType(1);
  int64_t rank = x.getRank();
  if (rank < 2)
    return ctx.fail("the input must have rank >= 2");
  int64_t batchAxis = ctx.intAttr("batch_axis", 1);
  int64_t timeAxis = ctx.intAttr("time_axis", 0);
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return ctx.fail("batch_axis and time_axis must be 0 and 1");
  int64_t batch = x.getDimSize(batchAxis), time = x.getDimSize(timeAxis);
  if (lens.getRank() != 1 || lens.getDimSize(0) != batch ||
      !lens.getElementType().isInteger(64))
    return ctx.fail("sequence_lens must be int64 with one entry per batch");
  if (time == 0 || batch == 0) {
    results.push_back(ctx.input(0));
    return success();
  }
  OpBuilder &b = ctx.builder;
  SmallVector<int64_t> timeShape(rank, 1), batchShape(rank, 1);
  timeShape[timeAxis] = time;
  batchShape[batchAxis] = batch;
  Value t = ConstantOp::create(
      b, ctx.loc,
      i64Tensor(ctx, timeShape, llvm::to_vector(llvm::seq<int64_t>(0, time))));
  Value one = ConstantOp::create(b, ctx.loc, i64Tensor(ctx, {}, {1}));
  FailureOr<Value> len =
      ctx.build<ReshapeOp>(ctx.input(1), b.getDenseI64ArrayAttr(batchShape));
  if (failed(len))
    return failure();
  FailureOr<Value> last = ctx.build<SubOp>(*len, one);
  if (failed(last))
    return failure();
  FailureOr<Value> reversed = ctx.build<SubOp>(*last, t);
  FailureOr<Value> inside = ctx.build<LessOp>(t, *len);
  if (failed(reversed) || failed(inside))
    return failure();
  FailureOr<Value> positions = ctx.build<WhereOp>(*inside, *reversed, t);
  if (failed(positions))
    return failure();
  Value full = *positions;
  if (cast<RankedTensorType>(full.getType()).getShape() != x.getShape()) {
    FailureOr<Value> broadcast = ctx.build<BroadcastToOp>(
        full, b.getDenseI64ArrayAttr(x.getShape()));
    if (failed(broadcast))
      return failure();
    full = *broadcast;
  }
  return ctx.emit<GatherElementsOp>(results, ctx.input(0), full,
                                    b.getI64IntegerAttr(timeAxis));
}

} // namespace

void mlir::tessel::onnx_import::registerIndexingImporters(
    ImporterRegistry &registry) {
  registry.add("Shape", importShape, {1, 1});
  registry.add("Size", importSize, {1, 1});
  registry.add("ConstantOfShape", importConstantOfShape, {1, 1}, 9);
  registry.add("Range", importRange, {3, 3}, 11);
  registry.add("Gather", importGather, {2, 2});
  registry.add("GatherElements", importGatherElements, {2, 2}, 11);
  registry.add("Slice", importSlice, {1, 5});
  registry.add("Split", importSplit, {1, 2});
  registry.add("Expand", importExpand, {2, 2}, 8);
  registry.add("Tile", importTile, {2, 2}, 6);
  registry.add("Pad", importPad, {1, 4});
  registry.add("DepthToSpace", importSpaceDepth, {1, 1});
  registry.add("SpaceToDepth", importSpaceDepth, {1, 1});
  registry.add("Trilu", importTrilu, {1, 2}, 14);
  registry.add("EyeLike", importEyeLike, {1, 1}, 9);
  registry.add("OneHot", importOneHot, {3, 3}, 9);
  registry.add("NonZero", importNonZero, {1, 1}, 9);
  registry.add("GatherND", importGatherND, {2, 2}, 11);
  registry.add("Scatter", importScatterElements, {3, 3}, 9, 10);
  registry.add("ScatterElements", importScatterElements, {3, 3}, 11);
  registry.add("ScatterND", importScatterND, {3, 3}, 11);
  registry.add("ReverseSequence", importReverseSequence, {2, 2}, 10);
}
