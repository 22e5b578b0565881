//===- Transforms.h - CPU code generation transformations -------*- C++ -*-===//
//
// The transformations the CPU code generation passes drive, as plain
// functions (`FailureOr<...> f(RewriterBase &, ...)`) in the manner of
// upstream Linalg's Transforms.h: each can be called from a pattern, a pass
// or a test without the pass around it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_TRANSFORMS_H
#define TESSEL_CODEGEN_CPU_TRANSFORMS_H

#include "tessel/Codegen/CPU/TargetInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

//===----------------------------------------------------------------------===//
// Matrix products (tessel-vectorize-contractions)
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Convolutions (tessel-vectorize-convolutions)
//===----------------------------------------------------------------------===//

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_CPU_TRANSFORMS_H
