//===- Report.cpp - tessel-compile --report
//--------------------------------===//

#include "Report.h"

#include "tessel/Driver/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::tessel;

/// Collects the ONNX nodes named by a (possibly fused) location.
static void collectOrigins(Location loc, std::vector<std::string> &nodes,
                           std::vector<std::string> &opTypes) {
  // A fusion of several ops' locations (no op type as metadata): each.
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !isa_and_nonnull<StringAttr>(fused.getMetadata())) {
    for (Location inner : fused.getLocations())
      collectOrigins(inner, nodes, opTypes);
    return;
  }
  if (std::optional<NodeOrigin> origin = getNodeOrigin(loc)) {
    if (llvm::find(nodes, origin->name) == nodes.end()) {
      nodes.push_back(origin->name);
      opTypes.push_back(origin->opType);
    }
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      collectOrigins(inner, nodes, opTypes);
}

void CompileReport::recordKernels(ModuleOp module) {
  kernels.clear();
  // Loop nests code generation formed, recorded on their function
  // (lib/Codegen/CPU/KernelMarks.h), then the structured ops left.
  module.walk([&](func::FuncOp func) {
    auto marks = func->getAttrOfType<ArrayAttr>("tessel.kernels");
    for (Attribute mark : marks ? marks.getValue() : ArrayRef<Attribute>()) {
      auto dict = dyn_cast<DictionaryAttr>(mark);
      auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
      auto loc = dict ? dict.getAs<LocationAttr>("loc") : LocationAttr();
      if (!kind || !loc)
        continue;
      Kernel kernel;
      kernel.op = ("tessel.kernel." + kind.getValue()).str();
      collectOrigins(Location(loc), kernel.nodes, kernel.opTypes);
      kernels.push_back(std::move(kernel));
    }
  });
  module.walk([&](linalg::LinalgOp op) {
    Kernel kernel;
    kernel.op = op->getName().getStringRef().str();
    collectOrigins(op->getLoc(), kernel.nodes, kernel.opTypes);
    kernels.push_back(std::move(kernel));
  });
}

LogicalResult CompileReport::write(llvm::StringRef path,
                                   std::string &error) const {
  using llvm::json::Array;
  using llvm::json::Object;
  Array phaseArray;
  double total = 0;
  for (const PhaseTime &p : phases) {
    phaseArray.push_back(Object{{"name", p.name}, {"seconds", p.seconds}});
    total += p.seconds;
  }
  Array kernelArray;
  for (const Kernel &k : kernels) {
    Array nodes, types;
    for (const std::string &n : k.nodes)
      nodes.push_back(n);
    for (const std::string &t : k.opTypes)
      types.push_back(t);
    kernelArray.push_back(Object{{"op", k.op},
                                 {"nodes", std::move(nodes)},
                                 {"onnx_op_types", std::move(types)}});
  }
  Object root{{"schema_version", kSchemaVersion},
              {"compiler", Object{{"name", "tessel"},
                                  {"version", compilerVersion},
                                  {"llvm_version", llvmVersion},
                                  {"flags", flags},
                                  {"input", input},
                                  {"output", output},
                                  {"total_seconds", total}}},
              {"target", Object{{"kind", "cpu"},
                                {"triple", triple},
                                {"cpu", cpu},
                                {"features", features}}},
              {"phases", std::move(phaseArray)},
              {"kernels", std::move(kernelArray)},
              {"graph", Object{{"dropped_channels", droppedChannels},
                               {"layout_conversions",
                                layoutsAssigned
                                    ? llvm::json::Value(Object{
                                          {"edges", layoutConversionsAtEdges},
                                          {"inside", layoutConversionsInside}})
                                    : llvm::json::Value(nullptr)}}},
              {"memory",
               Object{{"recorded", memoryRecorded},
                      {"workspace_bytes", static_cast<int64_t>(workspaceBytes)},
                      {"weights_bytes", static_cast<int64_t>(weightsBytes)}}}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write the report '" + path.str() + "': " + ec.message();
    return failure();
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}
