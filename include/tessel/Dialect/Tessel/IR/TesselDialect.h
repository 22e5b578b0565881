//===- TesselDialect.h - The tessel dialect ---------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_H
#define TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h.inc"

namespace mlir::tessel {

/// Unit attribute marking the model's entry function.
inline constexpr llvm::StringLiteral kEntryAttrName = "tessel.entry";
/// String attribute naming an entry argument or result (the ONNX value name).
inline constexpr llvm::StringLiteral kNameAttrName = "tessel.name";
/// Dense elements attribute on an entry argument whose value was fixed at
/// compile time (`tessel-compile --input-value`): the model computes with this
/// constant, and the runtime refuses a call that passes another value.
inline constexpr llvm::StringLiteral kFixedValueAttrName = "tessel.fixed_value";
/// Module attribute holding the model's name.
inline constexpr llvm::StringLiteral kModelNameAttrName = "tessel.model_name";
/// Module attribute holding the entry signature once buffers are introduced:
/// `{name = "...", inputs = [{name, type}...], outputs = [{name, type}...]}`.
inline constexpr llvm::StringLiteral kSignatureAttrName = "tessel.signature";
/// Module attribute (i64) holding the bytes of the workspace that
/// `--tessel-plan-memory` placed the intermediate buffers in; the entry
/// function then takes it as its last argument.
inline constexpr llvm::StringLiteral kWorkspaceSizeAttrName =
    "tessel.workspace_size";
// Also verified by the dialect, declared where their passes are:
// `tessel.fusion_group` (i64, FusionGroups.h), and CPU code generation's
// `tessel.in_kernel` and `tessel.parallel` (unit). What passes report (the
// kernels they formed, the channels and layout conversions they removed) is
// no attribute but a remark: tessel/Support/Remarks.h.

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELDIALECT_H
