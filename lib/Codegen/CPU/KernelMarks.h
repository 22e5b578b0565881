//===- KernelMarks.h - Kernels that code generation formed ------*- C++ -*-===//
//
// A vectorizer that replaces structured ops by a loop nest records that nest
// as one kernel on the enclosing function: the attribute `tessel.kernels`,
// an array of {kind, loc} dictionaries (`loc` holds the locations of every
// op the nest computes). Loops themselves are rebuilt by canonicalization,
// which drops their attributes; the function keeps its own. The compile
// report counts these plus the structured ops left.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H
#define TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel::cpu {

inline constexpr llvm::StringLiteral kKernelsAttr = "tessel.kernels";

/// On a structured op left inside a loop nest already recorded as a kernel
/// (a fused tile too large to vectorize whole): tessel-vectorize-generics
/// vectorizes it without recording another kernel.
inline constexpr llvm::StringLiteral kInKernelAttr = "tessel.in_kernel";

/// Appends a kernel of `kind` covering `loc` to `op` if it is a function,
/// else to the function around it.
inline void recordKernel(Operation *op, StringRef kind, Location loc) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return;
  MLIRContext *ctx = op->getContext();
  SmallVector<Attribute> kernels;
  if (auto existing = func->getAttrOfType<ArrayAttr>(kKernelsAttr))
    kernels.assign(existing.begin(), existing.end());
  kernels.push_back(DictionaryAttr::get(
      ctx,
      {NamedAttribute(StringAttr::get(ctx, "kind"), StringAttr::get(ctx, kind)),
       NamedAttribute(StringAttr::get(ctx, "loc"), LocationAttr(loc))}));
  func->setAttr(kKernelsAttr, ArrayAttr::get(ctx, kernels));
}

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_KERNELMARKS_H
