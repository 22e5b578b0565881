//===- FusionGroups.h - Which lowered ops may fuse -------------*- C++ -*-===//
//
// `tessel.fused` regions decide fusion at the graph level. Lowering to
// linalg inlines each region and marks every op it produced with the
// region's group, an integer attribute `tessel.fusion_group`; an op outside
// any region gets a group of its own. The code generators fuse two ops only
// when their groups agree. Ops without a group (hand-written linalg in
// tests, ops the code generators build) constrain nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_FUSIONGROUPS_H
#define TESSEL_DIALECT_TESSEL_IR_FUSIONGROUPS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::tessel {

inline constexpr llvm::StringLiteral kFusionGroupAttr = "tessel.fusion_group";

/// The fusion group of `op`, if it has one.
inline std::optional<int64_t> getFusionGroup(Operation *op) {
  if (auto group = op->getAttrOfType<IntegerAttr>(kFusionGroupAttr))
    return group.getInt();
  return std::nullopt;
}

/// Whether `a` and `b` may run in one kernel: they are in one group, or
/// either has none.
inline bool mayFuse(Operation *a, Operation *b) {
  std::optional<int64_t> ga = getFusionGroup(a), gb = getFusionGroup(b);
  return !ga || !gb || *ga == *gb;
}

/// Gives `to` the group of `from` (an op rebuilt from `from`), if any.
inline void copyFusionGroup(Operation *from, Operation *to) {
  if (Attribute group = from->getAttr(kFusionGroupAttr))
    to->setAttr(kFusionGroupAttr, group);
}

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_IR_FUSIONGROUPS_H
