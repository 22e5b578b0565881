//===- Registration.h - Registering Tessel with MLIR ------------*- C++ -*-===//

#ifndef TESSEL_PIPELINES_REGISTRATION_H
#define TESSEL_PIPELINES_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tessel {

/// The tessel dialect, every upstream dialect and extension (bufferization
/// models, LLVM IR translations), as mlir-opt has them.
void registerTesselDialects(DialectRegistry &registry);

/// Tessel's passes and pipelines, and every upstream pass.
void registerTesselPasses();

} // namespace mlir::tessel

#endif // TESSEL_PIPELINES_REGISTRATION_H
