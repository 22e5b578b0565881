//===- Math.cpp - Unary math ops to linalg.generic ------------------------===//
//
// One generic per op; the bodies use the math dialect, whose functions become
// LLVM intrinsics or libm calls. Half-precision floats compute in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A float op that maps to one math (or arith) op on its operand.
template <typename OpTy, typename MathOp>
Value buildMath(OpBuilder &b, Location loc, OpTy, ValueRange args) {
  return computeWide(b, loc, args[0], [](OpBuilder &nb, Location l, Value x) {
    return MathOp::create(nb, l, x).getResult();
  });
}

Value buildAbs(OpBuilder &b, Location loc, AbsOp op, ValueRange args) {
  Value x = args[0];
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  if (cast<IntegerType>(op.getInput().getType().getElementType()).isUnsigned())
    return x;
  return math::AbsIOp::create(b, loc, x);
}

Value buildNeg(OpBuilder &b, Location loc, NegOp, ValueRange args) {
  Value x = args[0];
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, buildScalar(b, loc, x.getType(), 0), x);
}

Value buildSign(OpBuilder &b, Location loc, SignOp op, ValueRange args) {
  Value x = args[0];
  Type t = x.getType();
  Value zero = buildScalar(b, loc, t, 0), one = buildScalar(b, loc, t, 1),
        minusOne = buildScalar(b, loc, t, -1);
  Value positive, negative;
  if (isa<FloatType>(t)) {
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    bool isUnsigned =
        cast<IntegerType>(op.getInput().getType().getElementType())
            .isUnsigned();
    positive = arith::CmpIOp::create(b, loc,
                                     isUnsigned ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::sgt,
                                     x, zero);
    negative = arith::CmpIOp::create(b, loc,
                                     isUnsigned ? arith::CmpIPredicate::ult
                                                : arith::CmpIPredicate::slt,
                                     x, zero);
  }
  Value result = arith::SelectOp::create(b, loc, negative, minusOne, zero);
  return arith::SelectOp::create(b, loc, positive, one, result);
}

Value buildReciprocal(OpBuilder &b, Location loc, ReciprocalOp,
                      ValueRange args) {
  Value x = args[0];
  return arith::DivFOp::create(b, loc, buildScalar(b, loc, x.getType(), 1), x);
}

Value buildNot(OpBuilder &b, Location loc, NotOp, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0],
                               buildScalar(b, loc, args[0].getType(), 1));
}

Value buildIsNaN(OpBuilder &b, Location loc, IsNaNOp, ValueRange args) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0],
                               args[0]);
}

Value buildIsInf(OpBuilder &b, Location loc, IsInfOp op, ValueRange args) {
  Value x = args[0];
  auto type = cast<FloatType>(x.getType());
  auto isEqual = [&](bool negative) -> Value {
    Value inf = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(type,
                       APFloat::getInf(type.getFloatSemantics(), negative)));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, inf);
  };
  Value result = buildScalar(b, loc, b.getI1Type(), 0);
  if (op.getDetectPositive())
    result = isEqual(false);
  if (op.getDetectNegative())
    result = arith::OrIOp::create(b, loc, result, isEqual(true));
  return result;
}

} // namespace

void mlir::tessel::populateMathToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
#define TESSEL_MATH(Op, MathOp)                                                \
  patterns.add<ElementwiseLowering<Op>>(ctx, buildMath<Op, MathOp>)
  TESSEL_MATH(ExpOp, math::ExpOp);
  TESSEL_MATH(LogOp, math::LogOp);
  TESSEL_MATH(SqrtOp, math::SqrtOp);
  TESSEL_MATH(FloorOp, math::FloorOp);
  TESSEL_MATH(CeilOp, math::CeilOp);
  TESSEL_MATH(RoundOp, math::RoundEvenOp);
  TESSEL_MATH(SinOp, math::SinOp);
  TESSEL_MATH(CosOp, math::CosOp);
  TESSEL_MATH(TanOp, math::TanOp);
  TESSEL_MATH(AsinOp, math::AsinOp);
  TESSEL_MATH(AcosOp, math::AcosOp);
  TESSEL_MATH(AtanOp, math::AtanOp);
  TESSEL_MATH(SinhOp, math::SinhOp);
  TESSEL_MATH(CoshOp, math::CoshOp);
  TESSEL_MATH(AsinhOp, math::AsinhOp);
  TESSEL_MATH(AcoshOp, math::AcoshOp);
  TESSEL_MATH(AtanhOp, math::AtanhOp);
  TESSEL_MATH(ErfOp, math::ErfOp);
#undef TESSEL_MATH
  patterns.add<ElementwiseLowering<AbsOp>>(ctx, buildAbs);
  patterns.add<ElementwiseLowering<NegOp>>(ctx, buildNeg);
  patterns.add<ElementwiseLowering<SignOp>>(ctx, buildSign);
  patterns.add<ElementwiseLowering<ReciprocalOp>>(ctx, buildReciprocal);
  patterns.add<ElementwiseLowering<NotOp>>(ctx, buildNot);
  patterns.add<ElementwiseLowering<IsNaNOp>>(ctx, buildIsNaN);
  patterns.add<ElementwiseLowering<IsInfOp>>(ctx, buildIsInf);
}
