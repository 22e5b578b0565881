//===- NNImporters.cpp - Gemm, MatMul, Conv, pooling, Softmax -------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

FailureOr<Value> reshape(NodeContext &ctx, Value input,
                         ArrayRef<int64_t> shape) {
  return ctx.build<ReshapeOp>(input, ctx.builder.getDenseI64ArrayAttr(shape));
}

LogicalResult importGemm(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType a = ctx.inputType(0), b = ctx.inputType(1);
  if (a.getRank() != 2 || b.getRank() != 2)
    return ctx.fail("A and B must be 2-D");
  // Checked here because building an op whose type inference fails aborts.
  bool transA = ctx.intAttr("transA", 0) != 0;
  bool transB = ctx.intAttr("transB", 0) != 0;
  RankedTensorType c = ctx.inputType(2);
  if (a.getElementType() != b.getElementType() ||
      (c && c.getElementType() != a.getElementType()))
    return ctx.fail("operand element types differ");
  int64_t m = a.getDimSize(transA ? 1 : 0), ka = a.getDimSize(transA ? 0 : 1);
  int64_t kb = b.getDimSize(transB ? 1 : 0), n = b.getDimSize(transB ? 0 : 1);
  if (ka != kb)
    return ctx.fail("inner dimensions differ: op(A) is " + llvm::Twine(m) +
                    "x" + llvm::Twine(ka) + ", op(B) is " + llvm::Twine(kb) +
                    "x" + llvm::Twine(n));
  // Before opset 7, C broadcasts only with `broadcast = 1`.
  if (c && ctx.opset < 7 && ctx.intAttr("broadcast", 0) == 0 &&
      c.getShape() != ArrayRef<int64_t>{m, n})
    return ctx.fail("C must be " + llvm::Twine(m) + "x" + llvm::Twine(n) +
                    " when 'broadcast' is not set (opset < 7)");
  if (c) {
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes(c.getShape(), {m, n});
    if (c.getRank() > 2 || failed(shape) || (*shape)[0] != m ||
        (*shape)[1] != n)
      return ctx.fail("C does not broadcast to " + llvm::Twine(m) + "x" +
                      llvm::Twine(n));
  }
  Builder &bld = ctx.builder;
  return ctx.emit<GemmOp>(
      results, ctx.input(0), ctx.input(1), ctx.input(2),
      bld.getF32FloatAttr(ctx.floatAttr("alpha", 1.0f)),
      bld.getF32FloatAttr(ctx.floatAttr("beta", 1.0f)),
      bld.getBoolAttr(transA), bld.getBoolAttr(transB));
}

/// ONNX MatMul promotes 1-D operands to matrices and drops the added dim.
LogicalResult importMatMul(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  Value lhs = ctx.input(0), rhs = ctx.input(1);
  RankedTensorType lt = ctx.inputType(0), rt = ctx.inputType(1);
  if (lt.getRank() == 0 || rt.getRank() == 0)
    return ctx.fail("MatMul operands must have rank >= 1");
  if (lt.getElementType() != rt.getElementType())
    return ctx.fail("operand element types differ");
  bool lhsVector = lt.getRank() == 1, rhsVector = rt.getRank() == 1;
  if (lhsVector) {
    FailureOr<Value> matrix = reshape(ctx, lhs, {1, lt.getDimSize(0)});
    if (failed(matrix))
      return failure();
    lhs = *matrix;
  }
  if (rhsVector) {
    FailureOr<Value> matrix = reshape(ctx, rhs, {rt.getDimSize(0), 1});
    if (failed(matrix))
      return failure();
    rhs = *matrix;
  }
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (lhsType.getShape().back() != rhsType.getShape()[rhsType.getRank() - 2])
    return ctx.fail("contracting dimensions differ");
  if (failed(broadcastShapes(lhsType.getShape().drop_back(2),
                             rhsType.getShape().drop_back(2))))
    return ctx.fail("batch dimensions do not broadcast");
  FailureOr<Value> product = ctx.build<MatMulOp>(lhs, rhs);
  if (failed(product))
    return failure();
  if (!lhsVector && !rhsVector) {
    results.push_back(*product);
    return success();
  }
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(product->getType()).getShape());
  if (rhsVector)
    shape.pop_back();
  if (lhsVector)
    shape.erase(shape.end() - (rhsVector ? 1 : 2));
  return ctx.emit<ReshapeOp>(results, *product,
                             ctx.builder.getDenseI64ArrayAttr(shape));
}

