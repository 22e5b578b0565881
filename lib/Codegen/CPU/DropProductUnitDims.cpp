//===- DropProductUnitDims.cpp - Unit loops and named products ------------===//
//
// Before a product is tiled: its unit loops are dropped (torch's attention
// projections multiply [seq, 1, d] by [d, 3d]) and its row loops collapsed
// into one (a channels-last [H, W, C] x [C, F]), with those of the
// neighbours its tiles absorb, and a generic with plain (batch) matmul maps
// becomes the named op it is.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "ProductTiling.h"
#include "TileSizes.h"
#include "VectorTypes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

/// Makes `operand` read past a collapse of an expand that restores its
/// type (the reshapes between two ops that both dropped the same unit
/// dimensions), and erases the reshapes once unused.
static void skipReshapePair(RewriterBase &rewriter, OpOperand &operand) {
  auto collapse = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
  auto expand = collapse
                    ? collapse.getSrc().getDefiningOp<tensor::ExpandShapeOp>()
                    : nullptr;
  if (!expand || expand.getSrcType() != collapse.getResultType() ||
      expand.getReassociationIndices() != collapse.getReassociationIndices())
    return;
  rewriter.modifyOpInPlace(operand.getOwner(),
                           [&] { operand.set(expand.getSrc()); });
  if (collapse->use_empty())
    rewriter.eraseOp(collapse);
  if (expand->use_empty())
    rewriter.eraseOp(expand);
}

/// Replaces neighbour `generic` by `replacements`, the results of its
/// rewrite `rebuilt` (unit loops dropped, loops collapsed), which then
/// reads past the reshape pairs left between it and the product.
static void replaceNeighbour(RewriterBase &rewriter, linalg::GenericOp generic,
                             ValueRange replacements, Operation *rebuilt) {
  rewriter.replaceOp(generic, replacements);
  for (OpOperand &operand : rebuilt->getOpOperands())
    skipReshapePair(rewriter, operand);
}

void mlir::tessel::dropNeighbourUnitLoops(RewriterBase &rewriter,
                                          linalg::GenericOp generic) {
  rewriter.setInsertionPoint(generic);
  linalg::ControlDropUnitDims control;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return;
  replaceNeighbour(rewriter, generic, dropped->replacements,
                   dropped->resultOp);
}

/// The product's initialiser past the collapse_shape that a rewrite of the
/// product (dropped unit loops, collapsed rows) put in front of it: a fill
/// becomes a fill of the collapsed tensor; a generic is rebuilt by
/// `rebuild` (dropping or collapsing the same loops), and the product reads
/// past the reshape pair that leaves.
static void rebuildInitPastCollapse(
    RewriterBase &rewriter, linalg::LinalgOp product,
    function_ref<void(linalg::GenericOp)> rebuild) {
  OpOperand &init = product.getDpsInitsMutable()[0];
  auto collapse = init.get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !collapse->hasOneUse())
    return;
  Operation *producer = collapse.getSrc().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    rewriter.setInsertionPoint(collapse);
    Value empty = tensor::EmptyOp::create(
        rewriter, fill.getLoc(), collapse.getResultType().getShape(),
        collapse.getResultType().getElementType());
    Value filled = linalg::FillOp::create(rewriter, fill.getLoc(),
                                          fill.getInputs()[0], empty)
                       .getResult(0);
    rewriter.modifyOpInPlace(product, [&] { init.set(filled); });
    rewriter.eraseOp(collapse);
    rewriter.eraseOp(fill);
    return;
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    rebuild(generic);
    skipReshapePair(rewriter, init);
  }
}

// Torch's attention projections multiply [seq, 1, d] by [d, 3d]: without
// the unit loop the row loop is the long one, not the unit batch dimension,
// and the register tile gets its rows. The neighbours drop the same unit
// loops so that no reshape stands between them and the product.
linalg::LinalgOp mlir::tessel::dropProductUnitLoops(RewriterBase &rewriter,
                                                    linalg::LinalgOp op,
                                                    linalg::GenericOp consumer,
                                                    bool withInit) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  // Products of f32, f16 or bf16 values accumulating in f32 (the f32,
  // 16-bit and widened-FMA kernels'), and 8-bit ones accumulating in i32
  // (the VNNI kernel's).
  auto isI8 = [](Value v) { return getElementTypeOrSelf(v).isInteger(8); };
  auto isFloat = [](Value v) {
    return cpu::isVectorFloat(getElementTypeOrSelf(v));
  };
  auto hasKernelTypes = [&](Type acc, function_ref<bool(Value)> input) {
    return llvm::all_of(op.getDpsInputs(), input) &&
           llvm::all_of(op.getDpsInits(), [&](Value v) {
             return getElementTypeOrSelf(v) == acc;
           });
  };
  MLIRContext *ctx = op.getContext();
  if (!generic || !linalg::isaContractionOpInterface(op) ||
      op.hasDynamicShape() ||
      !(hasKernelTypes(Float32Type::get(ctx), isFloat) ||
        hasKernelTypes(IntegerType::get(ctx, 32), isI8)) ||
      !llvm::is_contained(op.getStaticLoopRanges(), 1))
    return op;
  rewriter.setInsertionPoint(generic);
  linalg::ControlDropUnitDims control;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return op;
  auto result = dyn_cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
  if (!result || !linalg::isaContractionOpInterface(result)) {
    // No longer a contraction (a product with a unit reduction): keep the
    // original; the reshapes built for the new one are dead.
    for (Value replacement : dropped->replacements)
      if (Operation *expand = replacement.getDefiningOp();
          expand && expand != dropped->resultOp.getOperation() &&
          expand->use_empty())
        rewriter.eraseOp(expand);
    if (dropped->resultOp && dropped->resultOp->use_empty())
      rewriter.eraseOp(dropped->resultOp);
    return op;
  }
  rewriter.replaceOp(generic, dropped->replacements);
  if (withInit)
    rebuildInitPastCollapse(rewriter, result, [&](linalg::GenericOp init) {
      dropNeighbourUnitLoops(rewriter, init);
    });
  if (consumer)
    dropNeighbourUnitLoops(rewriter, consumer);
  return result;
}

