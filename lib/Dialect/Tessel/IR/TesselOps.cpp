//===- TesselOps.cpp - The tessel dialect's operations --------------------===//
//
// Folders and verifiers. Result-type inference, which also verifies shapes,
// lives in ShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tessel;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (getAxis() < 0 || getAxis() >= std::max<int64_t>(rank, 1))
    return emitOpError() << "axis " << getAxis() << " is out of range for rank "
                         << rank;
  return success();
}

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