/// Reads strides/dilations (default 1) and the pads (explicit or from
/// auto_pad) of a window op over `input` ([N, C, D1, ..., Dk]).
LogicalResult readWindow(NodeContext &ctx, RankedTensorType input,
                         ArrayRef<int64_t> kernel,
                         SmallVectorImpl<int64_t> &strides,
                         SmallVectorImpl<int64_t> &dilations,
                         SmallVectorImpl<int64_t> &pads) {
  if (input.getRank() < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial dimensions]); "
                    "it has rank " +
                    llvm::Twine(input.getRank()));
  size_t k = input.getRank() - 2;
  auto s = ctx.intsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  auto d = ctx.intsAttr("dilations").value_or(SmallVector<int64_t>(k, 1));
  if (kernel.size() != k || s.size() != k || d.size() != k)
    return ctx.fail("kernel_shape, strides and dilations must have " +
                    llvm::Twine(k) + " entries (one per spatial dimension)");
  for (size_t i = 0; i < k; ++i)
    if (kernel[i] < 1 || s[i] < 1 || d[i] < 1)
      return ctx.fail("kernel_shape, strides and dilations must be >= 1");
  strides.assign(s.begin(), s.end());
  dilations.assign(d.begin(), d.end());
  return resolvePads(ctx, input.getShape().drop_front(2), kernel, strides,
                     dilations, pads);
}

/// Checks that the window fits (an invalid model otherwise).
LogicalResult checkWindowFits(NodeContext &ctx, RankedTensorType input,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> pads,
                              ArrayRef<int64_t> dilations, bool ceilMode) {
  size_t k = kernel.size();
  for (size_t i = 0; i < k; ++i)
    if (failed(slidingWindowExtent(input.getDimSize(2 + i), kernel[i],
                                   strides[i], pads[i], pads[k + i],
                                   dilations[i], ceilMode)))
      return ctx.fail("the window does not fit the input");
  return success();
}

/// Checks Conv/ConvTranspose operand ranks and element types, and that a
/// declared kernel_shape matches the weight.
LogicalResult checkConvOperands(NodeContext &ctx) {
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  if (x.getRank() < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial dimensions]); "
                    "it has rank " +
                    llvm::Twine(x.getRank()));
  if (w.getRank() != x.getRank())
    return ctx.fail("input and weight ranks differ");
  if (x.getElementType().isInteger(1))
    return ctx.fail("boolean inputs are not supported");
  if (w.getElementType() != x.getElementType() ||
      (ctx.input(2) && ctx.inputType(2).getElementType() != x.getElementType()))
    return ctx.fail("operand element types differ");
  if (auto declared = ctx.intsAttr("kernel_shape");
      declared && ArrayRef<int64_t>(*declared) != w.getShape().drop_front(2))
    return ctx.fail("kernel_shape does not match the weight's shape");
  return success();
}

LogicalResult importConv(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (failed(checkConvOperands(ctx)))
    return failure();
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  SmallVector<int64_t> strides, dilations, pads;
  if (failed(readWindow(ctx, x, kernel, strides, dilations, pads)))
    return failure();
  int64_t group = ctx.intAttr("group", 1);
  if (group < 1 || x.getDimSize(1) % group != 0 ||
      w.getDimSize(0) % group != 0 || w.getDimSize(1) * group != x.getDimSize(1))
    return ctx.fail("group " + llvm::Twine(group) +
                    " does not match the input and weight channels");
  if (failed(checkWindowFits(ctx, x, kernel, strides, pads, dilations, false)))
    return failure();
  if (Value bias = ctx.input(2)) {
    RankedTensorType bt = ctx.inputType(2);
    if (bt.getRank() != 1 || bt.getDimSize(0) != w.getDimSize(0))
      return ctx.fail("bias must have one element per output channel");
  }
  Builder &b = ctx.builder;
  return ctx.emit<ConvOp>(results, ctx.input(0), ctx.input(1), ctx.input(2),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getI64IntegerAttr(group));
}

