//===- Signature.cpp - The model signature the descriptor records ---------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/abi.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tessel;

int32_t mlir::tessel::getDTypeCode(Type type) {
  if (type.isF32())
    return TESSEL_DTYPE_F32;
  if (type.isF64())
    return TESSEL_DTYPE_F64;
  if (type.isF16())
    return TESSEL_DTYPE_F16;
  if (type.isBF16())
    return TESSEL_DTYPE_BF16;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return TESSEL_DTYPE_INVALID;
  bool isUnsigned = intType.isUnsigned();
  switch (intType.getWidth()) {
  case 1:
    return TESSEL_DTYPE_BOOL;
  case 8:
    return isUnsigned ? TESSEL_DTYPE_U8 : TESSEL_DTYPE_I8;
  case 16:
    return isUnsigned ? TESSEL_DTYPE_U16 : TESSEL_DTYPE_I16;
  case 32:
    return isUnsigned ? TESSEL_DTYPE_U32 : TESSEL_DTYPE_I32;
  case 64:
    return isUnsigned ? TESSEL_DTYPE_U64 : TESSEL_DTYPE_I64;
  default:
    return TESSEL_DTYPE_INVALID;
  }
}

/// The elements of `value`, dense and little-endian, each in its dtype's
/// storage (bool: one byte, 0 or 1).
static std::vector<uint8_t> serializeElements(DenseElementsAttr value) {
  std::vector<uint8_t> bytes;
  Type element = value.getElementType();
  auto append = [&](const APInt &bits) {
    unsigned size = std::max(1u, bits.getBitWidth() / 8);
    for (unsigned i = 0; i < size; ++i)
      bytes.push_back(static_cast<uint8_t>(bits.extractBitsAsZExtValue(
          std::min(8u, bits.getBitWidth() - 8 * i), 8 * i)));
  };
  if (isa<FloatType>(element)) {
    for (const APFloat &f : value.getValues<APFloat>())
      append(f.bitcastToAPInt());
  } else {
    for (const APInt &i : value.getValues<APInt>())
      append(i);
  }
  return bytes;
}

static LogicalResult readTensors(ModuleOp module, DictionaryAttr signature,
                                 StringRef key,
                                 std::vector<TensorSignature> &out) {
  auto list = signature.getAs<ArrayAttr>(key);
  if (!list)
    return module.emitError() << "'" << kSignatureAttrName << "' lacks '"
                              << key << "'";
  for (Attribute entry : list) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    auto type = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
    auto shaped =
        type ? dyn_cast<RankedTensorType>(type.getValue()) : RankedTensorType();
    if (!name || !shaped || !shaped.hasStaticShape())
      return module.emitError() << "malformed '" << kSignatureAttrName
                                << "' entry " << entry;
    TensorSignature tensor;
    tensor.name = name.str();
    tensor.dtype = getDTypeCode(shaped.getElementType());
    if (tensor.dtype == TESSEL_DTYPE_INVALID)
      return module.emitError()
             << "tensor '" << tensor.name << "' has element type "
             << shaped.getElementType() << ", which the artifact ABI lacks";
    tensor.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    if (Attribute value = dict.get("value")) {
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense || dense.getType() != shaped)
        return module.emitError() << "malformed fixed value in '"
                                  << kSignatureAttrName << "' entry " << entry;
      tensor.fixedValue = serializeElements(dense);
    }
    out.push_back(std::move(tensor));
  }
  return success();
}

FailureOr<ModelSignature> mlir::tessel::readSignature(ModuleOp module) {
  auto signature = module->getAttrOfType<DictionaryAttr>(kSignatureAttrName);
  if (!signature)
    return module.emitError()
           << "the module has no '" << kSignatureAttrName
           << "' attribute; run the whole pipeline (tessel-entry-abi) first";
  ModelSignature result;
  if (auto name = signature.getAs<StringAttr>("name"))
    result.name = name.str();
  if (failed(readTensors(module, signature, "inputs", result.inputs)) ||
      failed(readTensors(module, signature, "outputs", result.outputs)))
    return failure();
  return result;
}
