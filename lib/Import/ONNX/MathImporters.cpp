//===- MathImporters.cpp - Unary math, Pow, Mod, Min/Max/Sum/Mean ---------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

bool isFloat(RankedTensorType type) {
  return isa<FloatType>(type.getElementType());
}

/// An op on floats only; ONNX's type constraints allow nothing else.
template <typename OpTy> NodeImportFn floatUnary() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (!isFloat(ctx.inputType(0)))
      return ctx.fail("expects a floating-point input");
    return ctx.emit<OpTy>(results, ctx.input(0));
  };
}

/// An op on any number type (bool excluded).
template <typename OpTy> NodeImportFn numericUnary() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    if (ctx.inputType(0).getElementType().isInteger(1))
      return ctx.fail("expects a numeric input, not bool");
    return ctx.emit<OpTy>(results, ctx.input(0));
  };
}

LogicalResult importNeg(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  auto element = dyn_cast<IntegerType>(ctx.inputType(0).getElementType());
  if (element && !element.isSigned() && !element.isSignless())
    return ctx.fail("Neg expects a signed input");
  if (element && element.getWidth() == 1)
    return ctx.fail("Neg expects a numeric input, not bool");
  return ctx.emit<NegOp>(results, ctx.input(0));
}

/// Min, Max, Sum: a left-to-right chain of broadcasting binary ops; one input
/// is the result itself.
template <typename OpTy> NodeImportFn variadic() {
  return [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
    Value acc = ctx.input(0);
    if (acc &&
        cast<RankedTensorType>(acc.getType()).getElementType().isInteger(1))
      return ctx.fail("expects numeric inputs, not bool");
    for (size_t i = 1; i < ctx.inputs.size(); ++i) {
      if (!ctx.input(i))
        return ctx.fail("input " + Twine(i) + " is empty");
      FailureOr<Value> next = ctx.build<OpTy>(acc, ctx.input(i));
      if (failed(next))
        return failure();
      acc = *next;
    }
    results.push_back(acc);
    return success();
  };
}

LogicalResult importMean(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isFloat(ctx.inputType(0)))
    return ctx.fail("expects floating-point inputs");
  SmallVector<Value> sum;
  if (failed(variadic<AddOp>()(ctx, sum)))
    return failure();
  if (ctx.inputs.size() == 1) {
    results.push_back(sum[0]);
    return success();
  }
  auto scalar = RankedTensorType::get({}, ctx.inputType(0).getElementType());
  Attribute n = ctx.builder.getFloatAttr(scalar.getElementType(),
                                         double(ctx.inputs.size()));
  Value count = ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(scalar, ArrayRef<Attribute>(n)));
  return ctx.emit<DivOp>(results, sum[0], count);
}

LogicalResult importPow(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  for (int i = 0; i < 2; ++i)
    if (ctx.inputType(i).getElementType().isInteger(1))
      return ctx.fail("Pow expects numeric operands, not bool");
  // Before opset 7, both operands are floats of one type and B broadcasts
  // the legacy way.
  if (ctx.opset < 7 &&
      ctx.inputType(0).getElementType() != ctx.inputType(1).getElementType())
    return ctx.fail("operand element types differ");
  FailureOr<Value> exponent = alignLegacyBroadcast(ctx);
  if (failed(exponent))
    return failure();
  return ctx.emit<PowOp>(results, ctx.input(0), *exponent);
}

LogicalResult importMod(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  bool fmod = ctx.intAttr("fmod", 0) != 0;
  // Opset 28 defines fmod=0 on floats (A - floor(A / B) * B); before, it
  // was invalid.
  if (isFloat(ctx.inputType(0)) && !fmod && ctx.opset < 28)
    return ctx.fail("Mod on floating-point operands requires fmod=1 before "
                    "opset 28");
  if (ctx.inputType(0).getElementType().isInteger(1))
    return ctx.fail("Mod expects numeric operands, not bool");
  return ctx.emit<ModOp>(results, ctx.input(0), ctx.input(1),
                         fmod ? ctx.builder.getUnitAttr() : UnitAttr());
}

LogicalResult importIsInf(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isFloat(ctx.inputType(0)))
    return ctx.fail("expects a floating-point input");
  Builder &b = ctx.builder;
  return ctx.emit<IsInfOp>(
      results, ctx.input(0),
      b.getBoolAttr(ctx.intAttr("detect_positive", 1) != 0),
      b.getBoolAttr(ctx.intAttr("detect_negative", 1) != 0));
}

