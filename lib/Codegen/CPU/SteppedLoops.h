//===- SteppedLoops.h - Loops of constant bounds that repeat ----*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The prefetch passes ask of an index whether it
// is the induction variable of a loop whose next iteration they can name:
// constant bounds and step, two iterations or more, and where its last
// iteration starts (the clamp that keeps a prefetched address inside the
// buffer).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_STEPPEDLOOPS_H
#define TESSEL_LIB_CODEGEN_CPU_STEPPEDLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tessel::cpu {

/// The scf.for with constant bounds and a positive step, running two
/// iterations or more, whose induction variable `index` is, with its step
/// and the start of its last iteration; null otherwise.
inline scf::ForOp loopOf(Value index, int64_t &step, int64_t &last) {
  auto arg = dyn_cast<BlockArgument>(index);
  auto loop =
      arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || loop.getInductionVar() != index)
    return {};
  APInt lower, upper, stepValue;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lower)) ||
      !matchPattern(loop.getUpperBound(), m_ConstantInt(&upper)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&stepValue)))
    return {};
  int64_t lb = lower.getSExtValue(), ub = upper.getSExtValue();
  step = stepValue.getSExtValue();
  if (step <= 0 || ub - lb <= step) // fewer than two iterations
    return {};
  last = lb + (ub - lb - 1) / step * step;
  return loop;
}

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_STEPPEDLOOPS_H