/// ConvTranspose: `output_shape` and `auto_pad` become pads as ONNX's
/// reference computes them (total padding split with the larger half at the
/// end for SAME_UPPER, at the beginning otherwise); a negative end pad (an
/// output_shape beyond the full output) becomes output padding.
LogicalResult importConvTranspose(NodeContext &ctx,
                                  SmallVectorImpl<Value> &results) {
  if (failed(checkConvOperands(ctx)))
    return failure();
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("only floating-point inputs are supported");
  size_t k = x.getRank() - 2;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  auto strides = ctx.intsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  auto dilations =
      ctx.intsAttr("dilations").value_or(SmallVector<int64_t>(k, 1));
  auto outputPadding =
      ctx.intsAttr("output_padding").value_or(SmallVector<int64_t>(k, 0));
  if (strides.size() != k || dilations.size() != k ||
      outputPadding.size() != k)
    return ctx.fail("strides, dilations and output_padding must have " +
                    llvm::Twine(k) + " entries (one per spatial dimension)");
  for (size_t i = 0; i < k; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0)
      return ctx.fail("strides and dilations must be >= 1, output_padding "
                      ">= 0");
  int64_t group = ctx.intAttr("group", 1);
  if (group < 1 || x.getDimSize(1) != w.getDimSize(0) ||
      x.getDimSize(1) % group != 0)
    return ctx.fail("group " + llvm::Twine(group) +
                    " does not match the input and weight channels");
  if (Value bias = ctx.input(2)) {
    RankedTensorType bt = ctx.inputType(2);
    if (bt.getRank() != 1 || bt.getDimSize(0) != w.getDimSize(1) * group)
      return ctx.fail("bias must have one element per output channel");
  }

  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return ctx.fail("unknown auto_pad '" + autoPad + "'");
  auto floorDiv2 = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
  SmallVector<int64_t> pads(2 * k, 0);
  std::optional<SmallVector<int64_t>> outputShape =
      ctx.intsAttr("output_shape");
  if (outputShape && outputShape->size() == k + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && outputShape->size() != k)
    return ctx.fail("output_shape must have " + llvm::Twine(k) + " entries");
  if (!outputShape && autoPad.rfind("SAME", 0) == 0) {
    outputShape.emplace();
    for (size_t i = 0; i < k; ++i)
      outputShape->push_back(x.getDimSize(2 + i) * strides[i]);
  }
  if (outputShape) {
    for (size_t i = 0; i < k; ++i) {
      int64_t total = strides[i] * (x.getDimSize(2 + i) - 1) +
                      outputPadding[i] + (kernel[i] - 1) * dilations[i] + 1 -
                      (*outputShape)[i];
      if (autoPad.rfind("SAME", 0) == 0 && !ctx.intsAttr("output_shape"))
        total = std::max<int64_t>(total, 0);
      int64_t half = floorDiv2(total);
      pads[i] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[k + i] = autoPad == "SAME_UPPER" ? total - half : half;
      if (pads[i] < 0)
        return ctx.fail("output_shape needs output before the first input "
                        "position (negative begin padding), which is not "
                        "supported");
      if (pads[k + i] < 0) {
        outputPadding[i] -= pads[k + i];
        pads[k + i] = 0;
      }
    }
  } else if (autoPad == "NOTSET") {
    if (auto explicitPads = ctx.intsAttr("pads")) {
      if (explicitPads->size() != 2 * k)
        return ctx.fail("'pads' has " + llvm::Twine(explicitPads->size()) +
                        " entries, expected " + llvm::Twine(2 * k));
      pads.assign(explicitPads->begin(), explicitPads->end());
    }
    if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return ctx.fail("negative pads are not supported");
  }
  Builder &b = ctx.builder;
  return ctx.emit<ConvTransposeOp>(
      results, ctx.input(0), ctx.input(1), ctx.input(2),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getDenseI64ArrayAttr(outputPadding),
      b.getI64IntegerAttr(group));
}

