//===- Cast.cpp - tessel.cast to linalg.generic ---------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

Value buildCast(OpBuilder &b, Location loc, CastOp op, ValueRange args) {
  return convertScalar(b, loc, args[0],
                       op.getInput().getType().getElementType(), op.getTo());
}

} // namespace

void mlir::tessel::populateCastToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<CastOp>>(patterns.getContext(), buildCast);
}
