//===- NodeNames.cpp - The model nodes an op's location names -------------===//

#include "NodeNames.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

void mlir::tessel::collectNodeNames(Location loc,
                                    SmallVectorImpl<StringRef> &names) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return;
  if (isa_and_nonnull<StringAttr>(fused.getMetadata())) {
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner)) {
        if (!llvm::is_contained(names, name.getName().getValue()))
          names.push_back(name.getName().getValue());
        return;
      }
    return;
  }
  for (Location inner : fused.getLocations())
    collectNodeNames(inner, names);
}

StringRef mlir::tessel::getNodeName(Location loc) {
  SmallVector<StringRef> names;
  collectNodeNames(loc, names);
  return names.empty() ? StringRef() : names.back();
}
