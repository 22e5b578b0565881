//===- QuantizationImporters.cpp - Quantize, dequantize, integer compute --===//
//
// ONNX's linear quantization is composed at import from ops Tessel has:
//   QuantizeLinear    y = clip(round_half_even(x / scale) + zp, qmin, qmax)
//   DequantizeLinear  y = (x - zp) * scale
//   MatMulInteger, ConvInteger: the i32 product of (a - a_zp) and (b - b_zp)
//   QLinearMatMul, QLinearConv: that product requantized with
//                     a_scale * b_scale / y_scale, rounded, y_zp added, clipped
// Scales and zero points may be graph inputs. A per-axis parameter (1-D, one
// entry per channel of `axis`) is reshaped to broadcast along that axis.
// The requantization multiplies in f64, as the ONNX reference does: an i32
// accumulator converts exactly, and halves round the same way (the zero
// point added before rounding, as the reference does there).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// The range of an integer quantized type (8 or 16 bits, either sign).
std::optional<std::pair<double, double>> quantizedRange(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || (intType.getWidth() != 8 && intType.getWidth() != 16))
    return std::nullopt;
  double span = std::ldexp(1.0, intType.getWidth());
  if (intType.isUnsigned())
    return std::make_pair(0.0, span - 1);
  return std::make_pair(-span / 2, span / 2 - 1);
}

FailureOr<Value> castTo(NodeContext &ctx, Value v, Type to) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == to)
    return v;
  return ctx.build<CastOp>(v, TypeAttr::get(to));
}

/// A scale or zero point made to broadcast against a tensor of rank `rank`
/// quantized along `axis`: one element becomes a scalar, a 1-D parameter
/// `[C]` becomes `[C, 1, ...]` with a 1 for each dimension after `axis`.
FailureOr<Value> alignParameter(NodeContext &ctx, Value param,
                                ArrayRef<int64_t> shape, int64_t axis,
                                StringRef what) {
  auto type = cast<RankedTensorType>(param.getType());
  if (type.getNumElements() == 1 && type.getRank() == 0)
    return param;
  if (type.getNumElements() == 1 && type.getRank() == 1)
    return ctx.build<ReshapeOp>(param, ctx.builder.getDenseI64ArrayAttr({}));
  int64_t rank = shape.size();
  if (type.getRank() != 1 || axis < 0 || axis >= rank ||
      type.getDimSize(0) != shape[axis]) {
    (void)ctx.fail(what + " must have one element, or one per entry of the "
                          "axis (in range; blocked quantization is not "
                          "supported)");
    return failure();
  }
  SmallVector<int64_t> aligned = {type.getDimSize(0)};
  aligned.append(rank - axis - 1, 1);
  if (aligned.size() == 1)
    return param;
  return ctx.build<ReshapeOp>(param, ctx.builder.getDenseI64ArrayAttr(aligned));
}

/// The node's axis attribute normalised against `rank`, or -1 when out of
/// range: it only matters for per-axis parameters, which then fail.
int64_t quantizationAxis(NodeContext &ctx, int64_t rank) {
  return normalizeAxis(ctx.intAttr("axis", 1), rank).value_or(-1);
}

/// round_half_even(value) + zeroPoint (or, with `offsetFirst`,
/// round_half_even(value + zeroPoint)), clipped to `to`'s range and
/// converted to it; `value` and `zeroPoint` (null when absent) are floating
/// point of one type. The order matters at halves: an odd zero point flips
/// which neighbour is even. The ONNX reference rounds first in
/// QuantizeLinear and DynamicQuantizeLinear, and adds first in QLinearMatMul
/// and QLinearConv.
FailureOr<Value> roundToQuantized(NodeContext &ctx, Value value,
                                  Value zeroPoint, Type to,
                                  bool offsetFirst = false) {
  std::optional<std::pair<double, double>> range = quantizedRange(to);
  assert(range && "the caller checked the quantized type");
  FailureOr<Value> q = value;
  if (offsetFirst && zeroPoint)
    q = ctx.build<AddOp>(*q, zeroPoint);
  if (succeeded(q))
    q = ctx.build<RoundOp>(*q);
  if (succeeded(q) && zeroPoint && !offsetFirst)
    q = ctx.build<AddOp>(*q, zeroPoint);
  if (failed(q))
    return failure();
  Builder &b = ctx.builder;
  q = ctx.build<ClipOp>(*q, b.getF64FloatAttr(range->first),
                        b.getF64FloatAttr(range->second));
  if (failed(q))
    return failure();
  return castTo(ctx, *q, to);
}

