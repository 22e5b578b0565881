//===- ConstantData.h - The bytes of a constant global ----------*- C++ -*-===//
//
// A model's weights in the LLVM dialect: the constant globals whose value is
// dense data of whole-byte elements. Both tessel-constant-globals-as-bytes
// (weights as flat byte arrays) and the weights file (externalizeWeights)
// take exactly these.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CONVERSION_CONSTANTDATA_H
#define TESSEL_CONVERSION_CONSTANTDATA_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel {

/// The dense data of `global` when it is a constant whose value holds one
/// value per element (no splat) of an integer or float type of whole bytes
/// (not i1), so that its raw data is its bytes in memory; null otherwise.
inline DenseElementsAttr getConstantBytes(LLVM::GlobalOp global) {
  if (!global.getConstant())
    return nullptr;
  auto data = dyn_cast_or_null<DenseElementsAttr>(global.getValueOrNull());
  if (!data || data.isSplat())
    return nullptr;
  Type element = data.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return nullptr;
  return data;
}

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_CONSTANTDATA_H