/// Det of [..., n, n] for n <= 3 by its closed form (cofactor expansion
/// along the first row) over the entries sliced out of each matrix.
LogicalResult importDet(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  int64_t rank = x.getRank();
  if (!isFloat(x) || rank < 2 || x.getDimSize(rank - 1) != x.getDimSize(rank - 2))
    return ctx.fail("expects floating-point square matrices [..., n, n]");
  int64_t n = x.getDimSize(rank - 1);
  if (n < 1 || n > 3)
    return ctx.fail("Det of " + llvm::Twine(n) + "x" + llvm::Twine(n) +
                    " matrices is not supported (at most 3x3)");
  Builder &b = ctx.builder;
  ArrayRef<int64_t> batch = x.getShape().drop_back(2);
  bool ok = true;
  auto entry = [&](int64_t i, int64_t j) -> Value {
    SmallVector<int64_t> starts(rank, 0), sizes(x.getShape()),
        steps(rank, 1);
    starts[rank - 2] = i;
    starts[rank - 1] = j;
    sizes[rank - 2] = sizes[rank - 1] = 1;
    FailureOr<Value> v = ctx.build<SliceOp>(
        ctx.input(0), b.getDenseI64ArrayAttr(starts),
        b.getDenseI64ArrayAttr(sizes), b.getDenseI64ArrayAttr(steps));
    if (succeeded(v))
      v = ctx.build<ReshapeOp>(*v, b.getDenseI64ArrayAttr(batch));
    ok &= succeeded(v);
    return ok ? *v : Value();
  };
  auto binary = [&](auto tag, Value l, Value r) -> Value {
    using OpTy = typename decltype(tag)::type;
    if (!ok)
      return Value();
    FailureOr<Value> v = ctx.build<OpTy>(l, r);
    ok &= succeeded(v);
    return ok ? *v : Value();
  };
  auto mul = [&](Value l, Value r) { return binary(llvm::type_identity<MulOp>(), l, r); };
  auto sub = [&](Value l, Value r) { return binary(llvm::type_identity<SubOp>(), l, r); };
  auto add = [&](Value l, Value r) { return binary(llvm::type_identity<AddOp>(), l, r); };
  // det of the 2x2 minor on rows (r0, r1) and columns (c0, c1). Each value
  // is named before use: argument evaluation order would otherwise make the
  // IR's order depend on the host compiler.
  auto minor = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    Value a = entry(r0, c0), d = entry(r1, c1);
    Value ad = mul(a, d);
    Value b = entry(r0, c1), c = entry(r1, c0);
    Value bc = mul(b, c);
    return sub(ad, bc);
  };
  // Cofactor expansion along the first row.
  auto term = [&](int64_t col, int64_t c0, int64_t c1) {
    Value e = entry(0, col);
    Value m = minor(1, 2, c0, c1);
    return mul(e, m);
  };
  Value det;
  if (n == 1) {
    det = entry(0, 0);
  } else if (n == 2) {
    det = minor(0, 1, 0, 1);
  } else {
    Value t0 = term(0, 1, 2);
    Value t1 = term(1, 0, 2);
    Value t2 = term(2, 0, 1);
    det = add(sub(t0, t1), t2);
  }
  if (!ok)
    return failure();
  results.push_back(det);
  return success();
}

} // namespace

void mlir::tessel::onnx_import::registerMathImporters(
    ImporterRegistry &registry) {
  registry.add("Abs", numericUnary<AbsOp>(), {1, 1});
  registry.add("Neg", importNeg, {1, 1});
  registry.add("Sign", numericUnary<SignOp>(), {1, 1}, 9);
  registry.add("Exp", floatUnary<ExpOp>(), {1, 1});
  registry.add("Log", floatUnary<LogOp>(), {1, 1});
  registry.add("Sqrt", floatUnary<SqrtOp>(), {1, 1});
  registry.add("Reciprocal", floatUnary<ReciprocalOp>(), {1, 1});
  registry.add("Floor", floatUnary<FloorOp>(), {1, 1});
  registry.add("Ceil", floatUnary<CeilOp>(), {1, 1});
  registry.add("Round", floatUnary<RoundOp>(), {1, 1}, 11);
  registry.add("Sin", floatUnary<SinOp>(), {1, 1}, 7);
  registry.add("Cos", floatUnary<CosOp>(), {1, 1}, 7);
  registry.add("Tan", floatUnary<TanOp>(), {1, 1}, 7);
  registry.add("Asin", floatUnary<AsinOp>(), {1, 1}, 7);
  registry.add("Acos", floatUnary<AcosOp>(), {1, 1}, 7);
  registry.add("Atan", floatUnary<AtanOp>(), {1, 1}, 7);
  registry.add("Sinh", floatUnary<SinhOp>(), {1, 1}, 9);
  registry.add("Cosh", floatUnary<CoshOp>(), {1, 1}, 9);
  registry.add("Asinh", floatUnary<AsinhOp>(), {1, 1}, 9);
  registry.add("Acosh", floatUnary<AcoshOp>(), {1, 1}, 9);
  registry.add("Atanh", floatUnary<AtanhOp>(), {1, 1}, 9);
  registry.add("Erf", floatUnary<ErfOp>(), {1, 1}, 9);
  registry.add("IsNaN", floatUnary<IsNaNOp>(), {1, 1}, 9);
  registry.add("IsInf", importIsInf, {1, 1}, 10);
  registry.add("Pow", importPow, {2, 2});
  registry.add("Mod", importMod, {2, 2}, 10);
  registry.add("Min", variadic<MinOp>(), {1, kVariadic}, 6);
  registry.add("Max", variadic<MaxOp>(), {1, kVariadic}, 6);
  registry.add("Sum", variadic<AddOp>(), {1, kVariadic}, 6);
  registry.add("Mean", importMean, {1, kVariadic}, 6);
  registry.add("Det", importDet, {1, 1}, 11);
}
