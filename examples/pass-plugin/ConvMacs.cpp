//===- ConvMacs.cpp - An out-of-tree pass plugin for Tessel ---------------===//
//
// `tessel-example-conv-macs` counts the multiply-adds of every convolution
// in a tessel-dialect module and prints one line per convolution, named by
// its ONNX node, then the total: what a developer reads to see where a
// model's arithmetic is. It uses Tessel's C++ API (tessel::ConvOp), which
// the loading tool exports, and registers itself through MLIR's pass plugin
// interface (mlirGetPassPluginInfo).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// The ONNX node name of a location, if it carries one.
std::string nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = nodeName(inner); !name.empty())
        return name;
  return "";
}

struct ConvMacsPass
    : public PassWrapper<ConvMacsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ConvMacsPass)

  ConvMacsPass() = default;
  ConvMacsPass(const ConvMacsPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "tessel-example-conv-macs"; }
  StringRef getDescription() const final {
    return "Prints each tessel.conv's multiply-adds and the total (an "
           "example pass plugin)";
  }

  Option<int64_t> top{*this, "top",
                      llvm::cl::desc("Print only the N largest (0: all)"),
                      llvm::cl::init(0)};

  void runOnOperation() override {
    struct Entry {
      std::string name;
      int64_t macs;
    };
    std::vector<Entry> entries;
    int64_t total = 0;
    getOperation().walk([&](tessel::ConvOp conv) {
      auto result = dyn_cast<RankedTensorType>(conv.getResult().getType());
      auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
      if (!result || !weight || !result.hasStaticShape() ||
          !weight.hasStaticShape())
        return;
      // Every output element sums over one filter: Cin/group x kernel,
      // which is the weight's size over its output channels.
      int64_t perOutput = weight.getNumElements() / weight.getDimSize(0);
      int64_t macs = result.getNumElements() * perOutput;
      std::string name = nodeName(conv.getLoc());
      entries.push_back({name.empty() ? "<unnamed conv>" : name, macs});
      total += macs;
    });
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry &a, const Entry &b) {
                       return a.macs > b.macs;
                     });
    size_t shown = top > 0 ? std::min<size_t>(top, entries.size())
                           : entries.size();
    for (size_t i = 0; i < shown; ++i)
      llvm::errs() << "conv-macs: " << entries[i].name << ": "
                   << entries[i].macs << "\n";
    llvm::errs() << "conv-macs: total " << total << " in " << entries.size()
                 << " convolutions\n";
    markAllAnalysesPreserved();
  }
};

} // namespace

/// The plugin's entry point, which tessel-opt and tessel-compile call after
/// loading it.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TesselExamplePlugin", LLVM_VERSION_STRING,
          [] { PassRegistration<ConvMacsPass>(); }};
}
