//===- Transforms.h - Graph transformations on the tessel dialect -*- C++ -*-===//
//
// Graph-level transformations as plain functions, and the functions that
// add their patterns to a set, for passes (Passes.td) and for callers that
// compose their own pattern sets.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFORMS_H
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFORMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

class DivOp;

/// Merges `op`, a `tessel.relu` or `tessel.clip`, with the ReLU or Clip that
/// produces its input when the two are one clamp (`clip(relu(x), a >= 0, b)`,
/// `relu(clip(x, a, b))`, `relu(relu(x))`). Returns the op that now computes
/// the clamp, or failure (with the reason) when nothing applies.
FailureOr<Operation *> foldActivationClip(RewriterBase &rewriter,
                                          Operation *op);

/// Adds the patterns of `tessel-fold-activation-clips`.
void populateFoldActivationClipsPatterns(RewritePatternSet &patterns);

/// Folds the division of a requantization, `(cast<f32>(p) * a + b) / c`
/// (`p` integers, `a` and `b` constants, ReLUs anywhere above the
/// multiplication, `c` one positive constant), into the constants:
/// `cast<f32>(p) * (a / c) + b / c`, each quotient computed in double and
/// rounded once. Returns the multiplication that now holds the scale, or
/// failure (with the reason).
FailureOr<Operation *> foldRequantizationScale(RewriterBase &rewriter,
                                               DivOp div);

/// Adds the patterns of `tessel-fold-requantization-scales`.
void populateFoldRequantizationScalesPatterns(RewritePatternSet &patterns);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_TRANSFORMS_H
