//===- TargetInfo.cpp - The CPU target description from LLVM --------------===//

#include "tessel/Target/LLVM/TargetInfo.h"

#include "llvm/MC/MCSubtargetInfo.h"

using namespace mlir;
using namespace mlir::tessel;

CpuTargetInfo mlir::tessel::getCpuTargetInfo(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *sti = machine.getMCSubtargetInfo();
  auto has = [&](llvm::StringRef feature) {
    return sti->checkFeatures(("+" + feature).str());
  };
  CpuTargetInfo info;
  info.cpu = machine.getTargetCPU().str();
  info.avx512f = has("avx512f");
  info.vectorBits = info.avx512f ? 512 : has("avx") ? 256 : 128;
  info.vectorRegisters = info.avx512f ? 32 : 16;
  info.fma = has("fma");
  info.avx2 = has("avx2");
  info.avx512Vnni = has("avx512vnni");
  info.avxVnni = has("avxvnni");
  info.avx512Bf16 = has("avx512bf16");
  info.avx512Fp16 = has("avx512fp16");
  info.amxTile = has("amx-tile");
  info.amxInt8 = has("amx-int8");
  info.amxBf16 = has("amx-bf16");
  // Measured (CpuTargetInfo::bf16DotRate); LLVM's scheduling models agree
  // for these cores (vdpbf16ps zmm: a reciprocal throughput of 2 cycles)
  // but not for Zen 4, whose measured rate is the instruction's nominal 2.
  if (llvm::is_contained({"sapphirerapids", "emeraldrapids", "graniterapids",
                          "graniterapids-d"},
                         info.cpu))
    info.bf16DotRate = 0.5;
  return info;
}

FailureOr<CpuTargetInfo>
mlir::tessel::resolveCpuTargetInfo(const CpuTarget &target,
                                   std::string &error) {
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(target, error);
  if (failed(machine))
    return failure();
  return getCpuTargetInfo(**machine);
}
