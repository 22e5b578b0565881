//===- BatchConstants.cpp - Constants that depend on the batch ------------===//

#include "BatchConstants.h"

#include "tessel/Driver/Diagnostics.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

std::string keyOf(Location loc) {
  if (std::optional<NodeOrigin> origin = getNodeOrigin(loc))
    return origin->name;
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

} // namespace

BatchConstants mlir::tessel::collectBatchConstants(ModuleOp module) {
  BatchConstants constants;
  module.walk([&](Operation *op) {
    Attribute value;
    if (op->getNumResults() == 1 && matchPattern(op->getResult(0),
                                                 m_Constant(&value)))
      constants[keyOf(op->getLoc())].push_back(value);
  });
  return constants;
}

LogicalResult mlir::tessel::compareBatchConstants(const BatchConstants &a,
                                                  int64_t batchA,
                                                  const BatchConstants &b,
                                                  int64_t batchB,
                                                  ModuleOp moduleB) {
  std::string node;
  for (const auto &[key, values] : b) {
    auto other = a.find(key);
    if (other == a.end() || other->second.size() != values.size())
      continue;
    for (auto [x, y] : llvm::zip(other->second, values)) {
      auto typedX = dyn_cast<TypedAttr>(x), typedY = dyn_cast<TypedAttr>(y);
      // Attributes are uniqued: equal values are the same attribute.
      if (typedX && typedY && typedX.getType() == typedY.getType() && x != y)
        node = key;
    }
    if (!node.empty())
      break;
  }
  if (node.empty())
    return success();
  // Report at the op, so that the node is named.
  Operation *at = nullptr;
  moduleB.walk([&](Operation *op) {
    if (!at && op->getNumResults() == 1 &&
        matchPattern(op->getResult(0), m_Constant()) &&
        keyOf(op->getLoc()) == node)
      at = op;
  });
  emitError(at ? at->getLoc() : moduleB.getLoc())
      << "computes with the batch's size: a constant differs between the "
         "builds of batch "
      << batchA << " and " << batchB
      << "; a dynamic batch (--dim-range) needs every sample computed apart "
         "from the others: give the batch a fixed size with --input-shape";
  return failure();
}
