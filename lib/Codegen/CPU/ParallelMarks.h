//===- ParallelMarks.h - Loops whose iterations are independent -*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. A code generator that builds a loop over a
// parallel dimension (each iteration writes its own part of the output and
// reads nothing another iteration writes) marks it with `tessel.parallel`;
// the mark survives bufferization, and `tessel-parallelize-loops` runs the
// outermost marked loops on the runtime's parallel_for.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_PARALLELMARKS_H
#define TESSEL_LIB_CODEGEN_CPU_PARALLELMARKS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tessel::cpu {

inline constexpr llvm::StringLiteral kParallelAttr = "tessel.parallel";

/// Ops with fewer iterations (multiply-adds, elements) than this stay on
/// one thread: a parallel_for costs the pool's hand-off (its idle workers
/// poll for a while before sleeping, so a helper joins within a
/// microsecond or so while the model runs). Measured at 2 threads on this
/// Zen 4 (tessel-bench p50, rounds minutes apart): MobileNetV2 7.2-8.5 ms
/// at 2^24 (most of its kernels ran on one thread), 5.3-5.8 at 2^22,
/// 4.6-5.4 at 2^20; the BERT-like encoder 1.24-1.30, 0.73-0.84, 0.71-0.73
/// (one round at 1.18 for both lower thresholds); ResNet-18 17-20 ms
/// either way; 1-thread times unchanged. (Before the pool polled, waking a
/// sleeping helper cost more than small kernels gained.)
/// 2^17 against 2^20 (tessel-bench at 2 threads, 5 interleaved rounds,
/// median of the rounds' p50; two sessions): MobileNetV2 4.52 and 4.71 ms
/// against 4.64 and 4.96 (12 more of its kernels split, the 14x14 and 7x7
/// depthwise layers among them); the MLP's matrix-vector products (2^18.6
/// and 2^17 multiply-adds, each streaming its weights from L3: ~16 and ~5
/// us on one core) split: 0.023 and 0.020 ms against 0.022 and 0.024
/// (best rounds 0.013 against 0.022: it pays while the host leaves the
/// second core free); ResNet-18 (one more kernel split) and the BERT-like
/// encoder (the same kernels) within the rounds' noise, +-5%; 1 thread: all
/// four within 1.5%.
inline constexpr int64_t kMinParallelWork = int64_t(1) << 17;

/// Marks `loop`, one of the loops of an op of `work` iterations, as having
/// independent iterations, if the op is large enough to split.
inline void markParallel(Operation *loop, int64_t work) {
  if (isa_and_nonnull<scf::ForOp>(loop) && work >= kMinParallelWork)
    loop->setAttr(kParallelAttr, UnitAttr::get(loop->getContext()));
}

/// The product of `ranges` (an op's static loop sizes), saturating.
inline int64_t workOf(llvm::ArrayRef<int64_t> ranges) {
  int64_t work = 1;
  for (int64_t r : ranges)
    work = r > 0 && work > (int64_t(1) << 62) / r ? int64_t(1) << 62 : work * r;
  return work;
}

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_PARALLELMARKS_H