/// MaxPool's second output, Indices: for each window, the flat index into
/// the input (N, C and the spatial dimensions; the spatial ones in row-major
/// order, or column-major with storage_order = 1) of its maximum, the first
/// in window order on ties, as ONNX's reference. Composed from existing ops:
/// the input and a constant tensor of its indices are padded (with -inf and
/// -1), and each kernel tap is a strided slice of both; a running maximum
/// takes a tap's index where it is strictly greater.
static FailureOr<Value>
buildMaxPoolIndices(NodeContext &ctx, RankedTensorType x, RankedTensorType y,
                    ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  auto refuse = [&](const Twine &why) -> FailureOr<Value> {
    (void)ctx.fail(why);
    return failure();
  };
  if (!isa<FloatType>(x.getElementType()))
    return refuse("MaxPool's Indices output needs a floating-point input");
  if (x.getNumElements() > (int64_t(1) << 24))
    return refuse("MaxPool's Indices output is supported for inputs of up to "
                  "2^24 elements");
  int64_t storageOrder = ctx.intAttr("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return refuse("storage_order must be 0 or 1");
  Builder &b = ctx.builder;
  int64_t rank = x.getRank(), k = rank - 2;
  ArrayRef<int64_t> shape = x.getShape();
  // The flat index of every input element.
  int64_t spatial = 1;
  for (int64_t d = 2; d < rank; ++d)
    spatial *= shape[d];
  SmallVector<int64_t> indices(x.getNumElements());
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t n = 0; n < x.getNumElements(); ++n) {
    int64_t position = 0, stride = 1;
    if (storageOrder == 0) {
      for (int64_t d = rank - 1; d >= 2; --d) {
        position += idx[d] * stride;
        stride *= shape[d];
      }
    } else {
      for (int64_t d = 2; d < rank; ++d) {
        position += idx[d] * stride;
        stride *= shape[d];
      }
    }
    indices[n] = (idx[0] * shape[1] + idx[1]) * spatial + position;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  auto indexType = RankedTensorType::get(shape, b.getI64Type());
  Value flat =
      ConstantOp::create(ctx.builder, ctx.loc,
                         DenseElementsAttr::get(indexType, ArrayRef(indices)));
  // Pad enough at the end for every tap of every window (ceil_mode's last
  // window may reach past the explicit end padding).
  SmallVector<int64_t> padAll(2 * rank, 0);
  for (int64_t i = 0; i < k; ++i) {
    int64_t needed = (y.getDimSize(2 + i) - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
    int64_t padded = shape[2 + i] + pads[i] + pads[k + i];
    padAll[2 + i] = pads[i];
    padAll[rank + 2 + i] = pads[k + i] + std::max<int64_t>(0, needed - padded);
  }
  auto constant = PadModeAttr::get(b.getContext(), PadMode::Constant);
  FailureOr<Value> xPadded = ctx.build<PadOp>(
      ctx.input(0), b.getDenseI64ArrayAttr(padAll), constant,
      b.getF64FloatAttr(-std::numeric_limits<double>::infinity()));
  FailureOr<Value> iPadded =
      ctx.build<PadOp>(flat, b.getDenseI64ArrayAttr(padAll), constant,
                       b.getF64FloatAttr(-1.0));
  if (failed(xPadded) || failed(iPadded))
    return failure();
  SmallVector<int64_t> sizes(y.getShape()), steps(rank, 1);
  for (int64_t i = 0; i < k; ++i)
    steps[2 + i] = strides[i];
  Value best, bestIndex;
  SmallVector<int64_t> tap(k, 0);
  while (true) {
    SmallVector<int64_t> starts(rank, 0);
    for (int64_t i = 0; i < k; ++i)
      starts[2 + i] = tap[i] * dilations[i];
    FailureOr<Value> value = ctx.build<SliceOp>(
        *xPadded, b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(sizes),
        b.getDenseI64ArrayAttr(steps));
    FailureOr<Value> index = ctx.build<SliceOp>(
        *iPadded, b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(sizes),
        b.getDenseI64ArrayAttr(steps));
    if (failed(value) || failed(index))
      return failure();
    if (!best) {
      best = *value;
      bestIndex = *index;
    } else {
      FailureOr<Value> greater = ctx.build<GreaterOp>(*value, best);
      if (failed(greater))
        return failure();
      FailureOr<Value> nextBest = ctx.build<WhereOp>(*greater, *value, best);
      FailureOr<Value> nextIndex =
          ctx.build<WhereOp>(*greater, *index, bestIndex);
      if (failed(nextBest) || failed(nextIndex))
        return failure();
      best = *nextBest;
      bestIndex = *nextIndex;
    }
    int64_t i = k - 1;
    for (; i >= 0; --i) {
      if (++tap[i] < kernel[i])
        break;
      tap[i] = 0;
    }
    if (i < 0)
      break;
  }
  return bestIndex;
}

LogicalResult importMaxPool(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  auto kernel = ctx.intsAttr("kernel_shape");
  if (!kernel)
    return ctx.fail("kernel_shape is required");
  SmallVector<int64_t> strides, dilations, pads;
  if (failed(readWindow(ctx, x, *kernel, strides, dilations, pads)))
    return failure();
  bool ceilMode = ctx.intAttr("ceil_mode", 0) != 0;
  if (failed(checkWindowFits(ctx, x, *kernel, strides, pads, dilations,
                             ceilMode)))
    return failure();
  Builder &b = ctx.builder;
  if (failed(ctx.emit<MaxPoolOp>(
          results, ctx.input(0), b.getDenseI64ArrayAttr(*kernel),
          b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
          b.getDenseI64ArrayAttr(dilations), b.getBoolAttr(ceilMode))))
    return failure();
  if (!ctx.hasOutput(1))
    return success();
  FailureOr<Value> indices =
      buildMaxPoolIndices(ctx, x, cast<RankedTensorType>(results[0].getType()),
                          *kernel, strides, pads, dilations);
  if (failed(indices))
    return failure();
  results.push_back(*indices);
  return success();
}

LogicalResult importAveragePool(NodeContext &ctx,
                                SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  auto kernel = ctx.intsAttr("kernel_shape");
  if (!kernel)
    return ctx.fail("kernel_shape is required");
  SmallVector<int64_t> strides, dilations, pads;
  if (failed(readWindow(ctx, x, *kernel, strides, dilations, pads)))
    return failure();
  bool ceilMode = ctx.intAttr("ceil_mode", 0) != 0;
  if (failed(checkWindowFits(ctx, x, *kernel, strides, pads, dilations,
                             ceilMode)))
    return failure();
  Builder &b = ctx.builder;
  return ctx.emit<AvgPoolOp>(results, ctx.input(0), b.getDenseI64ArrayAttr(*kernel),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getBoolAttr(ceilMode),
      b.getBoolAttr(ctx.intAttr("count_include_pad", 0) != 0));
}

LogicalResult importGlobalAveragePool(NodeContext &ctx,
                                      SmallVectorImpl<Value> &results) {
  if (ctx.inputType(0).getRank() < 3)
    return ctx.fail("input must have rank >= 3");
  return ctx.emit<GlobalAveragePoolOp>(results, ctx.input(0));
}

/// `[a, b, c]`.
std::string shapeString(ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(values, os);
  return text + "]";
}

/// MaxUnpool: the values of X written at the flat positions `I` of the
/// unpooled shape (`(in - 1) * stride - pads + kernel` per spatial
/// dimension), zeros elsewhere, then padded with zeros at the end up to
/// `output_shape` when given, as ONNX's reference does. Composed from
/// reshape, scatter_elements and pad.
LogicalResult importMaxUnpool(NodeContext &ctx,
                              SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), idx = ctx.inputType(1);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("MaxUnpool expects a floating-point input");
  if (!idx.getElementType().isInteger(64) || idx.getShape() != x.getShape())
    return ctx.fail("indices must be int64 with the shape of the input");
  auto kernel = ctx.intsAttr("kernel_shape");
  if (!kernel)
    return ctx.fail("kernel_shape is required");
  int64_t rank = x.getRank();
  if (rank < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial dimensions])");
  size_t k = rank - 2;
  auto strides = ctx.intsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  auto pads = ctx.intsAttr("pads").value_or(SmallVector<int64_t>(2 * k, 0));
  if (kernel->size() != k || strides.size() != k || pads.size() != 2 * k)
    return ctx.fail("kernel_shape and strides need " + llvm::Twine(k) +
                    " entries and pads " + llvm::Twine(2 * k));
  SmallVector<int64_t> shape(x.getShape().take_front(2));
  for (size_t i = 0; i < k; ++i) {
    if ((*kernel)[i] < 1 || strides[i] < 1 || pads[i] < 0 || pads[k + i] < 0)
      return ctx.fail("kernel_shape and strides must be >= 1 and pads >= 0");
    int64_t extent = (x.getDimSize(2 + i) - 1) * strides[i] -
                     (pads[i] + pads[k + i]) + (*kernel)[i];
    if (extent < 1)
      return ctx.fail("the unpooled extent of spatial dimension " +
                      llvm::Twine(i) + " is " + llvm::Twine(extent));
    shape.push_back(extent);
  }
  SmallVector<int64_t> outputShape(shape);
  if (ctx.input(2)) {
    std::optional<SmallVector<int64_t>> given = ctx.constantInts(2);
    if (!given)
      return ctx.failNonConstant("output_shape must be a constant int64 "
                                 "tensor (the output shape depends on it)",
                                 2);
    if (static_cast<int64_t>(given->size()) != rank)
      return ctx.fail("output_shape needs " + llvm::Twine(rank) + " entries");
    for (int64_t i = 0; i < rank; ++i)
      if ((*given)[i] < shape[i])
        return ctx.fail("output_shape " + shapeString(*given) +
                        " is smaller than the unpooled shape " +
                        shapeString(shape));
    outputShape = *given;
  }

  Builder &b = ctx.builder;
  int64_t count = x.getNumElements(), total = 1;
  for (int64_t extent : shape)
    total *= extent;
  auto flatType = RankedTensorType::get({total}, x.getElementType());
  Value zeros = ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(flatType,
                             b.getFloatAttr(x.getElementType(), 0.0)));
  FailureOr<Value> values =
      ctx.build<ReshapeOp>(ctx.input(0), b.getDenseI64ArrayAttr({count}));
  if (failed(values))
    return failure();
  FailureOr<Value> positions =
      ctx.build<ReshapeOp>(ctx.input(1), b.getDenseI64ArrayAttr({count}));
  if (failed(positions))
    return failure();
  FailureOr<Value> scattered = ctx.build<ScatterElementsOp>(
      zeros, *positions, *values, b.getI64IntegerAttr(0),
      ScatterReductionAttr::get(b.getContext(), ScatterReduction::None));
  if (failed(scattered))
    return failure();
  if (outputShape == shape)
    return ctx.emit<ReshapeOp>(results, *scattered,
                               b.getDenseI64ArrayAttr(shape));
  FailureOr<Value> unpooled =
      ctx.build<ReshapeOp>(*scattered, b.getDenseI64ArrayAttr(shape));
  if (failed(unpooled))
    return failure();
  SmallVector<int64_t> padding(rank, 0);
  for (int64_t i = 0; i < rank; ++i)
    padding.push_back(outputShape[i] - shape[i]);
  return ctx.emit<PadOp>(results, *unpooled, b.getDenseI64ArrayAttr(padding),
                         PadModeAttr::get(b.getContext(), PadMode::Constant),
                         b.getF64FloatAttr(0.0));
}

