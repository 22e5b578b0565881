//===- Codegen.cpp - LLVM optimisation and object emission ----------------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessel;

void mlir::tessel::optimizeModule(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  llvm::OptimizationLevel level = llvm::OptimizationLevel::O2;
  switch (optLevel) {
  case 0:
    level = llvm::OptimizationLevel::O0;
    break;
  case 1:
    level = llvm::OptimizationLevel::O1;
    break;
  case 3:
    level = llvm::OptimizationLevel::O3;
    break;
  default:
    break;
  }
  llvm::ModulePassManager mpm =
      optLevel == 0 ? pb.buildO0DefaultPipeline(level)
                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

LogicalResult mlir::tessel::emitObjectFile(llvm::Module &module,
                                           llvm::TargetMachine &machine,
                                           llvm::StringRef path,
                                           std::string &error) {
  if (llvm::verifyModule(module, &llvm::errs())) {
    error = "the generated LLVM IR does not verify";
    return failure();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(module);
  os.flush();
  if (os.has_error()) {
    error = "error writing '" + path.str() + "'";
    os.clear_error();
    return failure();
  }
  return success();
}