/// The computation type of quantization arithmetic: f64 stays, every other
/// float computes in f32.
Type computeType(NodeContext &ctx, Type element) {
  return element.isF64() ? element : ctx.builder.getF32Type();
}

LogicalResult importQuantizeLinear(NodeContext &ctx,
                                   SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("x must be floating point");
  if (ctx.intAttr("block_size", 0) != 0)
    return ctx.fail("blocked quantization (block_size) is not supported");
  // From opset 23, x and y_scale may differ in type and `precision` names
  // the type of the division; Tessel divides in x's (= y_scale's) type.
  if (ctx.inputType(1).getElementType() != x.getElementType())
    return ctx.fail("x and y_scale of different types are not supported");
  if (const onnx::AttributeProto *precision = ctx.attr("precision");
      precision && precision->i() != 0 &&
      convertElementType(ctx.builder.getContext(), precision->i()) !=
          x.getElementType())
    return ctx.fail("precision " + elementTypeName(precision->i()) +
                    " differs from x's type");
  Value zp = ctx.input(2);
  Type to = zp ? ctx.inputType(2).getElementType()
               : IntegerType::get(ctx.builder.getContext(), 8,
                                  IntegerType::Unsigned);
  if (const onnx::AttributeProto *outputType = ctx.attr("output_dtype");
      outputType && outputType->i() != 0) {
    Type declared =
        convertElementType(ctx.builder.getContext(), outputType->i());
    if (!declared || (zp && declared != to))
      return ctx.fail("output_dtype " + elementTypeName(outputType->i()) +
                      " is unsupported or differs from the zero point's type");
    to = declared;
  }
  if (!quantizedRange(to))
    return ctx.fail("only 8- and 16-bit integer quantization is supported");
  int64_t axis = quantizationAxis(ctx, x.getRank());
  FailureOr<Value> scale =
      alignParameter(ctx, ctx.input(1), x.getShape(), axis, "y_scale");
  if (failed(scale))
    return failure();
  // x / scale in x's own type, as the reference computes it.
  FailureOr<Value> scaled = ctx.build<DivOp>(ctx.input(0), *scale);
  if (failed(scaled))
    return failure();
  Type compute = computeType(ctx, x.getElementType());
  if (failed(scaled = castTo(ctx, *scaled, compute)))
    return failure();
  Value zeroPoint;
  if (zp) {
    FailureOr<Value> aligned =
        alignParameter(ctx, zp, x.getShape(), axis, "y_zero_point");
    if (failed(aligned) || failed(aligned = castTo(ctx, *aligned, compute)))
      return failure();
    zeroPoint = *aligned;
  }
  FailureOr<Value> y = roundToQuantized(ctx, *scaled, zeroPoint, to);
  if (failed(y))
    return failure();
  results.push_back(*y);
  return success();
}

