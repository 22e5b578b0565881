//===- EntryABI.h - Names the artifact's entry ABI fixes --------*- C++ -*-===//
//
// Symbols shared by `tessel-entry-abi` (which creates the entry function),
// the CPU code generation passes that call into the runtime, and the
// artifact writer (which exports both).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CONVERSION_ENTRYABI_H
#define TESSEL_CONVERSION_ENTRYABI_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tessel {

/// Name of the entry function after `tessel-entry-abi`.
inline constexpr llvm::StringLiteral kEntryFunctionName = "tessel_model_main";

/// Thread-local global holding the `tessel_runtime_services *` of the call
/// in progress: `tessel-parallelize-loops` reads it, the artifact's entry
/// point stores it before calling the entry function.
inline constexpr llvm::StringLiteral kServicesSlotName = "tessel_services";

/// Marks the functions `tessel-outline-kernels` makes of the entry's loop
/// nests: `tessel-parallelize-loops` runs their marked loops in parallel as
/// the entry's, and the LLVM translation keeps them out of line.
inline constexpr llvm::StringLiteral kKernelAttrName = "tessel.kernel";

} // namespace mlir::tessel

#endif // TESSEL_CONVERSION_ENTRYABI_H
