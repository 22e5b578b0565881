//===- Signature.h - The model signature attribute --------------*- C++ -*-===//
//
// Internal to the EntryABI library: the `tessel.signature` module attribute
// that tessel-record-signature and tessel-entry-abi write, and the artifact
// writer turns into the descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CONVERSION_ENTRYABI_SIGNATURE_H
#define TESSEL_LIB_CONVERSION_ENTRYABI_SIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tessel {

/// The one function marked `tessel.entry`, or an error on the module.
FailureOr<func::FuncOp> findEntryFunction(ModuleOp module);

/// Records `func`'s signature as the module's `tessel.signature`: the model
/// name and each argument and result as `{name, type}`. Fails (with an
/// error) unless every type is a statically shaped tensor.
LogicalResult recordSignature(ModuleOp module, func::FuncOp func);

/// Checks that a recorded signature still describes `func`: as many inputs
/// and outputs, of the same shapes and element widths (a lowering may have
/// made unsigned element types signless). A last argument marked
/// `tessel.valid_length` (a padded dimension's) is not in the signature.
LogicalResult checkSignature(ModuleOp module, func::FuncOp func);

} // namespace mlir::tessel

#endif // TESSEL_LIB_CONVERSION_ENTRYABI_SIGNATURE_H
