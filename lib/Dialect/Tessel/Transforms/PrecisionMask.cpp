//===- PrecisionMask.cpp - A product's precision chosen at run time -------===//

#include "PrecisionMask.h"

#include "NodeNames.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/IR/Builders.h"

#include <string>

using namespace mlir;
using namespace mlir::tessel;

int64_t mlir::tessel::multiplyAddsOf(Operation *product, unsigned channelDim) {
  auto result = cast<RankedTensorType>(product->getResult(0).getType());
  auto weights = cast<RankedTensorType>(product->getOperand(1).getType());
  return result.getNumElements() *
         (weights.getNumElements() / weights.getDimSize(channelDim));
}

Value mlir::tessel::addPrecisionMask(func::FuncOp func, unsigned k,
                                     Operation *product, unsigned channelDim) {
  Builder b(func.getContext());
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index,
                                 RankedTensorType::get({1}, b.getF32Type()),
                                 {}, func.getLoc())))
    return Value();
  func.setArgAttr(index, kNameAttrName,
                  b.getStringAttr("precision_mask_" + std::to_string(k)));
  SmallVector<StringRef> nodes;
  collectNodeNames(product->getLoc(), nodes);
  func.setArgAttr(index, "tessel.nodes", b.getStrArrayAttr(nodes));
  func.setArgAttr(index, "tessel.multiply_adds",
                  b.getI64IntegerAttr(multiplyAddsOf(product, channelDim)));
  return func.getArgument(index);
}
