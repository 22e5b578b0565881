//===- RecordSignature.cpp - tessel.signature, before lowering ------------===//
//
// The signature is recorded from the entry function's tensor types while
// they still carry ONNX's element types: the linalg lowering computes on
// signless integers, and the descriptor must still say UINT8.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELRECORDSIGNATUREPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// `{name, type[, value]}` for one entry argument or result; `value` is the
/// value an input was fixed to at compile time.
static DictionaryAttr describeTensor(Builder &b, StringAttr name, Type type,
                                     Attribute fixedValue = {}) {
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("name", name),
      b.getNamedAttr("type", TypeAttr::get(type))};
  if (fixedValue)
    fields.push_back(b.getNamedAttr("value", fixedValue));
  return b.getDictionaryAttr(fields);
}

static StringAttr getNameOr(DictionaryAttr attrs, Builder &b,
                            const Twine &fallback) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(kNameAttrName))
      return name;
  return b.getStringAttr(fallback);
}

FailureOr<func::FuncOp> mlir::tessel::findEntryFunction(ModuleOp module) {
  SmallVector<func::FuncOp> entries;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kEntryAttrName))
      entries.push_back(func);
  if (entries.size() != 1)
    return module.emitError()
           << "expected exactly one function marked '" << kEntryAttrName
           << "', found " << entries.size();
  return entries.front();
}

LogicalResult mlir::tessel::recordSignature(ModuleOp module,
                                            func::FuncOp func) {
  Builder b(module.getContext());
  FunctionType type = func.getFunctionType();
  SmallVector<Attribute> inputs, outputs;
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError()
             << "entry argument " << i << " must be a statically shaped tensor";
    DictionaryAttr attrs = func.getArgAttrDict(i);
    Attribute fixedValue = attrs ? attrs.get(kFixedValueAttrName) : Attribute();
    if (fixedValue && (!isa<DenseElementsAttr>(fixedValue) ||
                       cast<DenseElementsAttr>(fixedValue).getType() != tensor))
      return func.emitError()
             << "entry argument " << i << "'s '" << kFixedValueAttrName
             << "' must be dense elements of the argument's type";
    inputs.push_back(describeTensor(b, getNameOr(attrs, b, "input" + Twine(i)),
                                    tensor, fixedValue));
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError()
             << "entry result " << i << " must be a statically shaped tensor";
    outputs.push_back(describeTensor(
        b, getNameOr(func.getResultAttrDict(i), b, "output" + Twine(i)),
        tensor));
  }
  StringAttr modelName = module->getAttrOfType<StringAttr>(kModelNameAttrName);
  if (!modelName)
    modelName = b.getStringAttr(func.getSymName());
  module->setAttr(kSignatureAttrName,
                  b.getDictionaryAttr(
                      {b.getNamedAttr("name", modelName),
                       b.getNamedAttr("inputs", b.getArrayAttr(inputs)),
                       b.getNamedAttr("outputs", b.getArrayAttr(outputs))}));
  return success();
}

/// Whether the recorded `entry` ({name, type}) describes `actual`.
static bool describes(Attribute entry, Type actual) {
  auto dict = dyn_cast<DictionaryAttr>(entry);
  auto typeAttr = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
  auto recorded =
      typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
  auto tensor = dyn_cast<RankedTensorType>(actual);
  if (!recorded || !tensor || !tensor.hasStaticShape() ||
      recorded.getShape() != tensor.getShape())
    return false;
  Type r = recorded.getElementType(), a = tensor.getElementType();
  if (r == a)
    return true;
  auto ri = dyn_cast<IntegerType>(r), ai = dyn_cast<IntegerType>(a);
  return ri && ai && ri.getWidth() == ai.getWidth() && ai.isSignless();
}

LogicalResult mlir::tessel::checkSignature(ModuleOp module, func::FuncOp func) {
  auto signature = module->getAttrOfType<DictionaryAttr>(kSignatureAttrName);
  auto inputs = signature ? signature.getAs<ArrayAttr>("inputs") : ArrayAttr();
  auto outputs =
      signature ? signature.getAs<ArrayAttr>("outputs") : ArrayAttr();
  FunctionType type = func.getFunctionType();
  // A padded dimension's valid length (tessel-mask-padded-positions) is
  // the last argument, and no graph input.
  unsigned numInputs = type.getNumInputs();
  if (numInputs > 0 && func.getArgAttr(numInputs - 1, "tessel.valid_length"))
    --numInputs;
  if (!inputs || !outputs || inputs.size() != numInputs ||
      outputs.size() != type.getNumResults())
    return module.emitError()
           << "the recorded '" << kSignatureAttrName
           << "' does not match the entry function's inputs and results";
  for (auto [entry, t] : llvm::zip(inputs, type.getInputs()))
    if (!describes(entry, t))
      return module.emitError()
             << "the recorded '" << kSignatureAttrName << "' entry " << entry
             << " does not describe the entry argument of "
                "type "
             << t;
  for (auto [entry, t] : llvm::zip(outputs, type.getResults()))
    if (!describes(entry, t))
      return module.emitError()
             << "the recorded '" << kSignatureAttrName << "' entry " << entry
             << " does not describe the entry result of "
                "type "
             << t;
  return success();
}

namespace {

struct TesselRecordSignaturePass
    : tessel::impl::TesselRecordSignaturePassBase<TesselRecordSignaturePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entry = findEntryFunction(module);
    if (failed(entry) || failed(recordSignature(module, *entry)))
      signalPassFailure();
  }
};

} // namespace