LogicalResult importDequantizeLinear(NodeContext &ctx,
                                     SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  Type output = ctx.inputType(1).getElementType();
  auto intType = dyn_cast<IntegerType>(x.getElementType());
  if (!intType || intType.getWidth() == 1 || intType.getWidth() > 32 ||
      !isa<FloatType>(output))
    return ctx.fail("x must be an integer of at most 32 bits and x_scale "
                    "floating point");
  if (ctx.intAttr("block_size", 0) != 0)
    return ctx.fail("blocked quantization (block_size) is not supported");
  if (const onnx::AttributeProto *outputType = ctx.attr("output_dtype");
      outputType && outputType->i() != 0 &&
      convertElementType(ctx.builder.getContext(), outputType->i()) != output)
    return ctx.fail("output_dtype differs from x_scale's type");
  int64_t axis = quantizationAxis(ctx, x.getRank());
  // 8- and 16-bit values are exact in f32; int32 ones compute in f64, as the
  // reference's float32 - int32 promotes to float64.
  Type compute = intType.getWidth() > 16 ? ctx.builder.getF64Type()
                                         : computeType(ctx, output);
  FailureOr<Value> dx = castTo(ctx, ctx.input(0), compute);
  if (failed(dx))
    return failure();
  if (Value zp = ctx.input(2)) {
    FailureOr<Value> aligned =
        alignParameter(ctx, zp, x.getShape(), axis, "x_zero_point");
    if (failed(aligned) || failed(aligned = castTo(ctx, *aligned, compute)) ||
        failed(dx = ctx.build<SubOp>(*dx, *aligned)))
      return failure();
  }
  FailureOr<Value> scale =
      alignParameter(ctx, ctx.input(1), x.getShape(), axis, "x_scale");
  if (failed(scale) || failed(scale = castTo(ctx, *scale, compute)))
    return failure();
  FailureOr<Value> y = ctx.build<MulOp>(*dx, *scale);
  if (failed(y) || failed(y = castTo(ctx, *y, output)))
    return failure();
  results.push_back(*y);
  return success();
}

/// A rank-0 f32 constant.
Value f32Constant(NodeContext &ctx, float value) {
  auto type = RankedTensorType::get({}, ctx.builder.getF32Type());
  return ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(type, ctx.builder.getF32FloatAttr(value)));
}

/// uint8 quantization with a scale and zero point that cover [min(x, 0),
/// max(x, 0)].
LogicalResult importDynamicQuantizeLinear(NodeContext &ctx,
                                          SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!x.getElementType().isF32())
    return ctx.fail("x must be float32");
  Builder &b = ctx.builder;
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < x.getRank(); ++d)
    all.push_back(d);
  Value zero = f32Constant(ctx, 0.0f);
  FailureOr<Value> high = ctx.build<ReduceMaxOp>(
      ctx.input(0), b.getDenseI64ArrayAttr(all), b.getBoolAttr(false));
  FailureOr<Value> low = ctx.build<ReduceMinOp>(
      ctx.input(0), b.getDenseI64ArrayAttr(all), b.getBoolAttr(false));
  if (failed(high) || failed(low) ||
      failed(high = ctx.build<MaxOp>(*high, zero)) ||
      failed(low = ctx.build<MinOp>(*low, zero)))
    return failure();
  // scale = (max - min) / 255, or 1 / 255 when the range is empty.
  FailureOr<Value> span = ctx.build<SubOp>(*high, *low);
  FailureOr<Value> empty =
      succeeded(span) ? ctx.build<EqualOp>(*span, zero) : span;
  if (failed(empty) ||
      failed(span = ctx.build<WhereOp>(*empty, f32Constant(ctx, 1.0f), *span)))
    return failure();
  FailureOr<Value> scale = ctx.build<DivOp>(*span, f32Constant(ctx, 255.0f));
  if (failed(scale))
    return failure();
  // zero point = round(clip(0 - min / scale, 0, 255)).
  FailureOr<Value> zp = ctx.build<DivOp>(*low, *scale);
  if (failed(zp) || failed(zp = ctx.build<NegOp>(*zp)) ||
      failed(zp = ctx.build<ClipOp>(*zp, b.getF64FloatAttr(0.0),
                                    b.getF64FloatAttr(255.0))) ||
      failed(zp = ctx.build<RoundOp>(*zp)))
    return failure();
  Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  FailureOr<Value> scaled = ctx.build<DivOp>(ctx.input(0), *scale);
  if (failed(scaled))
    return failure();
  FailureOr<Value> y = roundToQuantized(ctx, *scaled, *zp, u8);
  FailureOr<Value> zpOut = castTo(ctx, *zp, u8);
  if (failed(y) || failed(zpOut))
    return failure();
  results.append({*y, *scale, *zpOut});
  return success();
}

