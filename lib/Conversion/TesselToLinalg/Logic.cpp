//===- Logic.cpp - Comparisons, boolean ops and where to linalg -----------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A comparison with the predicates for floats (ordered), signed and
/// unsigned integers.
template <typename OpTy, arith::CmpFPredicate F, arith::CmpIPredicate S,
          arith::CmpIPredicate U>
Value buildCompare(OpBuilder &b, Location loc, OpTy op, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::CmpFOp::create(b, loc, F, args[0], args[1]);
  // Booleans compare as 0 and 1.
  bool isUnsigned = isUnsignedInteger(op.getLhs().getType()) ||
                    args[0].getType().isInteger(1);
  return arith::CmpIOp::create(b, loc, isUnsigned ? U : S, args[0], args[1]);
}

template <typename OpTy, typename ArithOp>
Value buildLogical(OpBuilder &b, Location loc, OpTy, ValueRange args) {
  return ArithOp::create(b, loc, args[0], args[1]);
}

Value buildWhere(OpBuilder &b, Location loc, WhereOp, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

} // namespace

void mlir::tessel::populateLogicToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  patterns.add<ElementwiseLowering<EqualOp>>(
      ctx, buildCompare<EqualOp, F::OEQ, I::eq, I::eq>);
  patterns.add<ElementwiseLowering<LessOp>>(
      ctx, buildCompare<LessOp, F::OLT, I::slt, I::ult>);
  patterns.add<ElementwiseLowering<LessOrEqualOp>>(
      ctx, buildCompare<LessOrEqualOp, F::OLE, I::sle, I::ule>);
  patterns.add<ElementwiseLowering<GreaterOp>>(
      ctx, buildCompare<GreaterOp, F::OGT, I::sgt, I::ugt>);
  patterns.add<ElementwiseLowering<GreaterOrEqualOp>>(
      ctx, buildCompare<GreaterOrEqualOp, F::OGE, I::sge, I::uge>);
  patterns.add<ElementwiseLowering<AndOp>>(ctx,
                                           buildLogical<AndOp, arith::AndIOp>);
  patterns.add<ElementwiseLowering<OrOp>>(ctx,
                                          buildLogical<OrOp, arith::OrIOp>);
  patterns.add<ElementwiseLowering<XorOp>>(ctx,
                                           buildLogical<XorOp, arith::XOrIOp>);
  patterns.add<ElementwiseLowering<WhereOp>>(ctx, buildWhere);
}
