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
/// one thread: a parallel_for costs the pool's hand-off. How 2^17 was
/// chosen: bench/notes/parallel-threshold.md.
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
