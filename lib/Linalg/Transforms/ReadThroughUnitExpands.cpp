//===- ReadThroughUnitExpands.cpp - Drop unit-dim expands before reads ----===//
//
// A keep-dims reduction lowers to a reduction and a tensor.expand_shape that
// adds the unit dimension back; an all-parallel generic reading that
// expand reads its source instead, with the unit dimensions' expressions
// dropped from its indexing map. The reads then connect generic to generic,
// as the row groups of tessel-vectorize-generics need (a layer norm written
// as ReduceMean, Sub, Pow, Sqrt and Div).
//
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELREADTHROUGHUNITEXPANDSPASS
#include "tessel/Linalg/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// For an expand that only adds unit dimensions, the result dimension each
/// source dimension stays in; nothing for any other expand.
std::optional<SmallVector<unsigned>>
keptDimensions(tensor::ExpandShapeOp expand) {
  RankedTensorType source = expand.getSrcType();
  RankedTensorType result = expand.getResultType();
  if (!source.hasStaticShape() || !result.hasStaticShape())
    return std::nullopt;
  SmallVector<unsigned> kept;
  for (auto [dim, group] : llvm::enumerate(expand.getReassociationIndices())) {
    std::optional<unsigned> keep;
    for (int64_t d : group) {
      int64_t extent = result.getDimSize(d);
      if (!keep && extent == source.getDimSize(dim))
        keep = static_cast<unsigned>(d);
      else if (extent != 1)
        return std::nullopt;
    }
    if (!keep)
      return std::nullopt;
    kept.push_back(*keep);
  }
  return kept;
}

/// An all-parallel generic reads an expand that only adds unit dimensions
/// through its source. The unit dimensions' expressions can only ever be
/// 0, so dropping them reads the same elements. A product's result stays
/// read through the expand: its epilogue fusion absorbs it there.
struct ReadThroughUnitExpand : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not all-parallel on tensors");
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand)
        continue;
      auto source = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
      if (source && (linalg::isaContractionOpInterface(source) ||
                     linalg::isaConvolutionOpInterface(source)))
        continue;
      std::optional<SmallVector<unsigned>> kept = keptDimensions(expand);
      if (!kept)
        continue;
      AffineMap map = op.getMatchingIndexingMap(operand);
      SmallVector<AffineExpr> results;
      for (unsigned d : *kept)
        results.push_back(map.getResult(d));
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[operand->getOperandNumber()] = AffineMap::get(
          map.getNumDims(), map.getNumSymbols(), results, op.getContext());
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(expand.getSrc());
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "reads no unit-dim expand");
  }
};

struct ReadThroughUnitExpandsPass
    : tessel::impl::TesselReadThroughUnitExpandsPassBase<
          ReadThroughUnitExpandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReadThroughUnitExpand>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
