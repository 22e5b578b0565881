//===- TemporaryBuild.cpp - A build of the model for the driver to run ----===//

#include "TemporaryBuild.h"

#include "tessel/Driver/Diagnostics.h"
#include "tessel/Target/LLVM/TargetInfo.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::tessel;
using ::tessel::ErrorCode;

TemporaryArtifact &
TemporaryArtifact::operator=(TemporaryArtifact &&other) noexcept {
  if (this != &other) {
    if (!path.empty())
      llvm::sys::fs::remove(path);
    path = std::move(other.path);
    other.path.clear();
  }
  return *this;
}

TemporaryArtifact::~TemporaryArtifact() {
  if (!path.empty())
    llvm::sys::fs::remove(path);
}

FailureOr<RunnableTarget>
mlir::tessel::selectRunnableTarget(llvm::TargetMachine &target,
                                   const CpuTargetInfo &info, unsigned optLevel,
                                   std::string &error) {
  // The host's ISA features by LLVM's names; a target feature the map does
  // not name (a tuning flag: fast-gather, branchfusion) runs anywhere.
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  RunnableTarget runnable;
  // Named: split's range refers into the string (a temporary in the loop's
  // header would be freed before the loop runs).
  std::string features = getEnabledTargetFeatures(target);
  for (llvm::StringRef feature : llvm::split(features, ',')) {
    feature.consume_front("+");
    auto it = hostFeatures.find(feature);
    if (it != hostFeatures.end() && !it->second)
      runnable.lacking +=
          (runnable.lacking.empty() ? "" : ", ") + feature.str();
  }
  if (runnable.lacking.empty()) {
    runnable.machine = &target;
    runnable.info = info;
    return runnable;
  }
  FailureOr<std::unique_ptr<llvm::TargetMachine>> host =
      createTargetMachine(CpuTarget{"", "host", "", optLevel}, error);
  if (failed(host))
    return failure();
  runnable.host = std::move(*host);
  runnable.machine = runnable.host.get();
  runnable.info = getCpuTargetInfo(*runnable.machine);
  return runnable;
}

FailureOr<TemporaryArtifact> mlir::tessel::buildTemporaryArtifact(
    ModuleOp module, const DialectRegistry &registry,
    llvm::StringRef diagnosticsFile, const PipelineOptions &options,
    llvm::TargetMachine &machine, unsigned optLevel, const ArtifactInfo &info,
    llvm::function_ref<LogicalResult(ModuleOp)> inspectGraph, ErrorCode &code,
    std::string &message) {
  MLIRContext context(registry);
  TesselDiagnosticHandler diagnostics(&context, diagnosticsFile.str());
  // The model copied into that context (written as bytecode, locations
  // kept, and read there: ops cannot move between contexts). Not as text:
  // the printer takes the command line's --mlir-* printing options, and
  // --mlir-elide-elementsattrs-if-larger would copy the weights as "...".
  OwningOpRef<ModuleOp> copy;
  {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    if (succeeded(writeBytecodeToFile(module, os)))
      copy = parseSourceString<ModuleOp>(bytes, &context);
  }
  auto fail = [&](ErrorCode c, const std::string &m) {
    code = c;
    message = m;
    return failure();
  };
  if (!copy)
    return fail(ErrorCode::Internal, "cannot copy the model");
  auto runPhases = [&](Phase first, Phase last) {
    PassManager pm(&context, ModuleOp::getOperationName());
    buildPipeline(pm, first, last, options);
    return pm.run(*copy);
  };
  if (failed(runPhases(Phase::Import, Phase::Graph)))
    return fail(ErrorCode::Lowering, "the build failed (graph phase)");
  if (failed(inspectGraph(*copy))) {
    code = ErrorCode::Internal;
    return failure();
  }
  if (failed(runPhases(Phase::Graph, Phase::LLVM)))
    return fail(ErrorCode::Lowering, "the build failed (code generation)");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToArtifactModule(*copy, llvmContext, machine, info, nullptr);
  if (!llvmModule)
    return fail(ErrorCode::Lowering, "the build failed (LLVM translation)");
  optimizeModule(*llvmModule, machine, optLevel);
  llvm::SmallString<128> object, shared;
  if (llvm::sys::fs::createTemporaryFile("tessel-build", "o", object) ||
      llvm::sys::fs::createTemporaryFile("tessel-build", "so", shared))
    return fail(ErrorCode::OutputFile, "cannot create a temporary file");
  TemporaryArtifact artifact(shared.str().str());
  std::string error;
  LogicalResult built =
      emitObjectFile(*llvmModule, machine, object.str(), error);
  if (succeeded(built))
    built = linkSharedObject({object.str().str()}, shared.str(), error);
  llvm::sys::fs::remove(object);
  if (failed(built))
    return fail(ErrorCode::Target, error);
  return artifact;
}
