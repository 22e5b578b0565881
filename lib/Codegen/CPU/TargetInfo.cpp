//===- TargetInfo.cpp - Micro-kernel selection from the target ------------===//
//
// One table of which product runs on which micro-kernel: each element-type
// combination lists its micro-kernels best first with the target features
// each needs; the first the target has is the best one, the first that also
// has an emitter is the one generated.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/TargetInfo.h"

#include "llvm/Support/Format.h"

#include <algorithm>

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace mlir::tessel;

llvm::StringRef mlir::tessel::stringifyMicroKernel(MicroKernelKind kind) {
  switch (kind) {
  case MicroKernelKind::None:
    return "none";
  case MicroKernelKind::F32Fma:
    return "f32-fma";
  case MicroKernelKind::I8Vnni:
    return "i8-vnni";
  case MicroKernelKind::I8Madd:
    return "i8-madd";
  case MicroKernelKind::Bf16Dot:
    return "bf16-dot";
  case MicroKernelKind::F16Fma:
    return "f16-fma";
  case MicroKernelKind::WidenedFma:
    return "widened-fma";
  case MicroKernelKind::AmxInt8:
    return "amx-int8";
  case MicroKernelKind::AmxBf16:
    return "amx-bf16";
  }
  llvm_unreachable("unknown micro-kernel kind");
}

CpuTargetInfo mlir::tessel::describeVectorTarget(int64_t f32Lanes,
                                                int64_t accumulators,
                                                bool vnni, bool bf16,
                                                bool amx, bool amxBf16,
                                                bool fp16) {
  CpuTargetInfo target;
  target.vectorBits = 32 * f32Lanes;
  target.vectorRegisters = accumulators > 12 ? 32 : 16;
  target.fma = true;
  target.avx2 = target.vectorBits >= 256;
  target.avx512f = target.vectorBits >= 512;
  target.avx512Vnni = vnni && target.avx512f;
  target.avxVnni = vnni && !target.avx512f;
  target.avx512Bf16 = bf16 && target.avx512f;
  target.amxInt8 = amx && target.avx512f;
  target.amxBf16 = amxBf16 && target.avx512f;
  target.amxTile = target.amxInt8 || target.amxBf16;
  target.avx512Fp16 = fp16 && target.avx512f;
  return target;
}

CpuTargetInfo mlir::tessel::withCoreThroughput(CpuTargetInfo target,
                                              double fmasPerCycle,
                                              int64_t fmaLatency,
                                              double loadsPerCycle) {
  if (fmasPerCycle > 0)
    target.fmasPerCycle = fmasPerCycle;
  if (fmaLatency > 0)
    target.fmaLatency = fmaLatency;
  if (loadsPerCycle > 0)
    target.loadsPerCycle = loadsPerCycle;
  return target;
}

double mlir::tessel::estimateTileStepCycles(const CpuTargetInfo &target,
                                            int64_t fmas, int64_t loads) {
  double cycles = std::max(double(fmas) / target.fmasPerCycle,
                           double(loads) / target.loadsPerCycle);
  return std::max(cycles, double(target.fmaLatency + 1));
}

namespace {
struct Candidate {
  MicroKernelKind kind;
  bool available;
  /// Accumulator element width in bits.
  unsigned accumulatorBits;
  /// Whether Tessel's emitter covers this target's form of the kernel.
  bool emitterCovers = true;
};
} // namespace

MicroKernelChoice mlir::tessel::selectMicroKernel(const CpuTargetInfo &target,
                                                  Type lhs, Type rhs,
                                                  Type acc) {
  SmallVector<Candidate, 4> candidates;
  if (lhs.isF32() && rhs.isF32() && acc.isF32()) {
    // Every x86-64 target multiplies and adds f32 vectors (SSE's 4 lanes
    // up); FMA fuses the two where the target has it.
    candidates.push_back({MicroKernelKind::F32Fma, true, 32});
  } else if (lhs.isInteger(8) && rhs.isInteger(8) && acc.isInteger(32)) {
    candidates.push_back(
        {MicroKernelKind::AmxInt8, target.amxTile && target.amxInt8, 32});
    candidates.push_back({MicroKernelKind::I8Vnni,
                          target.avx512Vnni || target.avxVnni, 32});
    // AVX2 without VNNI. (An AVX-512 target without VNNI keeps f32: this
    // emitter writes 256-bit vectors only.)
    candidates.push_back(
        {MicroKernelKind::I8Madd, target.avx2 && !target.avx512f, 32});
  } else if (lhs.isBF16() && rhs.isBF16() && acc.isF32()) {
    candidates.push_back(
        {MicroKernelKind::AmxBf16, target.amxTile && target.amxBf16, 32});
    // Only where it beats the FP32 FMA (CpuTargetInfo::bf16DotRate).
    candidates.push_back({MicroKernelKind::Bf16Dot,
                          target.avx512Bf16 && target.bf16DotRate > 1.0, 32});
    candidates.push_back({MicroKernelKind::WidenedFma, target.avx2, 32});
  } else if (lhs.isF16() && rhs.isF16() && acc.isF32()) {
    candidates.push_back({MicroKernelKind::F16Fma, target.avx512Fp16, 32});
    candidates.push_back({MicroKernelKind::WidenedFma, target.avx2, 32});
  }
  MicroKernelChoice choice;
  bool haveBest = false;
  for (const Candidate &candidate : candidates) {
    if (!candidate.available)
      continue;
    if (!haveBest) {
      choice.best = candidate.kind;
      haveBest = true;
    }
    if (isMicroKernelImplemented(candidate.kind) && candidate.emitterCovers) {
      if (choice.emittable.empty()) {
        choice.emitted = candidate.kind;
        choice.accumulatorLanes =
            target.vectorBits / candidate.accumulatorBits;
      }
      choice.emittable.push_back(candidate.kind);
    }
  }
  return choice;
}

