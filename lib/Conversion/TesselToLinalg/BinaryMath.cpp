//===- BinaryMath.cpp - Min, max, mod, pow, prelu, bit shifts to linalg ---===//
//
// Broadcasting binary ops beyond the four arithmetic ones, each one
// linalg.generic; integer bodies pick signed or unsigned arith ops from the
// tessel op's element type.
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

template <typename OpTy, typename FloatOp, typename SignedOp,
          typename UnsignedOp>
Value buildMinMax(OpBuilder &b, Location loc, OpTy op, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return FloatOp::create(b, loc, args[0], args[1]);
  if (isUnsignedInteger(op.getType()))
    return UnsignedOp::create(b, loc, args[0], args[1]);
  return SignedOp::create(b, loc, args[0], args[1]);
}

Value buildMod(OpBuilder &b, Location loc, ModOp op, ValueRange args) {
  Value x = args[0], y = args[1];
  if (isa<FloatType>(x.getType())) {
    Value r = arith::RemFOp::create(b, loc, x, y);
    if (op.getFmod())
      return r;
    // Floored (Python's float %): a non-zero remainder whose sign differs
    // from the divisor's moves by one divisor (an infinite divisor then gives
    // itself); a zero takes the divisor's sign. NaNs stay NaN.
    Value zero = buildScalar(b, loc, x.getType(), 0);
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, r, zero);
    Value rNeg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNeg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
    Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, yNeg);
    Value moved = arith::AddFOp::create(b, loc, r, y);
    Value signedZero = math::CopySignOp::create(b, loc, zero, y);
    Value nonZero = arith::SelectOp::create(b, loc, signsDiffer, moved, r);
    return arith::SelectOp::create(b, loc, isZero, signedZero, nonZero);
  }
  if (isUnsignedInteger(op.getType()))
    return arith::RemUIOp::create(b, loc, x, y);
  Value r = arith::RemSIOp::create(b, loc, x, y);
  if (op.getFmod())
    return r;
  // Floored: a non-zero remainder whose sign differs from the divisor's moves
  // by one divisor.
  Value zero = buildScalar(b, loc, x.getType(), 0);
  Value nonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value rNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
  Value yNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, yNeg);
  Value adjust = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  Value moved = arith::AddIOp::create(b, loc, r, y);
  return arith::SelectOp::create(b, loc, adjust, moved, r);
}

Value buildPRelu(OpBuilder &b, Location loc, PReluOp, ValueRange args) {
  Value x = args[0], slope = args[1];
  Value zero = buildScalar(b, loc, x.getType(), 0);
  Value negative =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  Value scaled = arith::MulFOp::create(b, loc, slope, x);
  return arith::SelectOp::create(b, loc, negative, scaled, x);
}

Value buildBitShift(OpBuilder &b, Location loc, BitShiftOp op,
                    ValueRange args) {
  Value x = args[0], n = args[1];
  Type t = x.getType();
  Value shifted = op.getLeft()
                      ? arith::ShLIOp::create(b, loc, x, n).getResult()
                      : arith::ShRUIOp::create(b, loc, x, n).getResult();
  // arith leaves shifts by the width or more undefined; ONNX's are 0.
  Value width = buildScalar(b, loc, t, t.getIntOrFloatBitWidth());
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n, width);
  return arith::SelectOp::create(b, loc, inRange, shifted,
                                 buildScalar(b, loc, t, 0));
}

Value buildPow(OpBuilder &b, Location loc, PowOp op, ValueRange args) {
  Type baseType = op.getLhs().getType().getElementType();
  Type exponentType = op.getRhs().getType().getElementType();
  Value x = args[0], y = args[1];
  if (isa<FloatType>(x.getType())) {
    y = convertScalar(b, loc, y, exponentType, baseType);
    return computeWide(b, loc, x, [&](OpBuilder &nb, Location l, Value wide) {
      Value e = convertScalar(nb, l, y, baseType, wide.getType());
      return math::PowFOp::create(nb, l, wide, e).getResult();
    });
  }
  // Integer bases: the power in f64, truncated back.
  Type f64 = b.getF64Type();
  Value wideBase = convertScalar(b, loc, x, baseType, f64);
  Value wideExponent = convertScalar(b, loc, y, exponentType, f64);
  Value power = math::PowFOp::create(b, loc, wideBase, wideExponent);
  return convertScalar(b, loc, power, f64, baseType);
}

} // namespace

void mlir::tessel::populateBinaryMathToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseLowering<MinOp>>(
      ctx,
      buildMinMax<MinOp, arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>);
  patterns.add<ElementwiseLowering<MaxOp>>(
      ctx,
      buildMinMax<MaxOp, arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>);
  patterns.add<ElementwiseLowering<ModOp>>(ctx, buildMod);
  patterns.add<ElementwiseLowering<PReluOp>>(ctx, buildPRelu);
  patterns.add<ElementwiseLowering<BitShiftOp>>(ctx, buildBitShift);
  patterns.add<ElementwiseLowering<PowOp>>(ctx, buildPow);
}
