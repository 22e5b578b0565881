//===- PrefetchWeights.cpp - Prefetch the next packed weight panel --------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "SteppedLoops.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPREFETCHWEIGHTSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

constexpr int64_t kLineBytes = 64;

/// The largest op (nested ops included) run in two versions: a product
/// tile's reduction loop is about ten; duplicating convolution tiles'
/// unrolled taps (hundreds each) made ResNet-50 compile in 23 s instead of
/// 18.
constexpr int64_t kMaxVersionedOps = 64;

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
    // The reads to prefetch for, by the op of their reuse loop's body that
    // holds them.
    llvm::MapVector<Operation *, SmallVector<PanelRead>> byHolder;
    for (vector::TransferReadOp read : reads) {
      std::optional<PanelRead> panelRead = findPanelRead(read);
      if (!panelRead)
        continue;
      Operation *holder =
          panelRead->reuse.getBody()->findAncestorOpInBlock(*read);
      byHolder[holder].push_back(*panelRead);
    }
    for (auto &[holder, panelReads] : byHolder)
      prefetchInFirstIteration(holder, panelReads);
  }

  /// A read to prefetch the next panel for: its loop that reuses the
  /// panel, and the elements it reads.
  struct PanelRead {
    vector::TransferReadOp read;
    scf::ForOp reuse;
    int64_t elements;
    /// For a read of an activation's columns (findColumnRead): the step of
    /// the loop over column blocks, and the start of its last iteration;
    /// 0 for a constant's panels.
    int64_t columnStep = 0, lastColumn = 0;
  };

  /// Runs `holder` (an op of the reuse loop's body) in two versions: with
  /// the prefetches of `panelReads` (all inside it) in the reuse loop's
  /// first iteration, without in the others, which would prefetch the same
  /// lines again (a 50-row product's 10 row tiles, prefetching in every
  /// one, ran 11% slower than without prefetches when the weights were
  /// in the caches already; prefetching the current panel instead of the
  /// next outside the first, through a select, 30% slower). A holder of
  /// more than kMaxVersionedOps ops (a convolution tile's unrolled taps)
  /// prefetches in every iteration instead.
  static void prefetchInFirstIteration(Operation *holder,
                                       MutableArrayRef<PanelRead> panelReads) {
    int64_t size = 0;
    holder->walk([&](Operation *) { ++size; });
    if (size > kMaxVersionedOps) {
      for (PanelRead &panelRead : panelReads)
        emitPrefetches(panelRead, panelRead.read);
      return;
    }
    scf::ForOp reuse = panelReads.front().reuse;
    OpBuilder b(holder);
    Location loc = holder->getLoc();
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        reuse.getInductionVar(),
                                        reuse.getLowerBound());
    auto versions = scf::IfOp::create(b, loc, holder->getResultTypes(), first,
                                      /*withElseRegion=*/true);
    // (Without results, the branches already end in their yields.)
    auto yieldAtEnd = [&](Block *block, ValueRange values) {
      if (holder->getNumResults() == 0)
        return cast<scf::YieldOp>(block->getTerminator());
      b.setInsertionPointToEnd(block);
      return scf::YieldOp::create(b, loc, values);
    };
    IRMapping mapping;
    b.setInsertionPointToStart(versions.thenBlock());
    Operation *withPrefetches = b.clone(*holder, mapping);
    yieldAtEnd(versions.thenBlock(), withPrefetches->getResults());
    scf::YieldOp yield =
        yieldAtEnd(versions.elseBlock(), holder->getResults());
    holder->replaceUsesWithIf(versions.getResults(), [&](OpOperand &use) {
      return use.getOwner() != yield.getOperation();
    });
    holder->moveBefore(yield);
    for (PanelRead &panelRead : panelReads)
      emitPrefetches(panelRead, cast<vector::TransferReadOp>(mapping.lookup(
                                    panelRead.read.getOperation())));
  }

  /// The elements `read` reads: a run along the memref's innermost
  /// dimension, one vector dimension reading it, the others unit or
  /// broadcast (a product tile's operand read as vector<R x 1 x T x 1>
  /// across its rows); none for any other read.
  static std::optional<int64_t> contiguousElements(vector::TransferReadOp read) {
    AffineMap map = read.getPermutationMap();
    int64_t innermost = map.getNumDims() - 1, elements = 1;
    for (auto [size, result] :
         llvm::zip_equal(read.getVectorType().getShape(), map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(result);
      if (!dim) {
        if (!isa<AffineConstantExpr>(result))
          return std::nullopt;
        continue;
      }
      if (dim.getPosition() == innermost)
        elements = size;
      else if (size != 1)
        return std::nullopt;
    }
    return elements;
  }

  /// An f32 read of a run of a constant, packed as panels `[P, ...]`, at
  /// `[p, ...]` inside a loop `R` that repeats and in which no index varies
  /// (none depends on R's induction variable or loop-carried values), `p`
  /// computed outside `R`: each of R's iterations reads the panel again, so
  /// only the first finds it out of the caches.
  /// Prefetches the same lines of the next panel, `[min(p + 1, P - 1),
  /// ...]`, so the panel after this one is in the caches when its first
  /// iteration starts.
  static std::optional<PanelRead> findPanelRead(vector::TransferReadOp read) {
    auto global = read.getBase().getDefiningOp<memref::GetGlobalOp>();
    if (!global)
      return findColumnRead(read);
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    if (!memref || !memref.getLayout().isIdentity() ||
        !memref.hasStaticShape() || !memref.getElementType().isF32() ||
        memref.getRank() < 2 || memref.getDimSize(0) < 2 || read.getMask() ||
        !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
      return std::nullopt;
    std::optional<int64_t> elements = contiguousElements(read);
    if (!elements)
      return std::nullopt;
    ValueRange indices = read.getIndices();
    Value panel = indices.front();
    // Inside the scope that computes the panel index.
    scf::ForOp reuse = findReuseLoop(read, [&](scf::ForOp loop) {
      return loop->isAncestor(panel.getParentBlock()->getParentOp()) ||
             (panel.getDefiningOp() && loop->isAncestor(panel.getDefiningOp()));
    });
    if (!reuse)
      return std::nullopt;
    return PanelRead{read, reuse, *elements};
  }

  /// The innermost loop around `read` that repeats the read of the same
  /// addresses (it runs twice or more, and none of the read's indices
  /// varies in it), searched outwards up to the first loop `outside`
  /// accepts (excluded); null if none.
  static scf::ForOp findReuseLoop(vector::TransferReadOp read,
                                  function_ref<bool(scf::ForOp)> outside) {
    ValueRange indices = read.getIndices();
    for (auto loop = read->getParentOfType<scf::ForOp>();
         loop && !outside(loop); loop = loop->getParentOfType<scf::ForOp>())
      if (repeats(loop) && llvm::none_of(indices, [&](Value index) {
            return variesIn(index, loop);
          }))
        return loop;
    return {};
  }

  /// An f32 read of a run of an activation (any buffer but a constant)
  /// at `[..., j]`, `j` the induction variable of a loop J over column
  /// blocks (constant bounds, step S, two iterations or more), inside a
  /// loop `R` inside J that repeats and in which no index varies: a
  /// product's right operand read in place (`[C, H*W]`, a 1x1
  /// convolution's input), reread by every row tile R runs over the same
  /// column block. Only R's first iteration finds the block out of the
  /// caches, its rows a page or more apart, which the hardware prefetchers
  /// do not follow. Prefetches the same rows of the next column block,
  /// `[..., min(j + S, last)]`, `last` the start of J's last iteration.
  static std::optional<PanelRead> findColumnRead(vector::TransferReadOp read) {
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    if (!memref || !memref.getLayout().isIdentity() ||
        !memref.hasStaticShape() || !memref.getElementType().isF32() ||
        memref.getRank() < 2 || read.getMask() ||
        !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
      return std::nullopt;
    std::optional<int64_t> elements = contiguousElements(read);
    int64_t columnStep = 0, lastColumn = 0;
    scf::ForOp columns =
        tessel::cpu::loopOf(read.getIndices().back(), columnStep, lastColumn);
    if (!elements || !columns)
      return std::nullopt;
    scf::ForOp reuse =
        findReuseLoop(read, [&](scf::ForOp loop) { return loop == columns; });
    if (!reuse)
      return std::nullopt;
    return PanelRead{read, reuse, *elements, columnStep, lastColumn};
  }

  /// Prefetches, before `read`, the same `elements` of the next panel (or
  /// of the next column block).
  static void emitPrefetches(const PanelRead &panelRead,
                             vector::TransferReadOp read) {
    auto memref = cast<MemRefType>(read.getBase().getType());
    ValueRange indices = read.getIndices();
    bool alongColumns = panelRead.columnStep != 0;
    Value current = alongColumns ? indices.back() : indices.front();

    OpBuilder b(read);
    Location loc = read.getLoc();
    auto idx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    // (One op per statement: the order of a call's arguments is the
    // compiler's, and the printed IR would differ between compilers.)
    Value step = idx(alongColumns ? panelRead.columnStep : 1);
    Value last =
        idx(alongColumns ? panelRead.lastColumn : memref.getDimSize(0) - 1);
    Value stepped = arith::AddIOp::create(b, loc, current, step);
    Value next = arith::MinSIOp::create(b, loc, stepped, last);
    int64_t perLine = kLineBytes / 4;
    for (int64_t c = 0; c < panelRead.elements; c += perLine) {
      SmallVector<Value> at(indices.begin(), indices.end());
      (alongColumns ? at.back() : at.front()) = next;
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
