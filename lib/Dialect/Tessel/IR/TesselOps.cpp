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
  // I64Attr reads back as uint64_t: compare (and print) it signed.
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << rank;
  return success();
}

YieldOp FusedOp::getYield() { return cast<YieldOp>(getBody().front().back()); }

LogicalResult FusedOp::verify() {
  Block &body = getBody().front();
  auto yield = dyn_cast_or_null<YieldOp>(body.empty() ? nullptr : &body.back());
  if (!yield)
    return emitOpError() << "region must end with 'tessel.yield'";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values but has " << getNumResults() << " results";
  for (auto [index, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yields " << value.getType() << " as value #"
                           << index << " but result #" << index << " is "
                           << result.getType();
  return success();
}

#define GET_OP_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
