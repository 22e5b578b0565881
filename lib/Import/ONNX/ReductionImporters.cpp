//===- ReductionImporters.cpp - Reduce* and ArgMax/ArgMin -----------------===//
//
// ONNX's ten Reduce* ops each import as the tessel op of the same name with
// normalised axes: non-negative, sorted, without duplicates. Empty axes mean
// all axes, unless noop_with_empty_axes asks to reduce nothing. Axes are
// an attribute before opset 13 (ReduceSum) or 18 (the others), a constant
// input from then on.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// How a reduction's operands may look.
struct ReductionTraits {
  /// The first opset that takes axes as input 1 instead of an attribute.
  int64_t axesInputOpset;
  /// Floating point only (the formula takes a sqrt, log or exp).
  bool floatOnly;
  /// Accepts bool inputs (ReduceMax/ReduceMin from opset 20).
  bool allowBool;
};

/// Reads the axes, or nullopt when there are none; fails the node when they
/// exist but cannot be known at compile time.
FailureOr<std::optional<SmallVector<int64_t>>>
readReductionAxes(NodeContext &ctx, int64_t axesInputOpset) {
  if (ctx.opset < axesInputOpset) {
    if (ctx.input(1))
      return ctx.fail("axes is an attribute before opset " +
                      llvm::Twine(axesInputOpset) + ", not an input");
    return std::optional<SmallVector<int64_t>>(ctx.intsAttr("axes"));
  }
  if (ctx.attr("axes"))
    return ctx.fail("axes is an input from opset " +
                    llvm::Twine(axesInputOpset) + ", not an attribute");
  if (!ctx.input(1))
    return std::optional<SmallVector<int64_t>>();
  if (std::optional<SmallVector<int64_t>> axes = ctx.constantInts(1))
    return std::optional<SmallVector<int64_t>>(*axes);
  // A non-constant axes input of static extent 0 is known to be empty.
  RankedTensorType axesType = ctx.inputType(1);
  if (axesType.getNumElements() == 0)
    return std::optional<SmallVector<int64_t>>(SmallVector<int64_t>());
  return ctx.failNonConstant(
      "axes must be a constant (an initializer or Constant "
      "node); Tessel needs them to know the result's shape");
}

template <typename OpTy> NodeImportFn reduction(ReductionTraits traits) {
  return [traits](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    RankedTensorType x = ctx.inputType(0);
    Type element = x.getElementType();
    if (traits.floatOnly && !isa<FloatType>(element))
      return ctx.fail("needs a floating-point input");
    if (element.isInteger(1) && !traits.allowBool)
      return ctx.fail("bool inputs are not supported");
    FailureOr<std::optional<SmallVector<int64_t>>> read =
        readReductionAxes(ctx, traits.axesInputOpset);
    if (failed(read))
      return failure();
    bool noop = ctx.opset >= traits.axesInputOpset &&
                ctx.intAttr("noop_with_empty_axes", 0) != 0;
    // With noop_with_empty_axes and no axes, nothing is reduced but the
    // per-element formula still applies (|x| for ReduceL1, x * x for
    // ReduceSumSquare), as onnxruntime and the ONNX reference compute it:
    // the op with empty axes. Without it, no axes means all axes.
    bool noAxes = !*read || (*read)->empty();
    SmallVector<int64_t> axes;
    if (noAxes && !noop)
      for (int64_t d = 0; d < x.getRank(); ++d)
        axes.push_back(d);
    if (!noAxes) {
      for (int64_t a : **read) {
        std::optional<int64_t> axis = normalizeAxis(a, x.getRank());
        if (!axis)
          return ctx.fail("axis " + llvm::Twine(a) +
                          " is out of range for rank " +
                          llvm::Twine(x.getRank()));
        if (llvm::is_contained(axes, *axis))
          return ctx.fail("axis " + llvm::Twine(a) + " is repeated");
        axes.push_back(*axis);
      }
      llvm::sort(axes);
    }
    Builder &b = ctx.builder;
    return ctx.emit<OpTy>(results, ctx.input(0), b.getDenseI64ArrayAttr(axes),
                          b.getBoolAttr(ctx.intAttr("keepdims", 1) != 0));
  };
}

template <typename OpTy>
LogicalResult importArgReduction(NodeContext &ctx,
                                 SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (x.getElementType().isInteger(1))
    return ctx.fail("bool inputs are not supported");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", 0), x.getRank());
  if (!axis || x.getRank() == 0)
    return ctx.fail("axis " + llvm::Twine(ctx.intAttr("axis", 0)) +
                    " is out of range for rank " + llvm::Twine(x.getRank()));
  Builder &b = ctx.builder;
  return ctx.emit<OpTy>(
      results, ctx.input(0), b.getI64IntegerAttr(*axis),
      b.getBoolAttr(ctx.intAttr("keepdims", 1) != 0),
      b.getBoolAttr(ctx.opset >= 12 && ctx.intAttr("select_last_index", 0)));
}

