//===- NNImporters.cpp - Gemm, MatMul, Conv, pooling, Softmax -------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

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

/// Reads kernel_shape/strides/dilations for a 2-D window op.
LogicalResult readWindow(NodeContext &ctx, RankedTensorType input,
                         SmallVector<int64_t> kernel,
                         SmallVectorImpl<int64_t> &strides,
                         SmallVectorImpl<int64_t> &dilations,
                         SmallVectorImpl<int64_t> &pads) {
  if (input.getRank() != 4)
    return ctx.fail("only 1-D and 2-D spatial inputs are supported; input has "
                    "rank " +
                    llvm::Twine(input.getRank()));
  auto s = ctx.intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  auto d = ctx.intsAttr("dilations").value_or(SmallVector<int64_t>{1, 1});
  if (kernel.size() != 2 || s.size() != 2 || d.size() != 2)
    return ctx.fail("kernel_shape, strides and dilations must have 2 entries");
  for (int i = 0; i < 2; ++i)
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
  for (int i = 0; i < 2; ++i)
    if (failed(slidingWindowExtent(input.getDimSize(2 + i), kernel[i],
                                   strides[i], pads[i], pads[2 + i],
                                   dilations[i], ceilMode)))
      return ctx.fail("the window does not fit the input");
  return success();
}

LogicalResult importConv(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  if (w.getRank() != x.getRank())
    return ctx.fail("input and weight ranks differ");
  if (x.getRank() != 4)
    return ctx.fail("only 1-D and 2-D spatial inputs are supported; input has "
                    "rank " +
                    llvm::Twine(x.getRank()));
  if (w.getElementType() != x.getElementType() ||
      (ctx.input(2) && ctx.inputType(2).getElementType() != x.getElementType()))
    return ctx.fail("operand element types differ");
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (auto declared = ctx.intsAttr("kernel_shape"); declared &&
                                                    *declared != kernel)
    return ctx.fail("kernel_shape does not match the weight's shape");
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
  return ctx.emit<Conv2DOp>(results, ctx.input(0), ctx.input(1), ctx.input(2),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getI64IntegerAttr(group));
}

LogicalResult importMaxPool(NodeContext &ctx,
                            SmallVectorImpl<Value> &results) {
  if (ctx.hasOutput(1))
    return ctx.fail("MaxPool's Indices output is not supported yet");
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
  return ctx.emit<MaxPool2DOp>(results, ctx.input(0), b.getDenseI64ArrayAttr(*kernel),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilations), b.getBoolAttr(ceilMode));
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
  if (dilations[0] != 1 || dilations[1] != 1)
    return ctx.fail("dilated AveragePool is not supported yet");
  bool ceilMode = ctx.intAttr("ceil_mode", 0) != 0;
  if (failed(checkWindowFits(ctx, x, *kernel, strides, pads, dilations,
                             ceilMode)))
    return failure();
  Builder &b = ctx.builder;
  return ctx.emit<AvgPool2DOp>(results, ctx.input(0), b.getDenseI64ArrayAttr(*kernel),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(pads),
      b.getBoolAttr(ceilMode),
      b.getBoolAttr(ctx.intAttr("count_include_pad", 0) != 0));
}

LogicalResult importGlobalAveragePool(NodeContext &ctx,
                                      SmallVectorImpl<Value> &results) {
  if (ctx.inputType(0).getRank() < 3)
    return ctx.fail("input must have rank >= 3");
  return ctx.emit<GlobalAveragePoolOp>(results, ctx.input(0));
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

/// A 1-D window op (Conv, MaxPool, AveragePool on [N, C, W]) runs as its
/// 2-D form on [N, C, 1, W]: the inputs gain a unit height, the spatial
/// attributes a leading entry for it (kernel 1, stride 1, no padding), and
/// the result loses the height again.
NodeImportFn as2D(NodeImportFn importer2D) {
  return [importer2D](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (ctx.inputType(0).getRank() != 3)
      return importer2D(ctx, results);
    // Every tensor input of these ops with a spatial extent (x, and Conv's
    // weight) gets the unit height; Conv's bias (1-D) stays.
    SmallVector<Value> inputs;
    for (auto [i, v] : llvm::enumerate(ctx.inputs)) {
      RankedTensorType t = v ? dyn_cast<RankedTensorType>(v.getType())
                             : RankedTensorType();
      if (!t || t.getRank() != 3) {
        inputs.push_back(v);
        continue;
      }
      FailureOr<Value> raised = reshape(
          ctx, v, {t.getDimSize(0), t.getDimSize(1), 1, t.getDimSize(2)});
      if (failed(raised))
        return failure();
      inputs.push_back(*raised);
    }
    onnx::NodeProto node = ctx.node;
    for (onnx::AttributeProto &a : *node.mutable_attribute()) {
      auto prepend = [&](int64_t value) {
        auto *ints = a.mutable_ints();
        ints->Add(value);
        std::rotate(ints->begin(), ints->end() - 1, ints->end());
      };
      if (a.name() == "kernel_shape" || a.name() == "strides" ||
          a.name() == "dilations") {
        prepend(1);
      } else if (a.name() == "pads" && a.ints_size() == 2) {
        int64_t begin = a.ints(0), end = a.ints(1);
        a.clear_ints();
        for (int64_t v : {int64_t(0), begin, int64_t(0), end})
          a.add_ints(v);
      }
    }
    NodeContext ctx2D(ctx.builder, ctx.loc, node, inputs, ctx.opset);
    SmallVector<Value> results2D;
    if (failed(importer2D(ctx2D, results2D))) {
      ctx.failure = ctx2D.failure;
      return failure();
    }
    auto type = cast<RankedTensorType>(results2D.front().getType());
    return ctx.emit<ReshapeOp>(
        results, results2D.front(),
        ctx.builder.getDenseI64ArrayAttr(
            {type.getDimSize(0), type.getDimSize(1), type.getDimSize(3)}));
  };
}

} // namespace

void mlir::tessel::onnx_import::registerNNImporters(
    ImporterRegistry &registry) {
  registry.add("Gemm", importGemm, {2, 3});
  registry.add("MatMul", importMatMul, {2, 2});
  registry.add("Conv", as2D(importConv), {2, 3});
  registry.add("MaxPool", as2D(importMaxPool), {1, 1});
  registry.add("AveragePool", as2D(importAveragePool), {1, 1});
  registry.add("GlobalAveragePool", importGlobalAveragePool, {1, 1});
  registry.add("GlobalMaxPool", importGlobalMaxPool, {1, 1});
  registry.add("Softmax", importSoftmax, {1, 1});
}
