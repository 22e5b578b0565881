//===- TargetInfo.h - What CPU code generation knows of a target -*- C++ -*-===//
//
// The one description of the CPU that code generation plans for, filled from
// `--target-cpu` / `--target-features` in one place
// (`resolveCpuTargetInfo`, tessel/Target/LLVM/TargetInfo.h) and read by the
// pipeline and the tile planners: vector width and register count, and the
// multiply-add instructions each element type can use. Register tiles are
// sized from it, and `selectMicroKernel` picks the micro-kernel that runs on
// each register or tile block from it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_TARGETINFO_H
#define TESSEL_CODEGEN_CPU_TARGETINFO_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir::tessel {

/// The CPU's instruction-set facts that code generation plans with.
struct CpuTargetInfo {
  /// The resolved LLVM CPU name ("znver4"; never "host").
  std::string cpu;
  /// Width of the widest vector register the generated code may use: 512
  /// with AVX-512F, 256 with AVX, else 128.
  unsigned vectorBits = 128;
  /// Architectural vector registers: 32 with AVX-512, else 16.
  unsigned vectorRegisters = 16;
  bool fma = false;        ///< vfmadd (FMA3)
  bool avx2 = false;       ///< 256-bit integer ops
  bool avx512f = false;
  bool avx512Vnni = false; ///< vpdpbusd on zmm
  bool avxVnni = false;    ///< vpdpbusd on ymm (VEX)
  bool avx512Bf16 = false; ///< vdpbf16ps
  bool avx512Fp16 = false; ///< vfmadd...ph
  bool amxTile = false;    ///< tile registers (ldtilecfg, tileloadd)
  bool amxInt8 = false;    ///< tdpbusd
  bool amxBf16 = false;    ///< tdpbf16ps
  /// vdpbf16ps's multiply-adds per cycle over FP32 FMA's, measured: 2 on
  /// AMD Zen 4 (234 against 117 GFLOP/s, ../shared/reference), 0.5 on
  /// Intel's Golden Cove server cores (Sapphire, Emerald and Granite
  /// Rapids: 86 against 176 GFLOP/s on Emerald Rapids, bench/peak.c),
  /// which issue it at half the rate of their two 512-bit FMA units. Below
  /// 1, bf16 products run faster as FP32.
  double bf16DotRate = 2.0;
  /// The core's throughput for what a register tile issues, which the
  /// register-tile cost model (estimateTileStepCycles) weighs tiles with:
  /// f32 FMAs at `vectorBits` issued per cycle, their latency in cycles,
  /// and vector loads per cycle. From LLVM's scheduling model of `cpu`
  /// (getCpuTargetInfo); the defaults are an AVX-512 Intel server core's.
  double fmasPerCycle = 2.0;
  int64_t fmaLatency = 4;
  double loadsPerCycle = 2.0;
  /// One core's L2 cache in bytes, which bounds the products that run
  /// without cache blocks (PlanProductTiles.cpp). From the target CPU's
  /// name (getCpuTargetInfo: a table of the cores measured); the default
  /// is Zen 4's 1 MiB.
  int64_t l2Bytes = 1 << 20;

  /// f32 lanes per vector register: what register tiles are sized in.
  int64_t getF32Lanes() const { return vectorBits / 32; }
  /// Accumulator registers a convolution's register tile may hold: the
  /// rest hold the inputs and weights it multiplies. 24 of AVX-512's 32
  /// registers (ResNet-18's 3x3 convolutions ran 1.16x onnxruntime's time
  /// at 12, 1.02x at 24), 12 of AVX2's 16.
  int64_t getConvolutionAccumulators() const {
    return vectorRegisters >= 32 ? 24 : 12;
  }
  /// Accumulator registers a matrix product's register tile may hold.
  int64_t getProductAccumulators() const {
    return vectorRegisters >= 32 ? 16 : 12;
  }
};

/// The target a pass's `vector-width` (f32 lanes), `accumulators`, `vnni`,
/// `bf16`, `amx`, `amx-bf16` and `fp16` options describe when it runs on
/// its own (tessel-opt): FMA on vectors of that width, 32 registers when
/// more than 12 accumulators are asked for, with `vnni` vpdpbusd on them,
/// with `bf16` (AVX-512 only) vdpbf16ps, with `amx` (AVX-512 only)
/// AMX-INT8 tiles, with `amxBf16` (AVX-512 only) AMX-BF16 tiles and with
/// `fp16` (AVX-512 only) AVX512-FP16's FMAs. The pipeline sets those
/// options from the resolved target.
CpuTargetInfo describeVectorTarget(int64_t f32Lanes, int64_t accumulators,
                                   bool vnni = false, bool bf16 = false,
                                   bool amx = false, bool amxBf16 = false,
                                   bool fp16 = false);

/// `target` with the core throughput a pass's `fmas-per-cycle`,
/// `fma-latency` and `loads-per-cycle` options describe (0: keep
/// `target`'s).
CpuTargetInfo withCoreThroughput(CpuTargetInfo target, double fmasPerCycle,
                                 int64_t fmaLatency, double loadsPerCycle);

/// The register-tile cost model: the cycles one step of a register tile's
/// reduction takes on `target` when the step issues `fmas` vector FMAs (one
/// per accumulator) and `loads` vector loads or broadcasts: the most of
/// what its FMAs and its loads take on the core's units, and of the FMA's
/// latency plus one cycle (each accumulator's FMA waits for the one before
/// it, and FMAs that just cover the latency leave no cycle for the step's
/// loads to slip into: [64, 64] x [64, 3136] with a bias on Zen 3, 8
/// accumulators on 2 FMA units of latency 4, ran 10% slower than with 12).
/// A tile with fewer accumulators than the latency covers leaves the FMA
/// units idle: 4 accumulators on 2 FMA units of latency 4 run at half
/// their rate.
double estimateTileStepCycles(const CpuTargetInfo &target, int64_t fmas,
                              int64_t loads);

