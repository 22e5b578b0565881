//===- NodeNames.cpp - The model nodes a loop computes --------------------===//

#include "NodeNames.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {
constexpr size_t kMaxNodeNamesChars = 160;
} // namespace

std::string mlir::tessel::cpu::nodeNamesOf(Operation *op) {
  llvm::SetVector<StringRef> names;
  auto collect = [&](Operation *inner) {
    inner->getLoc()->walk([&](Location loc) {
      if (auto named = dyn_cast<NameLoc>(loc))
        if (!named.getName().getValue().empty())
          names.insert(named.getName().getValue());
      return WalkResult::advance();
    });
  };
  // The body's ops first: a fused loop takes its consumer's location.
  for (Region &region : op->getRegions())
    region.walk<WalkOrder::PreOrder>(collect);
  collect(op);
  std::string joined;
  for (StringRef name : names) {
    if (!joined.empty() &&
        joined.size() + 1 + name.size() > kMaxNodeNamesChars) {
      joined += "+...";
      break;
    }
    if (!joined.empty())
      joined += '+';
    joined += name.take_front(kMaxNodeNamesChars).str();
  }
  for (char &c : joined)
    if (static_cast<unsigned char>(c) < 0x21 ||
        static_cast<unsigned char>(c) > 0x7e || c == '"' || c == '\\')
      c = '_';
  return joined;
}

std::string mlir::tessel::cpu::outlinedFunctionName(ModuleOp module,
                                                    StringRef prefix,
                                                    Operation *op,
                                                    unsigned &counter) {
  std::string node = nodeNamesOf(op);
  auto next = [&] {
    std::string name = (prefix + "_" + Twine(counter++)).str();
    return node.empty() ? name : name + ":" + node;
  };
  std::string name = next();
  while (module.lookupSymbol(name))
    name = next();
  return name;
}