/// GlobalMaxPool: the maximum over the spatial dimensions, kept as extent 1.
LogicalResult importGlobalMaxPool(NodeContext &ctx,
                                  SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (x.getRank() < 3)
    return ctx.fail("input must have rank >= 3");
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("GlobalMaxPool expects a floating-point input");
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(2, x.getRank()));
  return ctx.emit<ReduceMaxOp>(results, ctx.input(0),
                               ctx.builder.getDenseI64ArrayAttr(axes),
                               ctx.builder.getBoolAttr(true));
}

/// Softmax-13 works along one axis; earlier versions coerce the input to 2-D
/// at `axis` and normalise each row, which reshapes around a 2-D softmax.
LogicalResult importSoftmax(NodeContext &ctx,
                            SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("Softmax needs a floating-point input");
  int64_t rank = x.getRank();
  if (rank == 0)
    return ctx.fail("Softmax of a scalar");
  std::optional<int64_t> axis =
      normalizeAxis(ctx.intAttr("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (!axis)
    return ctx.fail("axis is out of range");
  Builder &b = ctx.builder;
  if (ctx.opset >= 13 || *axis == rank - 1) {
    return ctx.emit<SoftmaxOp>(results, ctx.input(0),
                                        b.getI64IntegerAttr(*axis));
  }
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < *axis ? rows : cols) *= x.getDimSize(i);
  FailureOr<Value> flat = reshape(ctx, ctx.input(0), {rows, cols});
  if (failed(flat))
    return failure();
  FailureOr<Value> soft = ctx.build<SoftmaxOp>(*flat, b.getI64IntegerAttr(1));
  if (failed(soft))
    return failure();
  return ctx.emit<ReshapeOp>(results, *soft,
                             b.getDenseI64ArrayAttr(x.getShape()));
}

/// Writes ONNX's Einsum equation in tessel.einsum's explicit form: spaces
/// dropped, each `...` spelled as capital letters the equation does not use
/// (right-aligned, as the ellipsis dimensions broadcast), and the implicit
/// output (ellipsis, then the letters used once, in alphabetical order)
/// written out.
FailureOr<std::string> explicitEquation(NodeContext &ctx,
                                        StringRef equation) {
  std::string text;
  for (char c : equation)
    if (!llvm::isSpace(c))
      text.push_back(c);
  StringRef lhs = text, rhs;
  bool hasOutput = StringRef(text).contains("->");
  if (hasOutput)
    std::tie(lhs, rhs) = StringRef(text).split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ctx.inputs.size())
    return ctx.fail("the equation has " + llvm::Twine(terms.size()) +
                    " input terms for " + llvm::Twine(ctx.inputs.size()) +
                    " inputs");
  for (char c : text)
    if (!llvm::isAlpha(c) && !StringRef(".,->").contains(c))
      return ctx.fail("the equation '" + equation + "' has an invalid "
                      "character '" + llvm::Twine(c) + "'");
  // The ellipsis rank is the widest operand's dimensions it covers.
  int64_t ellipsisRank = 0;
  SmallVector<int64_t> covered;
  for (auto [i, term] : llvm::enumerate(terms)) {
    int64_t rank = ctx.inputType(i).getRank();
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    if (dots != StringRef::npos && term.find("...", dots + 1) !=
                                       StringRef::npos)
      return ctx.fail("term '" + term + "' has more than one ellipsis");
    if (term.count('.') != (dots == StringRef::npos ? 0 : 3) ||
        (dots == StringRef::npos ? letters != rank : letters > rank))
      return ctx.fail("term '" + term + "' does not match input " +
                      llvm::Twine(i) + " of rank " + llvm::Twine(rank));
    covered.push_back(dots == StringRef::npos ? 0 : rank - letters);
    ellipsisRank = std::max(ellipsisRank, covered.back());
  }
  std::string fresh;
  for (char c = 'A'; c <= 'Z' && fresh.size() < size_t(ellipsisRank); ++c)
    if (!StringRef(text).contains(c))
      fresh.push_back(c);
  if (fresh.size() < size_t(ellipsisRank))
    return ctx.fail("the equation leaves too few letters for its ellipsis");
  std::string result;
  std::map<char, int> uses; // ordered: the implicit output is sorted
  for (auto [term, count] : llvm::zip(terms, covered)) {
    if (!result.empty())
      result.push_back(',');
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '.') {
        result += fresh.substr(fresh.size() - count);
        i += 2;
        continue;
      }
      result.push_back(term[i]);
      ++uses[term[i]];
    }
  }
  result += "->";
  if (hasOutput) {
    if (rhs.count('.') != 0 && rhs.count('.') != 3)
      return ctx.fail("the output term '" + rhs + "' has an invalid ellipsis");
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs[i] == '.') {
        result += fresh;
        i += 2;
        continue;
      }
      result.push_back(rhs[i]);
    }
    return result;
  }
  result += fresh;
  for (auto [letter, count] : uses)
    if (count == 1)
      result.push_back(letter);
  return result;
}

