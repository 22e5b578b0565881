//===- NodeNames.h - The model nodes a loop computes ------*- C++ -*-===//
//
// Internal to lib/Codegen/CPU. The functions that the code generators
// outline (kernels, parallel bodies) are named after the model nodes their
// ops come from, so that profilers and debuggers show them by node.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_NODENAMES_H
#define TESSEL_LIB_CODEGEN_CPU_NODENAMES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tessel::cpu {

/// The model nodes (NameLocs) that the ops of `op` come from, in the order
/// they first appear (the body's ops first, `op`'s own last), joined by '+'
/// and made safe for a symbol: bytes outside printable ASCII, quotes and
/// backslashes become '_'; cut at 160 characters with "+...". Empty when no
/// op names a node.
std::string nodeNamesOf(Operation *op);

/// A symbol name not yet in `module` for a function outlined from `op`:
/// `PREFIX_N`, or `PREFIX_N:NODES` when `op`'s ops name model nodes
/// (nodeNamesOf), N the next value of `counter` that gives a free name.
std::string outlinedFunctionName(ModuleOp module, StringRef prefix,
                                 Operation *op, unsigned &counter);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_NODENAMES_H