/// CumSum: the axis is a scalar input; it may be a graph input, since it
/// does not change the shape.
LogicalResult importCumSum(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), axisType = ctx.inputType(1);
  if (x.getElementType().isInteger(1))
    return ctx.fail("CumSum expects numbers, not bool");
  if (x.getRank() == 0)
    return ctx.fail("CumSum of a scalar");
  if (axisType.getNumElements() != 1 || axisType.getRank() > 1)
    return ctx.fail("the axis must be one integer");
  if (std::optional<SmallVector<int64_t>> axis = ctx.constantInts(1))
    if (!normalizeAxis(axis->front(), x.getRank()))
      return ctx.fail("axis " + Twine(axis->front()) +
                      " is out of range for rank " + Twine(x.getRank()));
  Builder &b = ctx.builder;
  return ctx.emit<CumSumOp>(
      results, ctx.input(0), ctx.input(1),
      ctx.intAttr("exclusive", 0) ? b.getUnitAttr() : UnitAttr(),
      ctx.intAttr("reverse", 0) ? b.getUnitAttr() : UnitAttr());
}

/// TopK: `k` is an attribute before opset 10, then a constant input (it
/// decides the result shape). The results are always sorted, which
/// `sorted = 0` (any order) allows.
LogicalResult importTopK(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (x.getElementType().isInteger(1))
    return ctx.fail("TopK expects numbers, not bool");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", -1), x.getRank());
  if (!axis)
    return ctx.fail("axis " + Twine(ctx.intAttr("axis", -1)) +
                    " is out of range for rank " + Twine(x.getRank()));
  int64_t k;
  if (ctx.opset < 10) {
    if (!ctx.attr("k"))
      return ctx.fail("the 'k' attribute is missing");
    k = ctx.intAttr("k", 0);
  } else {
    std::optional<SmallVector<int64_t>> kValue = ctx.constantInts(1);
    if (!ctx.input(1) || !kValue || kValue->size() != 1)
      return ctx.failNonConstant(
          "k must be a constant integer (it decides the result "
          "shape)");
    k = kValue->front();
  }
  if (k < 0 || k > x.getDimSize(*axis))
    return ctx.fail("k = " + Twine(k) + " is not in [0, " +
                    Twine(x.getDimSize(*axis)) + "]");
  Builder &b = ctx.builder;
  FailureOr<SmallVector<Value>> outputs = ctx.buildResults<TopKOp>(
      2, ctx.input(0), b.getI64IntegerAttr(*axis), b.getI64IntegerAttr(k),
      b.getBoolAttr(ctx.intAttr("largest", 1) != 0));
  if (failed(outputs))
    return failure();
  results.append(outputs->begin(), outputs->end());
  return success();
}

} // namespace

void mlir::tessel::onnx_import::registerReductionImporters(
    ImporterRegistry &registry) {
  registry.add("ReduceSum", reduction<ReduceSumOp>({13, false, false}), {1, 2});
  registry.add("ReduceMean", reduction<ReduceMeanOp>({18, false, false}),
               {1, 2});
  registry.add("ReduceMax", reduction<ReduceMaxOp>({18, false, true}), {1, 2});
  registry.add("ReduceMin", reduction<ReduceMinOp>({18, false, true}), {1, 2});
  registry.add("ReduceProd", reduction<ReduceProdOp>({18, false, false}),
               {1, 2});
  registry.add("ReduceL1", reduction<ReduceL1Op>({18, false, false}), {1, 2});
  registry.add("ReduceL2", reduction<ReduceL2Op>({18, true, false}), {1, 2});
  registry.add("ReduceLogSum", reduction<ReduceLogSumOp>({18, true, false}),
               {1, 2});
  registry.add("ReduceLogSumExp",
               reduction<ReduceLogSumExpOp>({18, true, false}), {1, 2});
  registry.add("ReduceSumSquare",
               reduction<ReduceSumSquareOp>({18, false, false}), {1, 2});
  registry.add("ArgMax", importArgReduction<ArgMaxOp>, {1, 1});
  registry.add("ArgMin", importArgReduction<ArgMinOp>, {1, 1});
  registry.add("CumSum", importCumSum, {2, 2}, 11);
  registry.add("TopK", importTopK, {1, 2});
}