LogicalResult importEinsum(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  FailureOr<std::string> equation =
      explicitEquation(ctx, ctx.stringAttr("equation", ""));
  if (failed(equation))
    return failure();
  return ctx.emit<EinsumOp>(results, ValueRange(ctx.inputs),
                            ctx.builder.getStringAttr(*equation));
}

} // namespace

LogicalResult mlir::tessel::onnx_import::importConvolution(
    NodeContext &ctx, SmallVectorImpl<Value> &results) {
  return importConv(ctx, results);
}

void mlir::tessel::onnx_import::registerNNImporters(
    ImporterRegistry &registry) {
  registry.add("Gemm", importGemm, {2, 3});
  registry.add("MatMul", importMatMul, {2, 2});
  registry.add("Einsum", importEinsum, {1, kVariadic}, 12);
  registry.add("Conv", importConvolution, {2, 3});
  registry.add("ConvTranspose", importConvTranspose, {2, 3});
  registry.add("MaxPool", importMaxPool, {1, 1});
  registry.add("AveragePool", importAveragePool, {1, 1});
  registry.add("GlobalAveragePool", importGlobalAveragePool, {1, 1});
  registry.add("GlobalMaxPool", importGlobalMaxPool, {1, 1});
  registry.add("MaxUnpool", importMaxUnpool, {2, 3}, 9);
  registry.add("Softmax", importSoftmax, {1, 1});
}