/// The instruction sequence that multiplies and accumulates one register
/// (or tile-register) block: the unit a code generator emits per ISA. A code
/// generator plans its tiles for the micro-kernel it is given; adding an ISA
/// adds a kind here and its emitter, not a new vectoriser.
enum class MicroKernelKind {
  /// No vector micro-kernel: the op stays scalar loops.
  None,
  /// f32 x f32 -> f32 vector multiply-add (`vector.contract` /
  /// `vector.fma`, accumulators in registers): FMA on AVX2 and AVX-512,
  /// a multiply and an add on targets without it.
  F32Fma,
  /// i8 x i8 -> i32 with VNNI `vpdpbusd` (4 products per 32-bit lane):
  /// AVX512-VNNI's EVEX form, or AVX-VNNI's VEX form on 256-bit targets.
  I8Vnni,
  /// i8 x i8 -> i32 on AVX2 without VNNI: the same 4 products per lane as
  /// `vpdpbusd`, as two `vpmaddwd` of the bytes widened to 16 bits (exact:
  /// unlike `vpmaddubsw`, nothing saturates) and two `vpaddd`.
  I8Madd,
  /// bf16 x bf16 -> f32 with AVX512-BF16 `vdpbf16ps` (2 per 32-bit lane).
  Bf16Dot,
  /// f16 x f16 -> f32 with AVX512-FP16's `vfmadd231ph` (32 f16 lanes),
  /// summing blocks of the reduction in f16 and the blocks in f32
  /// (tessel/Codegen/CPU/F16Blocks.h: columns in 16s, reductions in 8s).
  F16Fma,
  /// f16 x f16 or bf16 x bf16 -> f32 with the operands extended to f32 in
  /// registers, then the f32 FMA: `vcvtph2ps` (F16C, every AVX2 CPU) for
  /// f16, a 16-bit shift for bf16. The narrow values are only storage: the
  /// products run at FP32's rate at best (a model's own f16 or bf16
  /// products, where the target has no faster kernel for them).
  WidenedFma,
  /// i8 x i8 -> i32 on AMX tiles (`tdpbusd`).
  AmxInt8,
  /// bf16 x bf16 -> f32 on AMX tiles (`tdpbf16ps`).
  AmxBf16,
};

/// What the target could run a product of these element types on, and what
/// Tessel generates for it today.
struct MicroKernelChoice {
  /// The best micro-kernel the target's instructions allow.
  MicroKernelKind best = MicroKernelKind::None;
  /// The one Tessel emits: `best` when its emitter exists, else the best
  /// implemented one the target allows, else `None`.
  MicroKernelKind emitted = MicroKernelKind::None;
  /// Lanes of the accumulator type per vector register for `emitted`.
  int64_t accumulatorLanes = 0;
  /// Every kernel Tessel emits that the target allows, best first
  /// (`emitted` first): a kernel that does not cover a product's extent
  /// (MicroKernel::coversProduct) falls back to the next.
  llvm::SmallVector<MicroKernelKind, 3> emittable;
};

/// Picks the micro-kernel for `lhs x rhs -> acc` element types on `target`.
MicroKernelChoice selectMicroKernel(const CpuTargetInfo &target, Type lhs,
                                    Type rhs, Type acc);

/// Whether Tessel emits an 8-bit dot-product micro-kernel (i8 x i8 -> i32)
/// on `target`: where it does not, products of quantized values run faster
/// on the f32 kernels than on integer loops.
bool hasEightBitProductKernel(const CpuTargetInfo &target);

/// Whether Tessel emits a bf16 x bf16 -> f32 micro-kernel on `target` that
/// beats its FP32 FMA (--precision=bf16 runs products on it).
/// The kernels `target` has for bf16 x bf16 -> f32 products
/// (selectMicroKernel's choice for those types).
MicroKernelChoice selectBf16ProductKernel(const CpuTargetInfo &target);
bool hasBf16ProductKernel(const CpuTargetInfo &target);

/// Whether Tessel emits an f16 x f16 -> f32 micro-kernel on `target` that
/// beats its FP32 FMA (--precision=fp16 runs products on it): AVX512-FP16.
bool hasF16ProductKernel(const CpuTargetInfo &target);

/// Whether `kind` does more multiply-adds per instruction than the f32 FMA
/// on the target that selects it (the 8-bit and 16-bit dot products and
/// tiles; not the widened FMA, whose narrow operands are only storage).
bool isFasterThanFp32(MicroKernelKind kind);

/// Whether Tessel has an emitter for `kind` (`getMicroKernel`,
/// tessel/Codegen/CPU/MicroKernel.h): the code generators can use it.
bool isMicroKernelImplemented(MicroKernelKind kind);

/// "f32-fma", "i8-vnni", ...; "none" for None.
llvm::StringRef stringifyMicroKernel(MicroKernelKind kind);

/// Prints the description and, for f32, i8, bf16 and f16 products, the
/// micro-kernel chosen (`tessel-compile --print-target`).
void printCpuTargetInfo(const CpuTargetInfo &target, MLIRContext *context,
                        llvm::raw_ostream &os);

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_CPU_TARGETINFO_H
