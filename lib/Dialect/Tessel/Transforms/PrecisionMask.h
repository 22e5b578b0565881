//===- PrecisionMask.h - A product's precision chosen at run time -*- C++ -*-===//
//
// --accuracy-budget's search build (tessel-quantize-products and
// tessel-low-precision-products with mode=simulate): each product whose
// precision the search chooses gets an entry argument, its mask, that the
// driver finds by name and attributes (lib/Driver/ChooseKeptProducts.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_PRECISIONMASK_H
#define TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_PRECISIONMASK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tessel {

/// The multiply-adds of `product` (a conv, matmul or gemm) whose weights
/// (operand 1) have their output channels at dimension `channelDim`.
int64_t multiplyAddsOf(Operation *product, unsigned channelDim);

/// Appends to `func` the mask input `precision_mask_<k>` (tensor<1xf32>: 1
/// for low precision, 0 for f32) of `product`, with its model nodes
/// (`tessel.nodes`) and multiply-adds (`tessel.multiply_adds`); null when
/// the argument cannot be added.
Value addPrecisionMask(func::FuncOp func, unsigned k, Operation *product,
                       unsigned channelDim);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DIALECT_TESSEL_TRANSFORMS_PRECISIONMASK_H