/// `x` as i32 with `zeroPoint` (null when absent) subtracted; the zero point
/// is first aligned along `axis` of x's shape.
FailureOr<Value> centered(NodeContext &ctx, Value x, Value zeroPoint,
                          int64_t axis, StringRef what) {
  auto type = cast<RankedTensorType>(x.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType || intType.getWidth() != 8)
    {
      (void)ctx.fail("the quantized operands must be int8 or uint8");
      return failure();
    }
  Type i32 = ctx.builder.getI32Type();
  FailureOr<Value> wide = castTo(ctx, x, i32);
  if (failed(wide) || !zeroPoint)
    return wide;
  if (cast<RankedTensorType>(zeroPoint.getType()).getElementType() != intType)
    {
      (void)ctx.fail(what + " has a different type from its operand");
      return failure();
    }
  FailureOr<Value> zp = alignParameter(ctx, zeroPoint, type.getShape(), axis,
                                       what);
  if (failed(zp) || failed(zp = castTo(ctx, *zp, i32)))
    return failure();
  return ctx.build<SubOp>(*wide, *zp);
}

/// The i32 product of the centered operands of a MatMul: (a - a_zp) x
/// (b - b_zp). A per-row a_zp is along A's rows, a per-column b_zp along B's
/// columns.
FailureOr<Value> integerMatMul(NodeContext &ctx, Value a, Value aZp, Value b,
                               Value bZp) {
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  if (at.getRank() < 2 || bt.getRank() < 2)
    {
      (void)ctx.fail("1-D operands are not supported");
      return failure();
    }
  FailureOr<Value> lhs = centered(ctx, a, aZp, at.getRank() - 2, "a_zero_point");
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = centered(ctx, b, bZp, bt.getRank() - 1, "b_zero_point");
  if (failed(rhs))
    return failure();
  return ctx.build<MatMulOp>(*lhs, *rhs);
}

LogicalResult importMatMulInteger(NodeContext &ctx,
                                  SmallVectorImpl<Value> &results) {
  FailureOr<Value> product = integerMatMul(ctx, ctx.input(0), ctx.input(2),
                                           ctx.input(1), ctx.input(3));
  if (failed(product))
    return failure();
  results.push_back(*product);
  return success();
}

/// The i32 convolution of the centered x and w (and an i32 bias), with the
/// node's window attributes.
FailureOr<Value> integerConv(NodeContext &ctx, Value x, Value xZp, Value w,
                             Value wZp, Value bias) {
  auto xt = cast<RankedTensorType>(x.getType());
  if (xt.getRank() < 3)
    {
      (void)ctx.fail("input must have rank >= 3 ([N, C, spatial dimensions])");
      return failure();
    }
  if (xZp && cast<RankedTensorType>(xZp.getType()).getNumElements() != 1)
    {
      (void)ctx.fail("x_zero_point must have one element");
      return failure();
    }
  FailureOr<Value> input = centered(ctx, x, xZp, 0, "x_zero_point");
  if (failed(input))
    return failure();
  FailureOr<Value> weight = centered(ctx, w, wZp, 0, "w_zero_point");
  if (failed(weight))
    return failure();
  SmallVector<Value> inputs = {*input, *weight};
  if (bias)
    inputs.push_back(bias);
  NodeContext convCtx(ctx.builder, ctx.loc, ctx.node, inputs, ctx.opset);
  SmallVector<Value> conv;
  if (failed(importConvolution(convCtx, conv))) {
    (void)ctx.fail(convCtx.failure, convCtx.failureCode);
    return failure();
  }
  return conv.front();
}

LogicalResult importConvInteger(NodeContext &ctx,
                                SmallVectorImpl<Value> &results) {
  FailureOr<Value> conv = integerConv(ctx, ctx.input(0), ctx.input(2),
                                      ctx.input(1), ctx.input(3), Value());
  if (failed(conv))
    return failure();
  results.push_back(*conv);
  return success();
}

