//===- TargetInfo.cpp - The CPU target description from LLVM --------------===//

#include "tessel/Target/LLVM/TargetInfo.h"

#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/MC/MCSubtargetInfo.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::tessel;

/// The reciprocal throughput and latency LLVM's scheduling model of `sti`
/// gives the instruction `name`, if it knows it.
static std::optional<std::pair<double, int>>
scheduled(const llvm::MCSubtargetInfo &sti, const llvm::MCInstrInfo &instrs,
          llvm::StringRef name) {
  const llvm::MCSchedModel &model = sti.getSchedModel();
  if (!model.hasInstrSchedModel())
    return std::nullopt;
  for (unsigned opcode = 0, e = instrs.getNumOpcodes(); opcode < e; ++opcode) {
    if (instrs.getName(opcode) != name)
      continue;
    const llvm::MCSchedClassDesc *desc =
        model.getSchedClassDesc(instrs.get(opcode).getSchedClass());
    if (!desc || !desc->isValid() || desc->isVariant())
      return std::nullopt;
    return std::make_pair(
        llvm::MCSchedModel::getReciprocalThroughput(sti, *desc),
        llvm::MCSchedModel::computeInstrLatency(sti, *desc));
  }
  return std::nullopt;
}

/// The core's FMA and load throughput at the widest vector (what the
/// register-tile cost model weighs tiles with), from LLVM's scheduling
/// model of the CPU.
static void describeCore(CpuTargetInfo &info, const llvm::MCSubtargetInfo &sti,
                         const llvm::MCInstrInfo &instrs) {
  const char *suffix =
      info.vectorBits == 512 ? "Z" : info.vectorBits == 256 ? "Y" : "";
  if (info.fma)
    if (auto fma = scheduled(sti, instrs,
                             (llvm::Twine("VFMADD231PS") + suffix + "r").str());
        fma && fma->first > 0) {
      info.fmasPerCycle = 1.0 / fma->first;
      info.fmaLatency = std::max(1, fma->second);
    }
  if (auto load = scheduled(sti, instrs,
                            info.vectorBits >= 256
                                ? (llvm::Twine("VMOVUPS") + suffix + "rm").str()
                                : std::string("MOVUPSrm"));
      load && load->first > 0)
    info.loadsPerCycle = 1.0 / load->first;
  // Intel's server cores from Ice Lake on have two 512-bit FMA units (the
  // second on port 5), which LLVM's models of them, shared with the client
  // cores, leave out (a reciprocal throughput of 1 cycle): measured on
  // Emerald Rapids, 174.8 GFLOP/s on one core (bench/peak.c) is 2 FMAs of
  // 16 lanes per cycle at its clock. (Skylake-X's model has both.)
  if (info.vectorBits == 512 &&
      llvm::is_contained({"icelake-server", "sapphirerapids", "emeraldrapids",
                          "graniterapids", "graniterapids-d",
                          "diamondrapids"},
                         info.cpu))
    info.fmasPerCycle = std::max(info.fmasPerCycle, 2.0);
}

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
  if (const llvm::MCInstrInfo *instrs = machine.getMCInstrInfo())
    describeCore(info, *sti, *instrs);
  // L2 per core, by name (LLVM's models do not say; the same name on the
  // host and in --target-cpu gives the same code): Zen 1-3 512 KiB,
  // Intel's server cores from Sapphire Rapids on 2 MiB, Haswell to
  // Skylake clients 256 KiB; others keep Zen 4's 1 MiB.
  if (llvm::is_contained({"znver1", "znver2", "znver3"}, info.cpu))
    info.l2Bytes = 512 << 10;
  else if (llvm::is_contained({"sapphirerapids", "emeraldrapids",
                               "graniterapids", "graniterapids-d",
                               "diamondrapids"},
                              info.cpu))
    info.l2Bytes = 2 << 20;
  else if (llvm::is_contained({"haswell", "broadwell", "skylake"}, info.cpu))
    info.l2Bytes = 256 << 10;
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
