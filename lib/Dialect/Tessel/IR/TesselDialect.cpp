//===- TesselDialect.cpp - The tessel dialect -----------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

#include "tessel/Dialect/Tessel/IR/TesselDialect.cpp.inc"
#include "tessel/Dialect/Tessel/IR/TesselEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"

void TesselDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/Tessel/IR/TesselOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/Tessel/IR/TesselAttrs.cpp.inc"
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

/// What the discardable attribute called `name` must be, or failure for a
/// name the dialect does not declare.
static LogicalResult verifyTesselAttribute(Operation *op, NamedAttribute attr,
                                           llvm::StringRef where) {
  llvm::StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, llvm::StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' " << where << " must be "
                           << what << ", not " << value;
  };
  auto isI64 = [](Attribute a) {
    auto integer = dyn_cast<IntegerAttr>(a);
    return integer && integer.getType().isInteger(64);
  };
  if (where == "on an operation") {
    if (name == kEntryAttrName || name == "tessel.in_kernel" ||
        name == "tessel.parallel" || name == "tessel.kernel")
      return expect(isa<UnitAttr>(value), "a unit attribute");
    if (name == kModelNameAttrName)
      return expect(isa<StringAttr>(value), "a string");
    if (name == kSignatureAttrName)
      return expect(isa<DictionaryAttr>(value), "a dictionary");
    if (name == kWorkspaceSizeAttrName || name == "tessel.fusion_group")
      return expect(isI64(value), "an i64 integer");
  } else {
    if (name == kNameAttrName)
      return expect(isa<StringAttr>(value), "a string");
    if (name == kFixedValueAttrName)
      return expect(isa<ElementsAttr>(value), "an elements attribute");
    // tessel-quantize-products mode=simulate: a precision mask's product.
    if (name == "tessel.nodes")
      return expect(isa<ArrayAttr>(value) &&
                        llvm::all_of(cast<ArrayAttr>(value),
                                     llvm::IsaPred<StringAttr>),
                    "an array of strings");
    if (name == "tessel.multiply_adds")
      return expect(isI64(value), "an i64 integer");
    // A padded dimension (tessel-mask-padded-positions): where an argument
    // or result holds the positions, and the argument with the valid
    // length.
    if (name == "tessel.padded_dim")
      return expect(isI64(value) && cast<IntegerAttr>(value).getInt() >= 0,
                    "a non-negative i64 integer");
    if (name == "tessel.valid_length")
      return expect(isa<UnitAttr>(value), "a unit attribute");
  }
  return op->emitError() << "unknown tessel attribute '" << name << "' "
                         << where;
}

LogicalResult TesselDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  return verifyTesselAttribute(op, attr, "on an operation");
}

LogicalResult TesselDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  return verifyTesselAttribute(op, attr, "on an argument");
}

LogicalResult TesselDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned regionIndex,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  return verifyTesselAttribute(op, attr, "on a result");
}
