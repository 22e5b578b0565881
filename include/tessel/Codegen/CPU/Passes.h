//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// The passes of the linalg -> llvm phase that generate CPU code: register
// tiling and vectorization of each kernel, memory planning, prefetching,
// parallel loops on the runtime's thread pool, and vector lowering. The
// transformations they drive are declared in `Transforms.h`.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_PASSES_H
#define TESSEL_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/AMX/AMXDialect.h"
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
#include "tessel/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Codegen/CPU/Passes.h.inc"

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_CPU_PASSES_H
