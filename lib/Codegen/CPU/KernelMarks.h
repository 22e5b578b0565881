//===- KernelMarks.h - Parts of a kernel already reported -------*- C++ -*-===//
//
// A code generator that builds one loop nest for several structured ops
// reports it as one kernel (tessel/Support/Remarks.h) and marks the
// structured ops it leaves inside the nest for the vectorizers that follow:
// they vectorize them as parts of that kernel and report none of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H
#define TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tessel::cpu {

/// On a structured op left inside a loop nest already reported as a kernel
/// (a fused tile too large to vectorize whole, a head of tessel-fuse-
/// attention's loop): the vectorizers vectorize it without reporting another
/// kernel.
inline constexpr llvm::StringLiteral kInKernelAttr = "tessel.in_kernel";

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H