bool mlir::tessel::hasOnlyUnitRows(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.hasDynamicShape())
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned d = 0; d < ranges.size(); ++d)
    if ((ranges[d] == 1) != llvm::is_contained(dims->m, d))
      return false;
  return true;
}

/// Whether `op` indexes its operands as a plain (batch) matmul does:
/// (m, k), (k, n) -> (m, n), with leading batch loops. LLVM 22's
/// specialization turns other products (a transposed operand) into a
/// matmul with the default maps, which computes something else.
static bool hasPlainProductMaps(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops != 3 && loops != 4)
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> batch;
  if (loops == 4)
    batch.push_back(getAffineDimExpr(0, ctx));
  unsigned first = loops - 3;
  AffineExpr m = getAffineDimExpr(first, ctx),
             n = getAffineDimExpr(first + 1, ctx),
             k = getAffineDimExpr(first + 2, ctx);
  auto map = [&](AffineExpr a, AffineExpr b) {
    SmallVector<AffineExpr> exprs(batch);
    exprs.append({a, b});
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  SmallVector<AffineMap> expected = {map(m, k), map(k, n), map(m, n)};
  return op.getIndexingMapsArray() == expected;
}

// The named op's vectorization is a `vector.contract` of row, column and
// reduction vectors; a generic's reads instead take the whole iteration
// space, which unrolls into single lanes.
linalg::LinalgOp mlir::tessel::specializeProduct(RewriterBase &rewriter,
                                                 linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !linalg::isaContractionOpInterface(op) ||
      !hasPlainProductMaps(op))
    return op;
  // Mixed integer types (an i8 product with its extensions in the body)
  // stay generic: a named op has one cast for both inputs, signed or not.
  // Narrower floats summed in f32 become the named op's `extf` (the widened
  // FMA's contraction reads them narrow).
  Type outType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (llvm::any_of(op.getDpsInputs(), [&](Value input) {
        Type type = getElementTypeOrSelf(input.getType());
        return type != outType &&
               !(isa<FloatType>(type) && isa<FloatType>(outType));
      }))
    return op;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::LinalgOp> named =
      linalg::specializeGenericOp(rewriter, generic);
  if (failed(named))
    return op;
  return *named;
}

/// The row (m) loops of contraction `op` that run more than once, when
/// there are several and they are consecutive loops that the left-hand side
/// and the output both index in loop order, consecutively: they can run
/// as one loop. Empty otherwise.
static ReassociationIndices collapsibleRows(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ReassociationIndices rows;
  for (unsigned d : dims->m)
    if (ranges[d] != 1)
      rows.push_back(d);
  llvm::sort(rows);
  if (rows.size() < 2 || rows.back() - rows.front() + 1 !=
                             static_cast<int64_t>(rows.size()))
    return {};
  // (Upstream's check: every map reads the sequence together or not at
  // all.)
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {rows}))
    return {};
  return rows;
}

/// `generic` (an elementwise neighbour, loops = the product's output
/// dimensions) with the loops at `positions` collapsed into one; reads
/// past the reshape pairs that leaves between it and the product.
static void collapseNeighbourLoops(RewriterBase &rewriter,
                                   linalg::GenericOp generic,
                                   const ReassociationIndices &positions) {
  if (!linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(),
                                        {positions}))
    return;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(
          generic, loopGroups(generic.getNumLoops(), positions), rewriter);
  if (failed(collapsed))
    return;
  replaceNeighbour(rewriter, generic, collapsed->results,
                   collapsed->collapsedOp);
}

linalg::LinalgOp mlir::tessel::collapseProductRows(RewriterBase &rewriter,
                                                   linalg::LinalgOp op,
                                                   linalg::GenericOp consumer,
                                                   bool withInit) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !linalg::isaContractionOpInterface(op) ||
      op.hasDynamicShape() || op->getNumResults() != 1)
    return op;
  ReassociationIndices rows = collapsibleRows(op);
  if (rows.empty())
    return op;
  // The rows' positions in the output: the consumer's loops (identity
  // maps) and the initialiser's.
  AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
  ReassociationIndices positions;
  for (int64_t d : rows) {
    std::optional<unsigned> at =
        outMap.getResultPosition(getAffineDimExpr(d, op.getContext()));
    if (!at)
      return op;
    positions.push_back(*at);
  }
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed = linalg::collapseOpIterationDims(
      op, loopGroups(op.getNumLoops(), rows), rewriter);
  if (failed(collapsed))
    return op;
  rewriter.replaceOp(generic, collapsed->results);
  linalg::LinalgOp result = collapsed->collapsedOp;
  if (withInit)
    rebuildInitPastCollapse(rewriter, result, [&](linalg::GenericOp init) {
      collapseNeighbourLoops(rewriter, init, positions);
    });
  if (consumer)
    collapseNeighbourLoops(rewriter, consumer, positions);
  return result;
}
