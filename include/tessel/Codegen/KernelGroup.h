//===- KernelGroup.h - The kernel model of every code generator -*- C++ -*-===//
//
// A kernel is one loop nest that keeps its output tiles in registers (or,
// on a GPU, in a thread block) from the first to the last step: the root
// structured op of a fusion group (a product, a convolution) plus
//
//  - its prologue: the op that initialises the root's output (a fill, a
//    bias broadcast), so the accumulators start from it;
//  - its epilogue: the elementwise generic that consumes the root's result
//    position by position (bias add, activation, residual add), run on the
//    finished accumulators before they are stored.
//
// Which ops belong together was decided once, at the graph level
// (`tessel.fused` regions, carried down as `tessel.fusion_group`; see
// tessel/Dialect/Tessel/IR/FusionGroups.h). `getKernelGroup` reads that
// decision off the IR; a code generator then keeps the neighbours its
// micro-kernel can run (e.g. f32 arith/math bodies) and leaves the others
// as kernels of their own. No code generator looks for neighbours itself.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_KERNELGROUP_H
#define TESSEL_CODEGEN_KERNELGROUP_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tessel {

struct KernelGroup {
  /// The structured op whose tiles the kernel walks.
  linalg::LinalgOp root;
  /// The all-parallel op (a fill or a generic) with one result that
  /// produces the root's output operand, in the root's group and with no
  /// other user; null when there is none.
  linalg::LinalgOp prologue;
  /// The all-parallel generic with one result of the root's result shape
  /// (its element type may differ: an integer product's epilogue converts
  /// the i32 sums) that is the one user of the root's result, in the root's
  /// group, reading it (and writing its own result) with the identity map;
  /// null when there is none. A code generator whose kernel stores the
  /// epilogue's values where the accumulators were needs the same type.
  linalg::GenericOp epilogue;

  /// Whether the kernel absorbs any neighbour.
  bool hasNeighbours() const { return prologue || epilogue; }
};

/// The kernel `root` forms with its prologue and epilogue.
KernelGroup getKernelGroup(linalg::LinalgOp root);

/// The prologue of `root`'s kernel, or null.
linalg::LinalgOp getKernelPrologue(linalg::LinalgOp root);

/// The epilogue of `root`'s kernel reached through `result`: `root`'s own
/// result, or a value a code generator has already shown to carry it
/// unchanged (an expand_shape that only adds unit dimensions); null when
/// there is none.
linalg::GenericOp getKernelEpilogue(Operation *root, Value result);

} // namespace mlir::tessel

#endif // TESSEL_CODEGEN_KERNELGROUP_H
