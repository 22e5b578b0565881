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
        name == "tessel.parallel")
      return expect(isa<UnitAttr>(value), "a unit attribute");
    if (name == kModelNameAttrName)
      return expect(isa<StringAttr>(value), "a string");
    if (name == kSignatureAttrName)
      return expect(isa<DictionaryAttr>(value), "a dictionary");
    if (name == kWorkspaceSizeAttrName || name == kDroppedChannelsAttrName ||
        name == "tessel.fusion_group")
      return expect(isI64(value), "an i64 integer");
    if (name == kLayoutConversionsAttrName) {
      auto dict = dyn_cast<DictionaryAttr>(value);
      return expect(dict && llvm::all_of(dict,
                                         [&](NamedAttribute entry) {
                                           return isI64(entry.getValue());
                                         }),
                    "a dictionary of i64 counts");
    }
    if (name == "tessel.kernels") {
      auto array = dyn_cast<ArrayAttr>(value);
      return expect(array && llvm::all_of(array,
                                          [](Attribute kernel) {
                                            return isa<DictionaryAttr>(kernel);
                                          }),
                    "an array of {kind, loc} dictionaries");
    }
  } else {
    if (name == kNameAttrName)
      return expect(isa<StringAttr>(value), "a string");
    if (name == kFixedValueAttrName)
      return expect(isa<ElementsAttr>(value), "an elements attribute");
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
