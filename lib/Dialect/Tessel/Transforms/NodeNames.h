//===- NodeNames.h - The model nodes an op's location names -----*- C++ -*-===//

#ifndef TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_NODENAMES_H
#define TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_NODENAMES_H

#include "mlir/IR/Location.h"

namespace mlir::tessel {

/// Appends the model nodes an op at `loc` computes, in order, each once: the
/// importer's `fused<"OpType">["name"]`, or each of a fusion of such
/// locations (an op that absorbed others: a conv and its folded batch
/// norm), whose result is the last one's output. Nothing when `loc` names
/// no node (an initializer's plain name, an unknown location).
void collectNodeNames(Location loc, SmallVectorImpl<StringRef> &names);

/// The node whose output an op at `loc` computes (the last of
/// collectNodeNames), or "".
StringRef getNodeName(Location loc);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_NODENAMES_H
