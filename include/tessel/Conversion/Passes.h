//===- Passes.h - Tessel's conversion passes --------------------*- C++ -*-===//

#ifndef TESSEL_CONVERSION_PASSES_H
#define TESSEL_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tessel {

#define GEN_PASS_DECL
#include "tessel/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Conversion/Passes.h.inc"

/// Name of the entry function after `tessel-entry-abi`.
inline constexpr llvm::StringLiteral kEntryFunctionName = "tessel_model_main";

/// Thread-local global holding the `tessel_runtime_services *` of the call
/// in progress: `tessel-parallelize-loops` reads it, the artifact's entry
/// point stores it before calling the entry function.
inline constexpr llvm::StringLiteral kServicesSlotName = "tessel_services";

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_PASSES_H
