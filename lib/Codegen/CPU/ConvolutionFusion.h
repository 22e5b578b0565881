//===- ConvolutionFusion.h - What a vectorized conv absorbs -----*- C++ -*-===//
//
// The vectorized convolution keeps each output tile in vector registers from
// its first to its last reduction step. Of its kernel group
// (tessel/Codegen/KernelGroup.h), the neighbours its registers can run:
//
//  - the prologue: the generic (or fill) that initialises the output with the
//    bias broadcast along the filters (or with 0). The accumulators then
//    start from the bias vector, and the output starts empty.
//  - the epilogue: the single elementwise generic that consumes the
//    convolution's result (bias-free activation chains, residual adds, after
//    --tessel-fuse-elementwise merged them). Its body runs on the finished
//    accumulators before they are stored; its other inputs are read at the
//    same positions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONFUSION_H
#define TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONFUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tessel::cpu {

/// How the accumulators of a convolution start.
struct ConvPrologue {
  /// The tensor the tile loops carry and write.
  Value init;
  /// A 1-D f32 bias along the filters the accumulators start from, or null.
  Value bias;
  /// The accumulators start from 0 (and `bias` is null).
  bool zero = false;
  /// The fill or broadcast the prologue replaces (erase after the rewrite),
  /// or null when there is none and the accumulators start from `init`.
  Operation *producer = nullptr;
};

/// The prologue of `conv`: its kernel group's prologue when that is a zero
/// fill or a bias broadcast (along output dimension `channelDim`); otherwise
/// none (start from the output's values).
ConvPrologue matchPrologue(linalg::GenericOp conv, unsigned channelDim = 1);

/// An elementwise generic that runs on the convolution's accumulators.
struct ConvEpilogue {
  linalg::GenericOp op;
  unsigned convInput; ///< the input that is the convolution's result
};

/// The epilogue of `conv`: its kernel group's epilogue when that has identity
/// maps only, inputs of the result's type, reads the result once, and has a
/// body of elementwise-mappable ops that does not read its output.
std::optional<ConvEpilogue> matchEpilogue(linalg::GenericOp conv);

/// Emits the epilogue's body on the vector `acc`; `read(tensor)` reads one
/// of the epilogue's other inputs at `acc`'s positions.
Value applyEpilogue(OpBuilder &b, Location loc, const ConvEpilogue &epilogue,
                    Value acc, function_ref<Value(Value)> read);

/// The prologue a rewrite of `conv` absorbs: with `fuse`, `matchPrologue`'s;
/// without, none (the accumulators start from the output's values).
ConvPrologue prologueOf(linalg::GenericOp conv, unsigned channelDim, bool fuse);

/// The epilogue a rewrite of `conv` absorbs: with `fuse`, `matchEpilogue`'s;
/// without, none.
std::optional<ConvEpilogue> epilogueOf(linalg::GenericOp conv, bool fuse);

/// Ends a convolution's rewrite into a loop nest whose result is `result`:
/// replaces the convolution (or its epilogue) by it, erases the ops it
/// absorbed (the prologue, the epilogue, the padding and the shift under it
/// that the kernel read through), and records the nest as one kernel with
/// all their locations.
void finishConvolution(RewriterBase &rewriter, linalg::GenericOp conv,
                       Value result, const ConvPrologue &prologue,
                       const std::optional<ConvEpilogue> &epilogue);

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONFUSION_H
