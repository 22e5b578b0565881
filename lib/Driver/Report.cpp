//===- Report.cpp - tessel-compile --report ------------------------------===//

#include "Report.h"

#include "tessel/Driver/Diagnostics.h"
#include "tessel/Support/Remarks.h"

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
  // Loop nests code generation formed, then the structured ops left.
  {
    std::lock_guard<std::mutex> lock(remarksMutex);
    for (const auto &[function, formed] : formedKernels)
      kernels.insert(kernels.end(), formed.begin(), formed.end());
  }
  module.walk([&](linalg::LinalgOp op) {
    Kernel kernel;
    kernel.op = op->getName().getStringRef().str();
    collectOrigins(op->getLoc(), kernel.nodes, kernel.opTypes);
    kernels.push_back(std::move(kernel));
  });
}

/// The integer metric `key` of `remark`, or 0.
static int64_t metricOf(const remark::detail::Remark &remark,
                        llvm::StringRef key) {
  for (const remark::detail::Remark::Arg &arg : remark.getArgs()) {
    int64_t value = 0;
    if (arg.key == key && !llvm::StringRef(arg.val).getAsInteger(10, value))
      return value;
  }
  return 0;
}

void CompileReport::recordRemark(const remark::detail::Remark &remark) {
  if (remark.getCategoryName() != kRemarkCategory)
    return;
  std::lock_guard<std::mutex> lock(remarksMutex);
  llvm::StringRef name = remark.getRemarkName();
  if (name == kKernelRemark) {
    Kernel kernel;
    for (const remark::detail::Remark::Arg &arg : remark.getArgs())
      if (arg.key == "kind")
        kernel.op = "tessel.kernel." + arg.val;
    collectOrigins(remark.getLocation(), kernel.nodes, kernel.opTypes);
    formedKernels[remark.getFunction().str()].push_back(std::move(kernel));
  } else if (name == kDroppedChannelsRemark) {
    droppedChannels += metricOf(remark, "channels");
  } else if (name == kIntegerProductRemark ||
             name == kFloatQuantizedProductRemark) {
    QuantizedProduct product;
    collectOrigins(remark.getLocation(), product.nodes, product.opTypes);
    for (const remark::detail::Remark::Arg &arg : remark.getArgs()) {
      if (arg.key == "reason")
        product.detail = arg.val;
      else if (arg.key == "lhs" || arg.key == "rhs")
        product.detail += (product.detail.empty() ? "" : " x ") + arg.val;
    }
    (name == kIntegerProductRemark ? integerProducts : floatQuantizedProducts)
        .push_back(std::move(product));
  } else if (name == kLowPrecisionProductRemark ||
             name == kFullPrecisionProductRemark) {
    QuantizedProduct product;
    collectOrigins(remark.getLocation(), product.nodes, product.opTypes);
    for (const remark::detail::Remark::Arg &arg : remark.getArgs())
      if (arg.key == "reason" || arg.key == "precision")
        product.detail = arg.val;
    (name == kLowPrecisionProductRemark ? lowPrecisionProducts
                                        : fullPrecisionProducts)
        .push_back(std::move(product));
  } else if (name == kSampleLoopRemark) {
    SampleLoop loop;
    collectOrigins(remark.getLocation(), loop.nodes, loop.opTypes);
    loop.samples = metricOf(remark, "samples");
    sampleLoops.push_back(std::move(loop));
  } else if (name == kLayoutConversionsRemark) {
    layoutsAssigned = true;
    layoutConversionsAtEdges = metricOf(remark, "edges");
    layoutConversionsInside = metricOf(remark, "inside");
  }
}

namespace {
/// Hands every remark to the report.
class ReportRemarkStreamer : public remark::detail::MLIRRemarkStreamerBase {
public:
  explicit ReportRemarkStreamer(CompileReport &report) : report(report) {}
  void streamOptimizationRemark(const remark::detail::Remark &remark) override {
    report.recordRemark(remark);
  }

private:
  CompileReport &report;
};
} // namespace

