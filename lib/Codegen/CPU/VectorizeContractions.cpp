//===- VectorizeContractions.cpp - Register-tiled f32 contractions --------===//
//
// The driver of tessel-vectorize-contractions: for every static f32
// contraction, the transformations of tessel/Codegen/CPU/Transforms.h
// ("Matrix products") in order — unit loops dropped, a constant right-hand
// side transposed, a matrix-vector product's matrix packed into panels, the
// product tiled (with its neighbours when it absorbs them) and vectorized
// — then the accumulators hoisted into registers. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"
#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Codegen/CPU/Transforms.h"
#include "tessel/Support/Remarks.h"

#include "KernelMarks.h"
#include "ProductTiling.h"
#include "VectorCleanup.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONTRACTIONSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

struct VectorizeContractionsPass
    : tessel::impl::TesselVectorizeContractionsPassBase<
          VectorizeContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    ProductTilingOptions options;
    options.lanes = std::max<int64_t>(1, vectorWidth);
    options.accumulators = accumulators;
    options.target = withCoreThroughput(
        describeVectorTarget(options.lanes, accumulators, vnni, bf16, amx,
                             amxBf16, fp16),
        fmasPerCycle, fmaLatency, loadsPerCycle);
    if (l2CacheBytes > 0)
      options.target.l2Bytes = l2CacheBytes;

    // Only contractions: the rewrites below erase the elementwise ops
    // around them.
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        candidates.push_back(op);
    });
    bool changed = false;
    for (linalg::LinalgOp op : candidates) {
      // A part of a kernel already recorded (a head's product in
      // tessel-fuse-attention's loop) is vectorized alike but records no
      // kernel of its own. (Dropping unit loops rebuilds the op without
      // the mark.)
      bool inKernel = op->hasAttr(tessel::cpu::kInKernelAttr);
      // Unit loops are dropped (their reshapes would stand between the
      // product and its neighbours) unless the product only has unit rows
      // (a matrix-vector product: 1-row tiles either way) and neighbours,
      // or a constant matrix of several panels: packMatrixPanels packs
      // that in the (m, n, k) form only, and read in place its rows are N
      // apart, a page per step (an LSTM step's [1, 256] x [256, 1024] on
      // Zen 3's 512 KiB L2: bench/notes/vectorize-contractions.md).
      // With epilogue fusion the neighbours drop the same unit loops.
      if (fuseEpilogue)
        absorbUnitExpand(rewriter, op);
      KernelGroup around =
          fuseEpilogue ? getProductKernel(op) : KernelGroup{op, {}, {}};
      bool keepUnitRows =
          hasOnlyUnitRows(op) &&
          (around.hasNeighbours() || isPanelledMatrixVector(op, options.lanes));
      if (!keepUnitRows)
        op = dropProductUnitLoops(rewriter, op, around.epilogue,
                                  around.prologue != nullptr);
      // Several row loops run as one (the neighbours were rebuilt).
      if (fuseEpilogue)
        around = getProductKernel(op);
      op = collapseProductRows(rewriter, op, around.epilogue,
                               around.prologue != nullptr);
      // A micro-kernel that sums groups of reduction steps per lane reads
      // constant weights packed in those groups.
      auto elementType = [](Value v) {
        return getElementTypeOrSelf(v.getType());
      };
      if (const MicroKernel *kernel = getMicroKernel(
              options.target, elementType(op.getDpsInputs()[0]),
              elementType(op.getDpsInputs()[1]),
              elementType(op.getDpsInits()[0]));
          kernel && kernel->getReductionGroup() > 1)
        if (FailureOr<linalg::GenericOp> packed = packGroupedWeights(
                rewriter, op, kernel->getReductionGroup());
            succeeded(packed))
          op = *packed;
      // Register tiles that start from their own fill or bias may overlap
      // over rows they do not divide (6 of 256 filters: 12 accumulators
      // instead of the 8 of 4 rows, which leave the FMAs no slack over
      // their latency).
      // (Not when the prologue or the epilogue reads its output: an
      // overlapping tile would read what the one before it wrote.)
      ProductTilingOptions planOptions = options;
      KernelGroup planned = getProductKernel(op);
      planOptions.overlappingRows = fuseEpilogue && planned.prologue &&
                                    !readsItsOutput(planned.prologue) &&
                                    !readsItsOutput(planned.epilogue);
      // And over columns no whole vector divides, inside an attention
      // block: its loop over heads is the one split across threads.
      planOptions.overlappingColumns = planOptions.overlappingRows && inKernel;
      std::optional<ProductLoopTiles> plan =
          planProductLoopTiles(op, planOptions);
      if (!plan) {
        // A right-hand side stored transposed may qualify once transposed.
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        if (!generic || !linalg::isaContractionOpInterface(op))
          continue;
        IRRewriter::InsertionGuard guard(rewriter);
        if (failed(transposeConstantRhs(rewriter, generic)))
          continue;
        plan = planProductLoopTiles(op, planOptions);
        if (!plan)
          continue;
      }
      // (The maps packMatrixPanels takes put the columns at loop 1.)
      int64_t tileColumns =
          plan->tileSizes.size() == 3 ? plan->tileSizes[1] : 0;
      if (linalg::LinalgOp packed =
              packMatrixPanels(rewriter, op, options.lanes, tileColumns);
          packed != op) {
        op = packed;
        plan = planProductLoopTiles(op, planOptions);
        if (!plan)
          continue;
      }
      // Same loops and maps: the plan holds for the named op too.
      op = specializeProduct(rewriter, op);
      if (fuseEpilogue)
        if (KernelGroup kernel = getProductKernel(op); kernel.hasNeighbours())
          if (succeeded(fuseProductNeighbours(rewriter, op, *plan, kernel,
                                              options, inKernel))) {
            changed = true;
            continue;
          }
      // Unfused, the tiles accumulate into the output: they divide it.
      if (planOptions.overlappingRows) {
        plan = planProductLoopTiles(op, options);
        if (!plan)
          continue;
      }
      Location kernelLoc = op->getLoc();
      if (succeeded(tileProduct(rewriter, op, *plan))) {
        // The report counts the loop nest as one kernel (its structured op
        // is vectorized away).
        if (!inKernel)
          tessel::reportKernel(func, "contraction", kernelLoc);
        changed = true;
      }
    }
    if (!changed)
      return;
    finishVectorization(func);
  }

  void finishVectorization(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    IRRewriter rewriter(ctx);
    // Reads and writes of tensor slices become transfers of the whole
    // tensor; then the output tile moves out of the reduction loops.
    if (failed(cpu::foldSubsetsAndCanonicalize(func)))
      return signalPassFailure();

    // The output tile is read and written at the same loop-invariant
    // indices in every reduction step: it becomes a vector carried by the
    // loop. Post-order: inner loops first. (A unit reduction tile leaves no
    // vector.contract: it folds to a broadcast multiply and add.)
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      bool vectorized = false;
      loop.walk([&](vector::TransferWriteOp) { vectorized = true; });
      if (vectorized)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      hoistLoopInvariantSubsets(rewriter, loop);

    // The tile's multiply-adds may contract into FMAs (one rounding, as
    // BLAS libraries compute). Vector arithmetic here comes from the
    // products just vectorized and the epilogues fused into them or into
    // convolutions, whose multiply-adds may contract alike.
    func.walk([&](Operation *op) {
      if (!isa<arith::MulFOp, arith::AddFOp>(op) ||
          !isa<VectorType>(op->getResult(0).getType()))
        return;
      auto fmf = cast<arith::ArithFastMathInterface>(op);
      op->setAttr(fmf.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      ctx, fmf.getFastMathFlagsAttr().getValue() |
                               arith::FastMathFlags::contract));
    });
  }
};

} // namespace
