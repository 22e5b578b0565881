//===- DynamicBuilds.cpp - The builds of a dynamic artifact ---------------===//

#include "DynamicBuilds.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A padded dimension's constants after the linalg phase, where a mean
/// over the positions divides by their number, compared between its
/// longest length and another (the next longest, or one less when only the
/// longest is built).
std::optional<int> comparePadded(const BatchRequest &batch,
                                 const PaddedRequest &padded, BuildFn build) {
  int64_t longest = padded.lengths.back();
  int64_t other = padded.lengths.size() >= 2
                      ? padded.lengths[padded.lengths.size() - 2]
                      : longest - 1;
  if (other < padded.min)
    return std::nullopt; // a single length: nothing varies
  int64_t samples = batch.enabled() ? 1 : 0;
  BatchConstants a, b;
  OwningOpRef<ModuleOp> shorter, longer;
  if (std::optional<int> failure =
          build(shorter, samples, other, Phase::Linalg, &a))
    return failure;
  if (std::optional<int> failure =
          build(longer, samples, longest, Phase::Linalg, &b))
    return failure;
  if (failed(
          comparePaddedConstants(a, other, b, longest, padded.name, *longer)))
    return 1;
  return std::nullopt;
}

} // namespace

std::optional<int> mlir::tessel::buildVariants(
    const BatchRequest &batch, const PaddedRequest &padded, bool checkOnly,
    BuildFn build, Phase to, std::vector<DynamicBatch::Build> &builds,
    std::vector<OwningOpRef<ModuleOp>> &modules) {
  if (padded.enabled())
    if (std::optional<int> failure = comparePadded(batch, padded, build))
      return failure;
  if (checkOnly)
    return std::nullopt;
  std::vector<int64_t> lengths =
      padded.enabled() ? padded.lengths : std::vector<int64_t>{0};
  std::vector<int64_t> sizes =
      batch.enabled() ? batch.sizes : std::vector<int64_t>{0};
  for (int64_t length : lengths) {
    for (int64_t size : sizes) {
      int64_t samples = size ? size : 1;
      bool first = samples == 1 && length == lengths.front();
      bool built = llvm::any_of(builds, [&](const DynamicBatch::Build &b) {
        return b.batch == samples && b.length == length;
      });
      if (first || built)
        continue;
      OwningOpRef<ModuleOp> module;
      if (std::optional<int> failure = build(module, size, length, to, nullptr))
        return failure;
      builds.push_back({samples, length, *module});
      modules.push_back(std::move(module));
    }
  }
  return std::nullopt;
}

LogicalResult mlir::tessel::recordPaddedDims(ModuleOp module,
                                             CompileReport &report) {
  func::FuncOp entry;
  module.walk([&](func::FuncOp func) {
    if (func->hasAttr(kEntryAttrName))
      entry = func;
  });
  if (!entry)
    return module.emitError("the module has no entry function");
  std::vector<int64_t> inputs, outputs;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    if (entry.getArgAttr(i, "tessel.valid_length"))
      continue;
    auto dim = entry.getArgAttrOfType<IntegerAttr>(i, "tessel.padded_dim");
    inputs.push_back(dim ? dim.getInt() : -1);
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    auto dim = entry.getResultAttrOfType<IntegerAttr>(i, "tessel.padded_dim");
    outputs.push_back(dim ? dim.getInt() : -1);
  }
  if (report.paddedInputDims.empty() && report.paddedOutputDims.empty()) {
    report.paddedInputDims = inputs;
    report.paddedOutputDims = outputs;
    return success();
  }
  if (inputs != report.paddedInputDims || outputs != report.paddedOutputDims)
    return entry.emitError("the builds of the padded dimension '")
           << report.paddedName
           << "' hold it in different dimensions of their inputs or outputs";
  return success();
}
