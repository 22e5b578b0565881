//===- PrefetchWeights.cpp - Prefetch the next packed weight panel --------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPREFETCHWEIGHTSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

constexpr int64_t kLineBytes = 64;

/// Whether `value` may change between iterations of `loop`: it is one of
/// the loop body's block arguments (the induction variable, a loop-carried
/// value), or an op of its backward slice reads one.
bool variesIn(Value value, scf::ForOp loop) {
  auto isLoopArgument = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == loop.getBody();
  };
  if (isLoopArgument(value))
    return true;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  (void)getBackwardSlice(def, &slice, options);
  return llvm::any_of(slice, [&](Operation *op) {
    return llvm::any_of(op->getOperands(), isLoopArgument);
  });
}

/// Whether `loop` runs its body at least twice (constant bounds).
bool repeats(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips && trips->uge(2);
}

struct PrefetchWeightsPass
    : tessel::impl::TesselPrefetchWeightsPassBase<PrefetchWeightsPass> {
  void runOnOperation() override {
    SmallVector<vector::TransferReadOp> reads;
    getOperation().walk(
        [&](vector::TransferReadOp read) { reads.push_back(read); });
    for (vector::TransferReadOp read : reads)
      prefetchNextPanel(read);
  }

  /// A 1-D f32 read of a constant, packed as panels `[P, ...]`, at
  /// `[p, ...]` inside a loop `R` that repeats and in which no index varies
  /// (none depends on R's induction variable or loop-carried values), `p`
  /// computed outside `R`: each of R's iterations reads the panel again, so
  /// only the first finds it out of the caches.
  /// Prefetches the same lines of the next panel, `[min(p + 1, P - 1),
  /// ...]`, so the panel after this one is in the caches when its first
  /// iteration starts.
  static void prefetchNextPanel(vector::TransferReadOp read) {
    auto global = read.getBase().getDefiningOp<memref::GetGlobalOp>();
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vector = read.getVectorType();
    if (!global || !memref || !memref.getLayout().isIdentity() ||
        !memref.hasStaticShape() || !memref.getElementType().isF32() ||
        memref.getRank() < 2 || memref.getDimSize(0) < 2 ||
        vector.getRank() != 1 || !read.getPermutationMap().isMinorIdentity() ||
        read.getMask() ||
        !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
      return;
    ValueRange indices = read.getIndices();
    Value panel = indices.front();
    // The innermost enclosing loop that repeats the read of the same
    // addresses, inside the scope that computes the panel index.
    scf::ForOp reuse;
    for (auto loop = read->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>()) {
      if (loop->isAncestor(panel.getParentBlock()->getParentOp()) ||
          (panel.getDefiningOp() && loop->isAncestor(panel.getDefiningOp())))
        break;
      if (repeats(loop) && llvm::none_of(indices, [&](Value index) {
            return variesIn(index, loop);
          })) {
        reuse = loop;
        break;
      }
    }
    if (!reuse)
      return;

    OpBuilder b(read);
    Location loc = read.getLoc();
    auto idx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    // (One op per statement: the order of a call's arguments is the
    // compiler's, and the printed IR would differ between compilers.)
    Value one = idx(1), lastPanel = idx(memref.getDimSize(0) - 1);
    Value stepped = arith::AddIOp::create(b, loc, panel, one);
    Value next = arith::MinSIOp::create(b, loc, stepped, lastPanel);
    int64_t perLine = kLineBytes / 4;
    for (int64_t c = 0; c < vector.getDimSize(0); c += perLine) {
      SmallVector<Value> at(indices.begin(), indices.end());
      at.front() = next;
      if (c) {
        Value offset = idx(c);
        at.back() = arith::AddIOp::create(b, loc, at.back(), offset);
      }
      memref::PrefetchOp::create(b, loc, read.getBase(), at,
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
    }
  }
};

} // namespace
