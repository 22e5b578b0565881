//===- TesselDialect.cpp - The tessel dialect -----------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselDialect.cpp.inc"

void TesselDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
      >();
}

Operation *TesselDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
