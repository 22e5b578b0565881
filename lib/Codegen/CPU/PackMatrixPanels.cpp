//===- PackMatrixPanels.cpp - Constant matrices packed in panels ---------===//
//
// A product with a constant right-hand side runs on that matrix packed at
// compile time into panels of one register tile's columns, each streamed
// contiguously by its tiles.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "ProductTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel;

/// The initialiser of a product `[M, N]` rebuilt on its panels `[M, P, T]`
/// (N padded to P * T columns): a fill, or a broadcast of a constant (the
/// bias) padded with zeros; when no column is padded, any other
/// initialiser viewed as panels. Null otherwise.
static Value panelInit(RewriterBase &rewriter, Value init, int64_t panels,
                       int64_t width) {
  Operation *producer = init.getDefiningOp();
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  bool padded = panels * width != columns;
  auto viewed = [&]() -> Value {
    if (padded)
      return Value();
    rewriter.setInsertionPointAfterValue(init);
    return tensor::ExpandShapeOp::create(
        rewriter, init.getLoc(),
        RankedTensorType::get({rows, panels, width}, type.getElementType()),
        init, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  };
  if (!producer || !producer->hasOneUse())
    return viewed();
  Location loc = producer->getLoc();
  auto emptyPanels = [&] {
    rewriter.setInsertionPoint(producer);
    return tensor::EmptyOp::create(rewriter, loc, {rows, panels, width},
                                   type.getElementType());
  };
  if (auto fill = dyn_cast<linalg::FillOp>(producer))
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                  Value(emptyPanels()))
        .getResult(0);
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  DenseElementsAttr value;
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      generic.getIndexingMapsArray() !=
          SmallVector<AffineMap>{AffineMap::get(2, 0, d(1), ctx),
                                 AffineMap::getMultiDimIdentityMap(2, ctx)} ||
      !matchPattern(generic.getDpsInputs()[0], m_Constant(&value)) ||
      !value.getElementType().isF32() || value.getNumElements() != columns)
    return viewed();
  // Built only once the producer qualifies: a refused one leaves no ops.
  Value empty = emptyPanels();
  SmallVector<float> values(value.getValues<float>());
  values.resize(panels * width, 0.0f);
  Value constant = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({panels, width}, value.getElementType()),
          ArrayRef<float>(values)));
  auto rebuilt = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, ValueRange{constant},
      ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                          AffineMap::getMultiDimIdentityMap(3, ctx)},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
  IRMapping mapping;
  generic.getRegion().cloneInto(&rebuilt.getRegion(), mapping);
  return rebuilt.getResult(0);
}

/// A matrix of at most this many bytes is read from L1 (32-48 KiB on the
/// CPUs here) whatever its layout: a product with more than one row reads
/// it as it is.
static constexpr int64_t kUnpackedBytes = 32 * 1024;

/// Whether `operand` of an elementwise consumer of a product `[M, N]`,
/// read through `map` over its loops (rows, columns), can be read on the
/// panels: every dimension a loop (the rows, or all N columns), none a
/// constant.
static bool panelOperand(OpOperand &operand, AffineMap map, int64_t columns) {
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!type || !type.hasStaticShape() || map.getNumDims() != 2 ||
      !map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return false;
  for (auto [position, result] : llvm::enumerate(map.getResults()))
    if (cast<AffineDimExpr>(result).getPosition() == 1 &&
        type.getDimSize(position) != columns)
      return false;
  return true;
}

/// `value`, read through `map` (a `panelOperand`), viewed as panels of
/// `width` columns, and the map that reads it on the panels' loops (rows,
/// panel, column in the panel).
static std::pair<Value, AffineMap> viewAsPanels(RewriterBase &rewriter,
                                                Location loc, Value value,
                                                AffineMap map, int64_t width) {
  MLIRContext *ctx = rewriter.getContext();
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> results;
  for (auto [position, result] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(position);
    int64_t first = shape.size();
    if (cast<AffineDimExpr>(result).getPosition() == 0) {
      shape.push_back(size);
      groups.push_back({first});
      results.push_back(getAffineDimExpr(0, ctx));
      continue;
    }
    shape.append({size / width, width});
    groups.push_back({first, first + 1});
    results.append({getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)});
  }
  auto panelMap = AffineMap::get(3, 0, results, ctx);
  if (shape.size() == static_cast<size_t>(type.getRank()))
    return {value, panelMap};
  Value view = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
      value, groups);
  return {view, panelMap};
}

bool mlir::tessel::isPanelledMatrixVector(linalg::LinalgOp op, int64_t lanes) {
  DenseElementsAttr value;
  if (!hasOnlyUnitRows(op) ||
      !matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !value.getElementType().isF32())
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.size() != 1)
    return false;
  return op.getStaticLoopRanges()[dims->n.front()] > 4 * lanes;
}

