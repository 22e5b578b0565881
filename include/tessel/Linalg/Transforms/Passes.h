//===- Passes.h - Linalg-phase passes ---------------------------*- C++ -*-===//
//
// Target-independent passes on linalg on tensors, run in the graph ->
// linalg phase after `tessel-convert-tessel-to-linalg`: their result is what
// `tessel-compile --compile-to=linalg` prints.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LINALG_TRANSFORMS_PASSES_H
#define TESSEL_LINALG_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tessel {

#define GEN_PASS_DECL
#include "tessel/Linalg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Linalg/Transforms/Passes.h.inc"

} // namespace mlir::tessel

#endif // TESSEL_LINALG_TRANSFORMS_PASSES_H