LogicalResult mlir::tessel::recordRemarksIn(MLIRContext &context,
                                            CompileReport &report) {
  remark::RemarkCategories categories;
  categories.passed = kRemarkCategory.str();
  categories.analysis = kRemarkCategory.str();
  return remark::enableOptimizationRemarks(
      context, std::make_unique<ReportRemarkStreamer>(report),
      std::make_unique<remark::RemarkEmittingPolicyAll>(), categories,
      /*printAsEmitRemarks=*/false);
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
  // An entry naming ONNX nodes: {"nodes": [...], "onnx_op_types": [...]}
  // and `key: value`.
  auto originsOf = [](const std::vector<std::string> &nodeNames,
                      const std::vector<std::string> &opTypes,
                      llvm::StringRef key, const std::string &value) {
    Array nodes, types;
    for (const std::string &n : nodeNames)
      nodes.push_back(n);
    for (const std::string &t : opTypes)
      types.push_back(t);
    return Object{{key, value},
                  {"nodes", std::move(nodes)},
                  {"onnx_op_types", std::move(types)}};
  };
  Array kernelArray;
  for (const Kernel &k : kernels)
    kernelArray.push_back(originsOf(k.nodes, k.opTypes, "op", k.op));
  // --quantize's scheme and what calibration chose; null without it.
  auto calibration = [&]() -> llvm::json::Value {
    if (calibrationMethod.empty())
      return nullptr;
    Array activations;
    for (const CalibratedActivation &a : calibratedActivations)
      activations.push_back(Object{{"low", a.low},
                                   {"high", a.high},
                                   {"scale", a.scale},
                                   {"zero_point", a.zeroPoint}});
    return Object{
        {"method", calibrationMethod},
        {"samples", calibrationSamples},
        {"activations_scheme", "uint8, one scale and zero point per tensor"},
        {"weights_scheme", "int8, symmetric, one scale per output channel"},
        {"activations", std::move(activations)}};
  };
  Array sampleLoopArray;
  for (const SampleLoop &loop : sampleLoops) {
    Object entry = originsOf(loop.nodes, loop.opTypes, "op", "scf.for");
    entry["samples"] = loop.samples;
    sampleLoopArray.push_back(std::move(entry));
  }
  auto quantizedArray = [&](const std::vector<QuantizedProduct> &products,
                            llvm::StringRef detailKey) {
    Array array;
    for (const QuantizedProduct &p : products)
      array.push_back(originsOf(p.nodes, p.opTypes, detailKey, p.detail));
    return array;
  };
  Object root{
      {"schema_version", kSchemaVersion},
      {"compiler", Object{{"name", "tessel"},
                          {"version", compilerVersion},
                          {"git_revision", gitRevision},
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
      {"sample_loops", std::move(sampleLoopArray)},
      {"dynamic_batch", batchName.empty()
                            ? llvm::json::Value(nullptr)
                            : llvm::json::Value(Object{
                                  {"name", batchName},
                                  {"min", batchMin},
                                  {"max", batchMax},
                                  {"sizes", llvm::json::Array(batchSizes)}})},
      {"padded_dim",
       paddedName.empty()
           ? llvm::json::Value(nullptr)
           : llvm::json::Value(
                 Object{{"name", paddedName},
                        {"min", paddedMin},
                        {"max", paddedMax},
                        {"lengths", llvm::json::Array(paddedLengths)},
                        {"input_dims", llvm::json::Array(paddedInputDims)},
                        {"output_dims", llvm::json::Array(paddedOutputDims)}})},
      {"graph",
       Object{{"dropped_channels", droppedChannels},
              {"layout_conversions",
               layoutsAssigned ? llvm::json::Value(Object{
                                     {"edges", layoutConversionsAtEdges},
                                     {"inside", layoutConversionsInside}})
                               : llvm::json::Value(nullptr)}}},
      {"quantization",
       Object{
           {"integer_products", quantizedArray(integerProducts, "operands")},
           {"float_products", quantizedArray(floatQuantizedProducts, "reason")},
           {"calibration", calibration()}}},
      {"precision", Object{{"low_precision_products",
                            quantizedArray(lowPrecisionProducts, "precision")},
                           {"full_precision_products",
                            quantizedArray(fullPrecisionProducts, "reason")}}},
      {"accuracy_budget", accuracyBudget},
      {"memory",
       Object{{"recorded", memoryRecorded},
              {"workspace_bytes", static_cast<int64_t>(workspaceBytes)},
              {"weights_bytes", static_cast<int64_t>(weightsBytes)},
              {"weights_file",
               weightsFile.empty() ? llvm::json::Value(nullptr)
                                   : llvm::json::Value(weightsFile)},
              {"weights_file_bytes", static_cast<int64_t>(weightsFileBytes)}}}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write the report '" + path.str() + "': " + ec.message();
    return failure();
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}
