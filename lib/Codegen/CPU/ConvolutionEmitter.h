//===- ConvolutionEmitter.h - Loop nests of convolution kernels -*- C++ -*-===//
//
// Internal to lib/Codegen/CPU: what the convolution kernels build their loop
// nests with. Index constants (and zero vectors) are made once, at the
// function's entry; loops are scf.for with iteration arguments, marked
// parallel when their op is large enough.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONEMITTER_H
#define TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONEMITTER_H

#include "ParallelMarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tessel::cpu {

/// Builds a kernel's loop nest with `b` (where it inserts: the caller sets
/// it at the op the kernel replaces) and its constants at the entry of the
/// function around `anchor`.
struct ConvLoopEmitter {
  ConvLoopEmitter(OpBuilder &b, Operation *anchor, Location loc)
      : b(b), loc(loc), entry(anchor->getParentOfType<func::FuncOp>().getBody(),
                              b.getListener()) {}

  OpBuilder &b;
  Location loc;
  OpBuilder entry;

  /// The index constant `v`.
  Value idx(int64_t v) {
    Value &c = constants[v];
    if (!c)
      c = arith::ConstantIndexOp::create(entry, loc, v);
    return c;
  }
  /// The f32 vector of zeros of `type`.
  Value zeroVector(VectorType type) {
    Value &v = zeroVectors[type];
    if (!v)
      v = arith::ConstantOp::create(
          entry, loc, DenseElementsAttr::get(type, entry.getF32FloatAttr(0)));
    return v;
  }
  /// The f32 0 that pads transfer reads (and stands for the padding).
  Value pad() {
    if (!zero)
      zero = arith::ConstantOp::create(entry, loc, entry.getF32FloatAttr(0));
    return zero;
  }
  Value add(Value v, int64_t c) {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, idx(c)).getResult();
  }
  Value mul(Value v, int64_t c) {
    return c == 1 ? v : arith::MulIOp::create(b, loc, v, idx(c)).getResult();
  }
  /// scf.for 0..upper step `step` carrying `iterArgs`; `body` returns what
  /// the iteration yields. The loop is marked parallel for an op of
  /// `parallelWork` multiply-adds (0: not parallel).
  SmallVector<Value>
  loop(int64_t upper, int64_t step, ValueRange iterArgs,
       function_ref<SmallVector<Value>(Value, ValueRange)> body,
       int64_t parallelWork = 0) {
    return loopOver(idx(0), idx(upper), step, iterArgs, body, parallelWork);
  }
  /// The same over [lower, upper).
  SmallVector<Value>
  loopOver(Value lower, Value upper, int64_t step, ValueRange iterArgs,
           function_ref<SmallVector<Value>(Value, ValueRange)> body,
           int64_t parallelWork = 0) {
    scf::ForOp forOp = forLoop(lower, upper, step, iterArgs, body);
    markParallel(forOp, parallelWork);
    return SmallVector<Value>(forOp.getResults());
  }

  /// scf.for 0..upper step 1 that stays a loop: it carries an LLVM loop
  /// annotation that disables unrolling (as `loop_annotation`, the name
  /// SCFToControlFlow and ControlFlowToLLVM carry onto the loop's
  /// `llvm.br`). LLVM would otherwise unroll a short loop fully: ResNet-18's
  /// stem's 7 tap columns ran as fast unrolled so, in 6% more code (Zen 3).
  SmallVector<Value>
  keptLoop(int64_t upper, ValueRange iterArgs,
           function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    scf::ForOp forOp = forLoop(idx(0), idx(upper), 1, iterArgs, body);
    MLIRContext *ctx = b.getContext();
    auto unroll = LLVM::LoopUnrollAttr::get(ctx, b.getBoolAttr(true), {}, {},
                                            {}, {}, {}, {});
    forOp->setAttr("loop_annotation", LLVM::LoopAnnotationAttr::get(
                                          ctx, {}, {}, {}, unroll, {}, {}, {},
                                          {}, {}, {}, {}, {}, {}, {}, {}));
    return SmallVector<Value>(forOp.getResults());
  }

private:
  /// scf.for [lower, upper) step `step` whose iterations yield what
  /// `body` returns, built with `b`.
  scf::ForOp forLoop(Value lower, Value upper, int64_t step,
                     ValueRange iterArgs,
                     function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return scf::ForOp::create(
        b, loc, lower, upper, idx(step), iterArgs,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(iv, args));
        });
  }

  llvm::DenseMap<int64_t, Value> constants;
  llvm::DenseMap<Type, Value> zeroVectors;
  Value zero;
};

} // namespace mlir::tessel::cpu

#endif // TESSEL_LIB_CODEGEN_CPU_CONVOLUTIONEMITTER_H
