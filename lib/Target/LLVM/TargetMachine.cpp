//===- TargetMachine.cpp - The LLVM target machine for a CPU target -------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::tessel;

FailureOr<std::unique_ptr<llvm::TargetMachine>>
mlir::tessel::createTargetMachine(const CpuTarget &target, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Micro-kernels may emit an instruction as inline assembly (VNNI's
  // vpdpbusd, lib/Codegen/CPU/MicroKernels.cpp), which the object emitter
  // assembles.
  llvm::InitializeNativeTargetAsmParser();

  llvm::Triple triple(target.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                            : target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return failure();

  std::string cpu = target.cpu;
  std::string features;
  if (cpu.empty() || cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") +
                  std::string(feature.second ? "+" : "-") +
                  feature.first().str();
  }
  if (!target.features.empty())
    features += (features.empty() ? "" : ",") + target.features;

  if (!llvmTarget->hasTargetMachine() ||
      !llvm::TargetRegistry::lookupTarget(triple, error)) {
    error = "no code generator for " + triple.str();
    return failure();
  }
  llvm::CodeGenOptLevel level;
  switch (target.optLevel) {
  case 0:
    level = llvm::CodeGenOptLevel::None;
    break;
  case 1:
    level = llvm::CodeGenOptLevel::Less;
    break;
  case 3:
    level = llvm::CodeGenOptLevel::Aggressive;
    break;
  default:
    level = llvm::CodeGenOptLevel::Default;
    break;
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine) {
    error = "cannot create a target machine for CPU '" + cpu + "'";
    return failure();
  }
  // An unknown CPU name only warns inside LLVM; refuse it here.
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    error = "unknown target CPU '" + cpu + "'";
    return failure();
  }
  return machine;
}
