//===- Passes.h - Tessel's conversion passes --------------------*- C++ -*-===//
//
// Conversions between representations: tessel to linalg, the entry
// function's tensor signature to the artifact's buffer ABI, and strided
// copies to loops. Code generation passes are in `tessel/Codegen/CPU`, the
// target-independent linalg-phase passes in `tessel/Linalg/Transforms`.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CONVERSION_PASSES_H
#define TESSEL_CONVERSION_PASSES_H

#include "tessel/Conversion/EntryABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tessel {

#define GEN_PASS_DECL
#include "tessel/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Conversion/Passes.h.inc"

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_PASSES_H