void mlir::tessel::printCpuTargetInfo(const CpuTargetInfo &target,
                                      MLIRContext *context,
                                      llvm::raw_ostream &os) {
  os << "cpu: " << target.cpu << "\n";
  os << "vector: " << target.vectorBits << " bits, " << target.vectorRegisters
     << " registers, " << target.getF32Lanes() << " f32 lanes\n";
  os << "features:";
  std::pair<const char *, bool> features[] = {
      {"fma", target.fma},
      {"avx2", target.avx2},
      {"avx512f", target.avx512f},
      {"avx512vnni", target.avx512Vnni},
      {"avxvnni", target.avxVnni},
      {"avx512bf16", target.avx512Bf16},
      {"avx512fp16", target.avx512Fp16},
      {"amx-tile", target.amxTile},
      {"amx-int8", target.amxInt8},
      {"amx-bf16", target.amxBf16},
  };
  bool any = false;
  for (auto [name, present] : features)
    if (present) {
      os << " " << name;
      any = true;
    }
  os << (any ? "\n" : " none\n");
  if (target.avx512Bf16)
    os << "vdpbf16ps: " << llvm::format("%g", target.bf16DotRate)
       << "x the FP32 FMA's multiply-adds per cycle (measured)\n";
  os << "core: " << llvm::format("%g", target.fmasPerCycle)
     << " vector FMAs/cycle (latency " << target.fmaLatency << "), "
     << llvm::format("%g", target.loadsPerCycle) << " vector loads/cycle, "
     << target.l2Bytes / 1024 << " KiB L2\n";
  os << "register tiles: " << target.getConvolutionAccumulators()
     << " accumulators (convolutions), " << target.getProductAccumulators()
     << " (products)\n";
  Builder b(context);
  struct Product {
    const char *name;
    Type lhs, rhs, acc;
  } products[] = {
      {"f32 x f32 -> f32", b.getF32Type(), b.getF32Type(), b.getF32Type()},
      {"i8 x i8 -> i32", b.getI8Type(), b.getI8Type(), b.getI32Type()},
      {"bf16 x bf16 -> f32", b.getBF16Type(), b.getBF16Type(), b.getF32Type()},
      {"f16 x f16 -> f32", b.getF16Type(), b.getF16Type(), b.getF32Type()},
  };
  for (const Product &product : products) {
    MicroKernelChoice choice =
        selectMicroKernel(target, product.lhs, product.rhs, product.acc);
    os << "micro-kernel " << product.name << ": "
       << stringifyMicroKernel(choice.emitted);
    if (choice.emitted != MicroKernelKind::None)
      os << " (" << choice.accumulatorLanes << " lanes)";
    // AMX takes whole tiles only, the f16 kernel columns in 16s and
    // reductions in 8s; the other products run on the next.
    bool tiles = choice.emitted == MicroKernelKind::AmxInt8 ||
                 choice.emitted == MicroKernelKind::AmxBf16;
    if ((tiles || choice.emitted == MicroKernelKind::F16Fma) &&
        choice.emittable.size() > 1)
      os << ", else " << stringifyMicroKernel(choice.emittable[1]);
    if (tiles && choice.emitted == MicroKernelKind::AmxBf16 &&
        !isFasterThanFp32(choice.emittable.back()))
      os << " (--precision=bf16 keeps the products that are not whole tiles "
            "in f32)";
    if (choice.best != choice.emitted)
      os << "; target allows " << stringifyMicroKernel(choice.best)
         << ", not generated yet";
    os << "\n";
  }
}

MicroKernelChoice
mlir::tessel::selectBf16ProductKernel(const CpuTargetInfo &target) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  Builder b(&context);
  return selectMicroKernel(target, b.getBF16Type(), b.getBF16Type(),
                           b.getF32Type());
}

bool mlir::tessel::hasBf16ProductKernel(const CpuTargetInfo &target) {
  return isFasterThanFp32(selectBf16ProductKernel(target).emitted);
}

bool mlir::tessel::hasF16ProductKernel(const CpuTargetInfo &target) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  Builder b(&context);
  return isFasterThanFp32(selectMicroKernel(target, b.getF16Type(),
                                            b.getF16Type(), b.getF32Type())
                              .emitted);
}

bool mlir::tessel::isFasterThanFp32(MicroKernelKind kind) {
  switch (kind) {
  case MicroKernelKind::None:
  case MicroKernelKind::F32Fma:
  case MicroKernelKind::WidenedFma:
    return false;
  case MicroKernelKind::I8Vnni:
  case MicroKernelKind::I8Madd:
  case MicroKernelKind::Bf16Dot:
  case MicroKernelKind::F16Fma:
  case MicroKernelKind::AmxInt8:
  case MicroKernelKind::AmxBf16:
    return true;
  }
  llvm_unreachable("unknown micro-kernel kind");
}

bool mlir::tessel::hasEightBitProductKernel(const CpuTargetInfo &target) {
  // Builtin integer types only: a bare context holds them.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  Builder b(&context);
  return selectMicroKernel(target, b.getI8Type(), b.getI8Type(),
                           b.getI32Type())
             .emitted != MicroKernelKind::None;
}
