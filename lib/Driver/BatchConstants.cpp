//===- BatchConstants.cpp - Constants that depend on the batch ------------===//

#include "BatchConstants.h"

#include "tessel/Driver/Diagnostics.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// Where the first constant from `node` in `module` is (its op, or its
/// first reader, names the node), or the module's location.
Location constantLoc(ModuleOp module, llvm::StringRef node) {
  Operation *at = nullptr;
  module.walk([&](Operation *op) {
    if (!at && op->getNumResults() == 1 &&
        matchPattern(op->getResult(0), m_Constant()) &&
        keyOf(op->getLoc()) == node)
      at = op;
  });
  if (!at)
    return module.getLoc();
  // A constant the canonicalizer hoisted has lost its node: its first
  // reader that has one names it.
  if (!getNodeOrigin(at->getLoc()))
    for (Operation *user : at->getUsers())
      if (getNodeOrigin(user->getLoc()))
        return user->getLoc();
  return at->getLoc();
}

} // namespace

BatchConstants mlir::tessel::collectBatchConstants(ModuleOp module,
                                                   bool skipShapes) {
  BatchConstants constants;
  auto isShape = [](OpOperand &use) {
    auto reshape = dyn_cast<tensor::ReshapeOp>(use.getOwner());
    return reshape && use.get() == reshape.getShape();
  };
  module.walk([&](Operation *op) {
    Attribute value;
    if (op->getNumResults() != 1 ||
        !matchPattern(op->getResult(0), m_Constant(&value)))
      return;
    if (skipShapes && !op->use_empty() &&
        llvm::all_of(op->getResult(0).getUses(), isShape))
      return;
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
  emitError(constantLoc(moduleB, node))
      << "computes with the batch's size: a constant differs between the "
         "builds of batch "
      << batchA << " and " << batchB
      << "; a dynamic batch (--dim-range) needs every sample computed apart "
         "from the others: give the batch a fixed size with --input-shape";
  return failure();
}

namespace {

/// Whether `shorter` (extents `a`) is the leading part of `longer`
/// (extents `b`), element for element.
bool isLeadingPart(DenseElementsAttr shorter, DenseElementsAttr longer) {
  ArrayRef<int64_t> a = shorter.getType().getShape(),
                    b = longer.getType().getShape();
  auto values = shorter.getValues<Attribute>();
  auto others = longer.getValues<Attribute>();
  SmallVector<int64_t> index(a.size(), 0);
  for (int64_t i = 0, n = shorter.getNumElements(); i < n; ++i) {
    int64_t at = 0;
    for (size_t d = 0; d < a.size(); ++d)
      at = at * b[d] + index[d];
    if (values[i] != others[at])
      return false;
    for (int64_t d = int64_t(a.size()) - 1; d >= 0 && ++index[d] == a[d]; --d)
      index[d] = 0;
  }
  return true;
}

/// Whether the constants `x` (at length `la`) and `y` (at `lb`) agree.
bool agreeAtLengths(Attribute x, int64_t la, Attribute y, int64_t lb) {
  auto typedX = dyn_cast<TypedAttr>(x), typedY = dyn_cast<TypedAttr>(y);
  if (!typedX || !typedY)
    return x == y;
  if (typedX.getType() == typedY.getType())
    return x == y;
  auto denseX = dyn_cast<DenseElementsAttr>(x);
  auto denseY = dyn_cast<DenseElementsAttr>(y);
  if (!denseX || !denseY ||
      denseX.getType().getElementType() != denseY.getType().getElementType())
    return false;
  ArrayRef<int64_t> sx = denseX.getType().getShape(),
                    sy = denseY.getType().getShape();
  if (sx.size() != sy.size())
    return false;
  for (auto [ex, ey] : llvm::zip(sx, sy))
    if (ex != ey && !(ex == la && ey == lb) && !(ex == lb && ey == la))
      return false;
  return la < lb ? isLeadingPart(denseX, denseY)
                 : isLeadingPart(denseY, denseX);
}

} // namespace

LogicalResult
mlir::tessel::comparePaddedConstants(const BatchConstants &a, int64_t lengthA,
                                     const BatchConstants &b, int64_t lengthB,
                                     llvm::StringRef name, ModuleOp moduleB) {
  for (const auto &[key, values] : b) {
    auto other = a.find(key);
    if (other == a.end() || other->second.size() != values.size())
      continue;
    for (auto [x, y] : llvm::zip(other->second, values)) {
      if (agreeAtLengths(x, lengthA, y, lengthB))
        continue;
      emitError(constantLoc(moduleB, key))
          << "computes with the length of '" << name
          << "': a constant differs between the builds of length " << lengthA
          << " and " << lengthB
          << " (other than a table with one entry per position); a padded "
             "dimension (--dim-range) needs each position computed apart "
             "from the others: give '"
          << name << "' a fixed size with --input-shape";
      return failure();
    }
  }
  return success();
}
