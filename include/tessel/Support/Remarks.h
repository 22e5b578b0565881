//===- Remarks.h - What Tessel's passes report -------------------*- C++ -*-===//
//
// Passes tell the compile report (and a compiler developer) what they did
// through MLIR's optimization remarks (mlir/IR/Remarks.h), never through
// attributes on the IR: each remark has the category `tessel`, a name below
// and its numbers as metrics. Remarks cost nothing unless a remark engine is
// installed: tessel-compile installs one that fills `--report`, and
// tessel-opt prints them with `--remarks-filter=tessel
// --remark-format=emitRemark`.
//
//  - `kernel` (passed), at the fused location of every op one loop nest of
//    code generation computes, metric `kind` (convolution, contraction,
//    window, elementwise, reduction, attention): the nest is one kernel.
//  - `dropped-channels` (analysis), metric `channels`: convolution channels
//    tessel-drop-zero-channels removed.
//  - `layout-conversions` (analysis), metrics `edges` and `inside`: the
//    NCHW<->NHWC transposes tessel-assign-layouts left at the graph's edges
//    and inside it.
//  - `integer-product` (passed), at a product of dequantized 8-bit values
//    tessel-integer-products runs on integers, metrics `lhs` and `rhs`
//    (their element types).
//  - `float-quantized-product` (analysis), at a product of dequantized
//    values left in f32, metric `reason`.
//  - `low-precision-product` (passed), at a product
//    tessel-low-precision-products runs on bf16 or f16 operands, metric
//    `precision`.
//  - `full-precision-product` (analysis), at a product `--precision` left
//    in f32, metric `reason`.
//  - `sample-loop` (passed), at the fused location of the ops that
//    tessel-sample-loops runs in one loop over the samples, metrics
//    `samples` (the batch) and `ops`.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_SUPPORT_REMARKS_H
#define TESSEL_SUPPORT_REMARKS_H

#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tessel {

inline constexpr llvm::StringLiteral kRemarkCategory = "tessel";
inline constexpr llvm::StringLiteral kKernelRemark = "kernel";
inline constexpr llvm::StringLiteral kDroppedChannelsRemark =
    "dropped-channels";
inline constexpr llvm::StringLiteral kLayoutConversionsRemark =
    "layout-conversions";

inline constexpr llvm::StringLiteral kIntegerProductRemark = "integer-product";
inline constexpr llvm::StringLiteral kFloatQuantizedProductRemark =
    "float-quantized-product";
inline constexpr llvm::StringLiteral kLowPrecisionProductRemark =
    "low-precision-product";
inline constexpr llvm::StringLiteral kFullPrecisionProductRemark =
    "full-precision-product";
inline constexpr llvm::StringLiteral kSampleLoopRemark = "sample-loop";

/// The remark options of remark `name` about `op`, naming the function
/// around it (or `op` itself when it is one).
inline remark::RemarkOpts remarkOptions(llvm::StringRef name, Operation *op) {
  auto opts = remark::RemarkOpts::name(name).category(kRemarkCategory);
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    function = op->getParentOfType<FunctionOpInterface>();
  return function ? opts.function(function.getName()) : opts;
}

/// Reports one loop nest of kind `kind` that computes the ops at `loc`,
/// formed in the function around (or of) `op`.
inline void reportKernel(Operation *op, llvm::StringRef kind, Location loc) {
  remark::passed(loc, remarkOptions(kKernelRemark, op))
      << remark::metric("kind", kind.str());
}

} // namespace mlir::tessel

#endif // TESSEL_SUPPORT_REMARKS_H