/// Requantizes the i32 `acc` by `aScale * bScale / yScale` to `to`, adding
/// `yZp`: the input and output scales have one element, the weight scale
/// one or one per entry of the accumulator's `bAxis`.
LogicalResult requantize(NodeContext &ctx, Value acc, Value aScale,
                         Value bScale, int64_t bAxis, Value yScale, Value yZp,
                         Type to, SmallVectorImpl<Value> &results) {
  if (!quantizedRange(to))
    return ctx.fail("the output must be int8 or uint8");
  for (Value scalar : {aScale, yScale})
    if (cast<RankedTensorType>(scalar.getType()).getNumElements() != 1)
      return ctx.fail("per-axis input or output scales are not supported");
  ArrayRef<int64_t> shape = cast<RankedTensorType>(acc.getType()).getShape();
  Type f32 = ctx.builder.getF32Type(), f64 = ctx.builder.getF64Type();
  FailureOr<Value> a = alignParameter(ctx, aScale, shape, 0, "the input scale");
  FailureOr<Value> b =
      succeeded(a) ? alignParameter(ctx, bScale, shape, bAxis, "the weight "
                                                               "scale")
                   : a;
  FailureOr<Value> y =
      succeeded(b) ? alignParameter(ctx, yScale, shape, 0, "y_scale") : b;
  if (failed(y))
    return failure();
  for (Value scale : {*a, *b, *y})
    if (cast<RankedTensorType>(scale.getType()).getElementType() != f32)
      return ctx.fail("the scales must be float32");
  FailureOr<Value> multiplier = ctx.build<MulOp>(*a, *b);
  if (failed(multiplier) ||
      failed(multiplier = ctx.build<DivOp>(*multiplier, *y)) ||
      failed(multiplier = castTo(ctx, *multiplier, f64)))
    return failure();
  FailureOr<Value> value = castTo(ctx, acc, f64);
  if (failed(value) || failed(value = ctx.build<MulOp>(*value, *multiplier)))
    return failure();
  Value zeroPoint;
  if (yZp) {
    if (cast<RankedTensorType>(yZp.getType()).getNumElements() != 1)
      return ctx.fail("y_zero_point must have one element");
    FailureOr<Value> zp = alignParameter(ctx, yZp, shape, 0, "y_zero_point");
    if (failed(zp) || failed(zp = castTo(ctx, *zp, f64)))
      return failure();
    zeroPoint = *zp;
  }
  FailureOr<Value> q =
      roundToQuantized(ctx, *value, zeroPoint, to, /*offsetFirst=*/true);
  if (failed(q))
    return failure();
  results.push_back(*q);
  return success();
}

LogicalResult importQLinearMatMul(NodeContext &ctx,
                                  SmallVectorImpl<Value> &results) {
  FailureOr<Value> product = integerMatMul(ctx, ctx.input(0), ctx.input(2),
                                           ctx.input(3), ctx.input(5));
  if (failed(product))
    return failure();
  int64_t rank = cast<RankedTensorType>(product->getType()).getRank();
  Value aScale = ctx.input(1);
  Type to = ctx.input(7) ? ctx.inputType(7).getElementType()
                         : ctx.inputType(0).getElementType();
  return requantize(ctx, *product, aScale, ctx.input(4), rank - 1,
                    ctx.input(6), ctx.input(7), to, results);
}

LogicalResult importQLinearConv(NodeContext &ctx,
                                SmallVectorImpl<Value> &results) {
  Value bias = ctx.input(8);
  if (bias && ctx.inputType(8).getElementType() != ctx.builder.getI32Type())
    return ctx.fail("the bias must be int32");
  FailureOr<Value> conv = integerConv(ctx, ctx.input(0), ctx.input(2),
                                      ctx.input(3), ctx.input(5), bias);
  if (failed(conv))
    return failure();
  Type to = ctx.input(7) ? ctx.inputType(7).getElementType()
                         : ctx.inputType(0).getElementType();
  // w_scale may be per output channel: dimension 1 of the result.
  return requantize(ctx, *conv, ctx.input(1), ctx.input(4), 1, ctx.input(6),
                    ctx.input(7), to, results);
}

} // namespace

void mlir::tessel::onnx_import::registerQuantizationImporters(
    ImporterRegistry &registry) {
  registry.add("QuantizeLinear", importQuantizeLinear, {2, 3}, 10);
  registry.add("DequantizeLinear", importDequantizeLinear, {2, 3}, 10);
  registry.add("DynamicQuantizeLinear", importDynamicQuantizeLinear, {1, 1},
               11);
  registry.add("MatMulInteger", importMatMulInteger, {2, 4}, 10);
  registry.add("ConvInteger", importConvInteger, {2, 4}, 10);
  registry.add("QLinearMatMul", importQLinearMatMul, {8, 8}, 10);
  registry.add("QLinearConv", importQLinearConv, {8, 9}, 10);
}
