//===- ChooseKeptProducts.cpp - --accuracy-budget, driven -----------------===//
//
// The driver's side of the accuracy budget: a simulation build for the search
// (AccuracyBudget.cpp), then the choice checked on the real build, adding the
// next most sensitive product while the real build misses the budget.
//
//===----------------------------------------------------------------------===//

#include "ChooseKeptProducts.h"

#include "TemporaryBuild.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/runtime.hpp"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessel;
using ::tessel::ErrorCode;

namespace {

/// The simulation build's products, from its entry's mask arguments.
LogicalResult readProducts(ModuleOp graph,
                           std::vector<BudgetProduct> &products) {
  for (auto func : graph.getOps<func::FuncOp>()) {
    if (!func->hasAttr(kEntryAttrName))
      continue;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto nodes = func.getArgAttrOfType<ArrayAttr>(i, "tessel.nodes");
      auto macs = func.getArgAttrOfType<IntegerAttr>(i, "tessel.multiply_adds");
      if (!nodes || !macs)
        continue;
      BudgetProduct product;
      for (Attribute node : nodes)
        product.nodes.push_back(cast<StringAttr>(node).str());
      product.multiplyAdds = macs.getInt();
      products.push_back(std::move(product));
    }
  }
  return success();
}

/// The data inputs of an artifact (not its precision masks).
bool readDataInputs(const std::string &path, std::vector<ModelInput> &inputs,
                    std::string &message) {
  ::tessel::Model model;
  if (::tessel::Status status = ::tessel::Model::load(path, model);
      !status.ok()) {
    message = std::string("cannot load the simulation build: ") +
              status.message();
    return false;
  }
  for (size_t i = 0; i < model.numInputs(); ++i) {
    const tessel_tensor_desc *d = model.input(i);
    if (llvm::StringRef(d->name).starts_with("precision_mask_"))
      continue;
    inputs.push_back({d->name, d->dtype,
                      std::vector<int64_t>(d->shape, d->shape + d->rank)});
  }
  return true;
}

llvm::json::Value figuresJson(const std::vector<SubsetFigures> &figures) {
  llvm::json::Array array;
  for (const SubsetFigures &f : figures)
    array.push_back(llvm::json::Object{{"name", f.name},
                                       {"samples", int64_t(f.samples)},
                                       {"min_cosine", f.minCosine},
                                       {"mean_cosine", f.meanCosine},
                                       {"max_abs", f.maxAbs},
                                       {"top1_changed_percent", f.top1Changed}});
  return array;
}

std::string describe(const AccuracyBudget &budget,
                     const std::vector<SubsetFigures> &figures) {
  std::string text;
  for (const SubsetFigures &f : figures) {
    if (!text.empty())
      text += ", ";
    text += f.name + " (" + std::to_string(f.samples) + "): ";
    switch (budget.kind) {
    case AccuracyBudget::Cosine:
      text += "min cosine " + llvm::formatv("{0:f8}", f.minCosine).str();
      break;
    case AccuracyBudget::MaxAbs:
      text += "max abs " + llvm::formatv("{0:e3}", f.maxAbs).str();
      break;
    case AccuracyBudget::Top1:
      text += "top-1 changed " +
              llvm::formatv("{0:f2}", f.top1Changed).str() + "%";
      break;
    }
  }
  return text;
}

} // namespace