/// A product `[M, K] x [K, N]` with a constant matrix and more than one
/// column tile (T columns) runs on the matrix packed at compile time into
/// panels `[P][K][T]`: out `[M, P, T]`, whose first N columns are the
/// result (with no padding, the same buffer as `[M, N]`). Each tile then
/// streams one contiguous panel: the rows of a [K, N] matrix are N apart,
/// and a tile that reads them touches a new page per step, out of the
/// hardware prefetchers' reach (a 1000-class classifier's; ViT-B/32's
/// 50 x 768 x 3072 layers ran at a quarter of the FMA peak so).
/// A matrix-vector product (only unit rows) takes panels of 4 vectors
/// (`lanes` each), zero columns padding the last one, so that its tiles
/// carry 4 independent accumulators (1000 columns took 125 tiles of one
/// 8-lane chain); other products take `tileColumns`, the planned register
/// tile's width, when it divides N. The initialiser and, when no column is
/// padded, the elementwise consumer are rebuilt on the panels too. Returns
/// the packed product, or `op` when nothing changed.
linalg::LinalgOp mlir::tessel::packMatrixPanels(RewriterBase &rewriter,
                                                linalg::LinalgOp op,
                                                int64_t lanes,
                                                int64_t tileColumns) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](unsigned loops, ArrayRef<AffineExpr> results) {
    return AffineMap::get(loops, 0, results, ctx);
  };
  DenseElementsAttr value;
  if (!generic ||
      op.getIndexingMapsArray() !=
          SmallVector<AffineMap>{map(3, {d(0), d(2)}), map(3, {d(2), d(1)}),
                                 map(3, {d(0), d(1)})} ||
      !matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !value.getElementType().isF32())
    return op;
  bool matrixVector = hasOnlyUnitRows(op);
  int64_t width = matrixVector ? 4 * lanes : tileColumns;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  if (width <= 0 || columns <= width ||
      (!matrixVector &&
       (columns % width != 0 || rows * columns * 4 <= kUnpackedBytes)))
    return op;
  int64_t panels = llvm::divideCeil(columns, width);
  bool padded = panels * width != columns;
  // A consumer is rebuilt on the panels when no column is padded and each
  // operand it reads spans the columns or is broadcast along them (a
  // residual, a bias).
  linalg::GenericOp consumer = getProductKernel(op).epilogue;
  if (consumer &&
      (padded || !llvm::all_of(consumer->getOpOperands(), [&](OpOperand &o) {
         AffineMap map = consumer.getMatchingIndexingMap(&o);
         if (o.get() == op->getResult(0) || consumer.isDpsInit(&o))
           return map.isIdentity() &&
                  o.get().getType() == op->getResult(0).getType();
         return panelOperand(o, map, columns);
       })))
    return op;
  Value init = panelInit(rewriter, op.getDpsInits()[0], panels, width);
  if (!init)
    return op;
  SmallVector<float> source(value.getValues<float>());
  SmallVector<float> packed(panels * rows * width, 0.0f);
  for (int64_t k = 0; k < rows; ++k)
    for (int64_t n = 0; n < columns; ++n)
      packed[((n / width) * rows + k) * width + n % width] =
          source[k * columns + n];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value weights = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({panels, rows, width}, type.getElementType()),
          ArrayRef<float>(packed)));
  // Loops (m, panel, column in the panel, k).
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()},
      ValueRange{op.getDpsInputs()[0], weights}, ValueRange{init},
      ArrayRef<AffineMap>{map(4, {d(0), d(3)}), map(4, {d(1), d(3), d(2)}),
                          map(4, {d(0), d(1), d(2)})},
      ArrayRef<utils::IteratorType>{
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::parallel, utils::IteratorType::reduction});
  IRMapping mapping;
  generic.getRegion().cloneInto(&product.getRegion(), mapping);
  SmallVector<ReassociationIndices> panelsToRow = {{0}, {1, 2}};
  int64_t outRows = cast<RankedTensorType>(init.getType()).getDimSize(0);
  auto rowType =
      RankedTensorType::get({outRows, panels * width}, type.getElementType());
  Operation *oldInit = op.getDpsInits()[0].getDefiningOp();
  if (consumer) {
    // The consumer on the panels: its other operands (and its output)
    // viewed as panels, each read along the panels' two loops where it
    // read the columns.
    rewriter.setInsertionPoint(consumer);
    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : consumer->getOpOperands()) {
      AffineMap map = consumer.getMatchingIndexingMap(&operand);
      if (operand.get() == op->getResult(0)) {
        operands.push_back(product.getResult(0));
        maps.push_back(AffineMap::getMultiDimIdentityMap(3, ctx));
        continue;
      }
      auto [value, panelMap] =
          viewAsPanels(rewriter, loc, operand.get(), map, width);
      operands.push_back(value);
      maps.push_back(panelMap);
    }
    Value out = operands.pop_back_val();
    auto rebuilt = linalg::GenericOp::create(
        rewriter, consumer.getLoc(), TypeRange{init.getType()},
        ValueRange(operands), ValueRange{out}, maps,
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
    IRMapping consumerMapping;
    consumer.getRegion().cloneInto(&rebuilt.getRegion(), consumerMapping);
    Value row = tensor::CollapseShapeOp::create(
        rewriter, loc, rowType, rebuilt.getResult(0), panelsToRow);
    rewriter.replaceOp(consumer, row);
    rewriter.eraseOp(op);
  } else {
    Value row = tensor::CollapseShapeOp::create(
        rewriter, loc, rowType, product.getResult(0), panelsToRow);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (padded)
      row = tensor::ExtractSliceOp::create(
          rewriter, loc, resultType, row,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                                 rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(outRows),
                                 rewriter.getIndexAttr(columns)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, row);
  }
  if (oldInit && oldInit->use_empty())
    rewriter.eraseOp(oldInit);
  return cast<linalg::LinalgOp>(product.getOperation());
}
