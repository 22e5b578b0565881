//===- LoweringUtils.cpp - Helpers shared by the tessel lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::tessel;

AffineMap mlir::tessel::getBroadcastMap(MLIRContext *ctx,
                                        ArrayRef<int64_t> operandShape,
                                        ArrayRef<int64_t> resultShape) {
  size_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, extent] : llvm::enumerate(operandShape)) {
    if (extent == 1 && resultShape[i + offset] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

Value mlir::tessel::buildElementwise(OpBuilder &b, Location loc,
                                     RankedTensorType resultType,
                                     ValueRange inputs, BodyBuilder body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        getBroadcastMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                        resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

Value mlir::tessel::buildFilled(OpBuilder &b, Location loc,
                                RankedTensorType type, TypedAttr value) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

Value mlir::tessel::padSpatial(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> pads, TypedAttr value) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> low = {0, 0, pads[0], pads[1]};
  SmallVector<int64_t> high = {0, 0, pads[2], pads[3]};
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (int i = 0; i < 4; ++i) {
    shape[i] += low[i] + high[i];
    lowOfr.push_back(b.getIndexAttr(low[i]));
    highOfr.push_back(b.getIndexAttr(high[i]));
  }
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return tensor::PadOp::create(b, loc, padded, input, lowOfr, highOfr, scalar);
}

TypedAttr mlir::tessel::getFloatAttr(Type type, double value) {
  return FloatAttr::get(type, value);
}

TypedAttr mlir::tessel::getLowestAttr(Type type) {
  auto floatType = cast<FloatType>(type);
  return FloatAttr::get(
      type, llvm::APFloat::getInf(floatType.getFloatSemantics(), true));
}

Value mlir::tessel::buildScalar(OpBuilder &b, Location loc, Type type,
                                double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value mlir::tessel::computeWide(
    OpBuilder &b, Location loc, Value x,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Type type = x.getType();
  if (!type.isF16() && !type.isBF16())
    return fn(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, fn(b, loc, wide));
}

bool mlir::tessel::isUnsignedInteger(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isUnsigned();
}

/// Rounds f32 `x` to bf16, to nearest even; NaN stays a (quiet) NaN.
static Value truncToBF16(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type(), i16 = b.getIntegerType(16);
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c32(16)), c32(1));
  Value bias = arith::AddIOp::create(b, loc, c32(0x7FFF), lsb);
  Value rounded = arith::AddIOp::create(b, loc, bits, bias);
  Value high = arith::TruncIOp::create(
      b, loc, i16, arith::ShRUIOp::create(b, loc, rounded, c32(16)));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value nan = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i16, 0x7FC0));
  Value result = arith::SelectOp::create(b, loc, isNaN, nan, high);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), result);
}

Value mlir::tessel::convertScalar(OpBuilder &b, Location loc, Value x,
                                  Type from, Type to) {
  auto toSignless = [&](Type t) -> Type {
    if (auto intType = dyn_cast<IntegerType>(t))
      return b.getIntegerType(intType.getWidth());
    return t;
  };
  Type target = toSignless(to);
  Type source = x.getType();
  if (source == target)
    return x;
  // Everything reaches bf16 from f32, rounded by integer code: LLVM would
  // call __truncsfbf2 or __truncdfbf2, which libgcc may lack, and the arith
  // canonicalizer folds truncf(sitofp) into a direct sitofp to bf16.
  // (f64 -> bf16 thus rounds twice.)
  if (target.isBF16()) {
    Value wide =
        source.isF32() ? x : convertScalar(b, loc, x, from, b.getF32Type());
    return truncToBF16(b, loc, wide);
  }
  auto fromFloat = dyn_cast<FloatType>(source);
  auto toFloat = dyn_cast<FloatType>(target);
  // Bool is 0 or 1 whatever the other side: zero-extend, unsigned-convert.
  bool fromBool = source.isInteger(1);
  bool fromUnsigned = fromBool || isUnsignedInteger(from);
  if (target.isInteger(1)) {
    Value zero = buildScalar(b, loc, source, 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, target, x);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, target, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, target, wide);
  }
  if (fromFloat) {
    if (isUnsignedInteger(to))
      return arith::FPToUIOp::create(b, loc, target, x);
    return arith::FPToSIOp::create(b, loc, target, x);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, target, x);
    return arith::SIToFPOp::create(b, loc, target, x);
  }
  unsigned fromWidth = source.getIntOrFloatBitWidth();
  unsigned toWidth = target.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, target, x);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, x);
  return arith::ExtSIOp::create(b, loc, target, x);
}