bool mlir::tessel::chooseKeptProducts(
    ModuleOp module, const DialectRegistry &registry, llvm::StringRef modelFile,
    const AccuracyBudget &budget, const std::string &dataPath,
    const RunnableTarget &runnable, unsigned optLevel, const ArtifactInfo &info,
    PipelineOptions &options, llvm::json::Value &section, std::string &summary,
    ErrorCode &code, std::string &message) {
  // The search build: --quantize's products, or else --precision's, each
  // behind a mask input.
  PipelineOptions simulation = options;
  simulation.target = runnable.info;
  if (options.quantize.empty())
    simulation.precisionMode = "simulate";
  else
    simulation.quantize = "simulate";
  simulation.debugOutputs = false;
  simulation.keepFp32.clear();
  std::vector<BudgetProduct> products;
  ArtifactInfo simulationInfo{info.compilerVersion,
                              info.compileFlags + " (accuracy budget search)"};
  FailureOr<TemporaryArtifact> simulated = buildTemporaryArtifact(
      module, registry, modelFile, simulation, *runnable.machine, optLevel,
      simulationInfo,
      [&](ModuleOp graph) { return readProducts(graph, products); }, code,
      message);
  if (failed(simulated)) {
    message = "the accuracy budget's simulation build failed: " + message;
    return false;
  }
  std::vector<ModelInput> inputs;
  if (!readDataInputs(simulated->getPath(), inputs, message)) {
    code = ErrorCode::Internal;
    return false;
  }
  std::vector<EvaluationSet> sets;
  CalibrationError failure;
  if (!readEvaluationSets(dataPath, inputs, sets, failure)) {
    code = failure.code;
    message = failure.message;
    return false;
  }
  BudgetEvaluator evaluator(budget, std::move(sets));
  auto keepList = [&](const std::vector<size_t> &indices) {
    std::vector<std::string> names;
    for (size_t k : indices)
      names.push_back(products[k].nodes.back());
    return names;
  };
  // The real build keeping `indices` in FP32 (`purpose` names it in the
  // artifact's flags and in an error).
  auto buildKeeping = [&](const std::vector<size_t> &indices,
                          llvm::StringRef purpose)
      -> FailureOr<TemporaryArtifact> {
    PipelineOptions real = options;
    real.target = runnable.info;
    real.debugOutputs = false;
    real.keepFp32 = keepList(indices);
    FailureOr<TemporaryArtifact> built = buildTemporaryArtifact(
        module, registry, modelFile, real, *runnable.machine, optLevel,
        ArtifactInfo{info.compilerVersion, info.compileFlags +
                                               " (accuracy budget " +
                                               purpose.str() + ")"},
        [](ModuleOp) { return success(); }, code, message);
    if (failed(built))
      message = "the accuracy budget's " + purpose.str() +
                " build failed: " + message;
    return built;
  };
  // The FP32 reference: the real build with every product kept (its
  // outputs may differ from the simulation's f32 path in the last bits:
  // another layout, other fusions; a budget of max-abs:0 then holds on it,
  // as it should).
  std::vector<size_t> everyProduct(products.size());
  for (size_t k = 0; k < products.size(); ++k)
    everyProduct[k] = k;
  FailureOr<TemporaryArtifact> reference =
      buildKeeping(everyProduct, "reference");
  if (failed(reference))
    return false;
  std::vector<size_t> order, kept;
  std::vector<SubsetFigures> allLow, chosen;
  evaluator.loadSimulation(simulated->getPath(), products.size());
  if (!evaluator.loadReference(reference->getPath(), failure) ||
      !searchAccuracyBudget(evaluator, products, order, kept, allLow, chosen,
                            failure)) {
    code = failure.code;
    message = failure.message;
    return false;
  }

  // The real build of the choice; while it misses the budget (the
  // simulation sums in f32 where the kernels sum integers or in f16), keep
  // the next most sensitive product too. Each run on the samples.
  auto measureReal = [&](const std::vector<size_t> &indices,
                         std::vector<SubsetFigures> &figures, double &ms) {
    FailureOr<TemporaryArtifact> built = buildKeeping(indices, "check");
    if (failed(built))
      return false;
    if (!evaluator.measure(built->getPath(), figures, ms, failure)) {
      code = failure.code;
      message = failure.message;
      return false;
    }
    return true;
  };
  std::vector<SubsetFigures> verified;
  double chosenMs = 0;
  size_t extra = 0;
  while (true) {
    if (!measureReal(kept, verified, chosenMs))
      return false;
    if (evaluator.holds(verified) || kept.size() == products.size())
      break;
    kept.push_back(order[kept.size()]);
    ++extra;
  }
  // Every product in FP32 is the FP32 model, which the search compares
  // with: missing the budget there is a bug (parseAccuracyBudget refuses
  // the budgets that no build meets).
  if (!evaluator.holds(verified)) {
    code = ErrorCode::Internal;
    message = "--accuracy-budget=" + budget.text +
              " is not met even with every product in FP32 (" +
              describe(budget, verified) + ")";
    return false;
  }
  // The cost: the all-low-precision build's time beside the choice's.
  double allLowMs = chosenMs;
  std::vector<SubsetFigures> allLowReal = verified;
  if (!kept.empty() && !measureReal({}, allLowReal, allLowMs))
    return false;
  options.keepFp32 = keepList(kept);

  int64_t totalMacs = 0, keptMacs = 0;
  for (const BudgetProduct &p : products)
    totalMacs += p.multiplyAdds;
  llvm::json::Array keptJson;
  for (size_t k : kept) {
    keptMacs += products[k].multiplyAdds;
    llvm::json::Array nodes;
    for (const std::string &n : products[k].nodes)
      nodes.push_back(n);
    keptJson.push_back(llvm::json::Object{
        {"nodes", std::move(nodes)},
        {"sensitivity", products[k].sensitivity},
        {"multiply_adds", products[k].multiplyAdds}});
  }
  // Estimated: the kept multiply-adds at FP32's rate instead of the low
  // precision kernel's, relative to the all-low-precision model: VNNI's
  // vpdpbusd does 4x the FP32 FMA's multiply-adds, AVX2's vpmaddwd 2x;
  // vdpbf16ps and vfmadd231ph 2x, AMX-BF16 taken as 4x (its measured share
  // of the tiles' peak, amx-recipe: 27-53% of 16x).
  double share = totalMacs ? double(keptMacs) / double(totalMacs) : 0.0;
  const CpuTargetInfo &target = options.target;
  double speedup = 1.0;
  if (!options.quantize.empty())
    speedup = target.avx512Vnni || target.avxVnni ? 4.0
              : hasEightBitProductKernel(target)  ? 2.0
                                                  : 1.0;
  else if (options.precision == "fp16")
    speedup = hasF16ProductKernel(target) ? 2.0 : 1.0;
  else if (options.precision == "bf16")
    speedup = options.amxBf16Tiles()           ? 4.0
              : options.hasFastBf16Products() ? 2.0
                                              : 1.0;
  double estimated = (1.0 - share) + share * speedup;
  llvm::json::Array sensitivities;
  for (size_t k : order)
    sensitivities.push_back(llvm::json::Object{
        {"node", products[k].nodes.back()},
        {"sensitivity", products[k].sensitivity}});
  section = llvm::json::Object{
      {"budget", budget.text},
      {"data", dataPath},
      {"samples", int64_t(evaluator.numSamples())},
      // The CPU its builds were compiled for and measured on: the host's
      // where it cannot run the target's code.
      {"builds_cpu", runnable.machine->getTargetCPU().str()},
      {"products", int64_t(products.size())},
      {"kept_fp32", std::move(keptJson)},
      {"kept_after_check", int64_t(extra)},
      {"sensitivities", std::move(sensitivities)},
      {"all_low_precision", figuresJson(allLowReal)},
      {"all_low_precision_simulated", figuresJson(allLow)},
      {"chosen", figuresJson(verified)},
      {"chosen_simulated", figuresJson(chosen)},
      {"latency",
       llvm::json::Object{{"kept_multiply_adds_share", share},
                          {"estimated_vs_all_low_precision", estimated},
                          {"measured_all_low_precision_ms", allLowMs},
                          {"measured_chosen_ms", chosenMs},
                          {"measured_vs_all_low_precision",
                           allLowMs > 0 ? chosenMs / allLowMs : 1.0}}}};

  llvm::raw_string_ostream os(summary);
  os << "tessel-compile: --accuracy-budget=" << budget.text << ": ";
  if (kept.empty()) {
    os << "met with every product in low precision ("
       << describe(budget, verified) << ")\n";
    return true;
  }
  os << "keeps " << kept.size() << " of " << products.size()
     << " products in FP32 (" << llvm::format("%.1f", 100.0 * share)
     << "% of the multiply-adds): " << describe(budget, verified)
     << "; all in low precision: " << describe(budget, allLowReal) << "\n";
  for (size_t k : kept)
    os << "  " << llvm::join(products[k].nodes, "+") << "  (sensitivity "
       << llvm::format("%.3g", products[k].sensitivity) << ")\n";
  os << "  measured " << llvm::format("%.3f", chosenMs) << " ms against "
     << llvm::format("%.3f", allLowMs)
     << " ms in low precision (1 thread, median over the samples)\n";
  return true;
}
