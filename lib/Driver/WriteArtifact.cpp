//===- WriteArtifact.cpp - tessel-compile's last phases -------------------===//

#include "WriteArtifact.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tessel;
using ::tessel::ErrorCode;

LogicalResult mlir::tessel::writeArtifact(ModuleOp module,
                                          llvm::TargetMachine &machine,
                                          ArtifactRequest request,
                                          CompileReport &report,
                                          Progress &progress,
                                          ArtifactFailure &why) {
  auto fail = [&](std::string where, ErrorCode code, std::string message) {
    why = {std::move(where), code, std::move(message)};
    return failure();
  };
  auto start = std::chrono::steady_clock::now();
  auto secondsSince = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         from)
        .count();
  };
  report.triple = machine.getTargetTriple().str();
  report.cpu = machine.getTargetCPU().str();
  report.features = getEnabledTargetFeatures(machine);
  if (auto size = module->getAttrOfType<IntegerAttr>(kWorkspaceSizeAttrName))
    report.workspaceBytes = size.getValue().getZExtValue();
  if (request.batch)
    for (const DynamicBatch::Build &variant : request.batch->variants)
      if (auto bytes = variant.module->getAttrOfType<IntegerAttr>(
              kWorkspaceSizeAttrName))
        report.workspaceBytes = std::max<uint64_t>(
            report.workspaceBytes, bytes.getValue().getZExtValue());
  report.output = request.path;

  // Past the threshold, the weights go to a file beside the artifact,
  // written from the MLIR attributes (LLVM IR never holds them).
  {
    ExternalWeights weights;
    // The builds of a dynamic batch or a padded dimension share their
    // weights inside the artifact.
    if (!request.batch)
      externalizeWeights(module, kMinExternalTensorBytes,
                         request.weightsFileThreshold, weights);
    if (!weights.tensors.empty()) {
      progress.begin("weights file", std::to_string(weights.size) + " bytes");
      std::string weightsPath = request.path + ".weights";
      std::string error;
      if (failed(writeWeightsFile(weights, weightsPath,
                                  request.info.weightsFile, error)))
        return fail("tessel-compile", ErrorCode::OutputFile, error);
      request.info.weightsFile.name =
          llvm::sys::path::filename(weightsPath).str();
      report.weightsFile = weightsPath;
      report.weightsFileBytes = request.info.weightsFile.size;
    }
  }
  llvm::LLVMContext llvmContext;
  progress.begin("llvm-opt", "LLVM -O" + std::to_string(request.optLevel) +
                                 " for " + report.cpu);
  std::unique_ptr<llvm::Module> llvmModule =
      translateToArtifactModule(module, llvmContext, machine, request.info,
                                &report.weightsBytes, request.batch);
  if (!llvmModule)
    return fail("", ErrorCode::Target, ""); // diagnostics printed
  report.memoryRecorded = true;
  // An artifact's machine code is compiled in parts on threads
  // (emitObjectFiles), each part optimised there; --emit=obj and
  // --emit=llvm-ir take the whole module, optimised here.
  unsigned parts = request.emitKind != "so" ? 1
                   : request.codegenParts > 0
                       ? std::min(request.codegenParts, 64u)
                       : codegenParts(*llvmModule);
  if (parts == 1)
    optimizeModule(*llvmModule, machine, request.optLevel);
  report.phases.push_back({"llvm-opt", secondsSince(start)});

  start = std::chrono::steady_clock::now();
  if (request.emitKind == "llvm-ir") {
    std::string errorMessage;
    auto output = openOutputFile(request.path, &errorMessage);
    if (!output)
      return fail("tessel-compile", ErrorCode::OutputFile, errorMessage);
    llvmModule->print(output->os(), nullptr);
    output->keep();
    report.phases.push_back({"emit", secondsSince(start)});
    return success();
  }
  std::vector<std::string> objectPaths;
  auto removeObjects = [&] {
    if (request.emitKind == "so")
      for (const std::string &path : objectPaths)
        llvm::sys::fs::remove(path);
  };
  if (request.emitKind == "so") {
    for (unsigned i = 0; i < parts; ++i) {
      llvm::SmallString<128> tempObject;
      if (llvm::sys::fs::createTemporaryFile("tessel", "o", tempObject)) {
        removeObjects();
        return fail("tessel-compile", ErrorCode::OutputFile,
                    "cannot create a temporary file");
      }
      objectPaths.push_back(tempObject.str().str());
    }
  } else {
    objectPaths.push_back(request.path);
  }
  progress.begin("machine code",
                 report.cpu +
                     (parts > 1
                          ? ", " + std::to_string(parts) +
                                " parts on threads (LLVM -O" +
                                std::to_string(request.optLevel) + " in each)"
                          : ""));
  std::string error;
  std::optional<unsigned> partsOptLevel;
  if (parts > 1)
    partsOptLevel = request.optLevel;
  if (failed(emitObjectFiles(std::move(llvmModule), machine, objectPaths,
                             partsOptLevel, error))) {
    removeObjects();
    return fail(request.inputFile, ErrorCode::Target, error);
  }
  report.phases.push_back({"codegen", secondsSince(start)});
  if (request.emitKind == "so") {
    progress.begin("link", request.path);
    start = std::chrono::steady_clock::now();
    LogicalResult linked = linkSharedObject(objectPaths, request.path, error);
    removeObjects();
    if (failed(linked))
      return fail(request.inputFile, ErrorCode::Target, error);
    report.phases.push_back({"link", secondsSince(start)});
  }
  return success();
}
