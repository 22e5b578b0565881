//===- PackMatrixPanels.cpp - Matrix-vector products on packed panels -----===//
//
// A matrix-vector product with a constant matrix runs on the matrix packed
// at compile time into panels of one register tile's columns, each
// streamed contiguously by its tile.
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

/// The initialiser of a matrix-vector product `[1, N]` rebuilt on its
/// panels `[1, P, T]` (N padded to P * T columns): a fill, or a broadcast
/// of a constant (the bias) padded with zeros; null when `init` is
/// neither.
static Value panelInit(RewriterBase &rewriter, Value init, int64_t panels,
                       int64_t width) {
  Operation *producer = init.getDefiningOp();
  auto type = cast<RankedTensorType>(init.getType());
  int64_t columns = type.getDimSize(1);
  if (!producer || !producer->hasOneUse())
    return Value();
  Location loc = producer->getLoc();
  auto emptyPanels = [&] {
    rewriter.setInsertionPoint(producer);
    return tensor::EmptyOp::create(rewriter, loc, {1, panels, width},
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
    return Value();
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

/// A matrix-vector product `[1, K] x [K, N]` with a constant matrix and
/// more than one column tile of 4 vectors (T columns) runs on the matrix
/// packed at compile time into panels `[P][K][T]`, zero columns padding
/// the last one: out `[1, P, T]`, whose first N columns are the result.
/// Each tile then streams one contiguous panel (the rows of a [K, N]
/// matrix are N apart: a 1000-class classifier's tiles touched a new page
/// per step, out of the hardware prefetchers' reach), and carries 4
/// independent accumulators (1000 columns took 125 tiles of one 8-lane
/// chain). Its initialiser and, when no column is padded, its elementwise
/// consumer are rebuilt on the panels too. Returns the packed product, or
/// `op` when nothing changed.
linalg::LinalgOp mlir::tessel::packMatrixPanels(RewriterBase &rewriter,
                                                linalg::LinalgOp op,
                                                int64_t lanes) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto map = [&](unsigned loops, ArrayRef<AffineExpr> results) {
    return AffineMap::get(loops, 0, results, ctx);
  };
  DenseElementsAttr value;
  if (!generic || !hasOnlyUnitRows(op) ||
      op.getIndexingMapsArray() !=
          SmallVector<AffineMap>{map(3, {d(0), d(2)}), map(3, {d(2), d(1)}),
                                 map(3, {d(0), d(1)})} ||
      !matchPattern(op.getDpsInputs()[1], m_Constant(&value)) ||
      !value.getElementType().isF32())
    return op;
  int64_t width = 4 * lanes;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  if (columns <= width)
    return op;
  int64_t panels = llvm::divideCeil(columns, width);
  bool padded = panels * width != columns;
  // A consumer is rebuilt on the panels when every operand it reads is a
  // [1, N] tensor read as it is (a residual, not a broadcast bias).
  linalg::GenericOp consumer = getProductKernel(op).epilogue;
  if (consumer &&
      (padded || !llvm::all_of(consumer->getOpOperands(), [&](OpOperand &o) {
         return o.get().getType() == op->getResult(0).getType() &&
                consumer.getMatchingIndexingMap(&o).isIdentity();
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
  auto rowType =
      RankedTensorType::get({1, panels * width}, type.getElementType());
  Operation *oldInit = op.getDpsInits()[0].getDefiningOp();
  if (consumer) {
    // The consumer on the panels: its other operands (and its output)
    // viewed as [1, P, T].
    rewriter.setInsertionPoint(consumer);
    SmallVector<Value> inputs;
    for (Value input : consumer.getDpsInputs())
      inputs.push_back(input == op->getResult(0)
                           ? product.getResult(0)
                           : tensor::ExpandShapeOp::create(rewriter, loc,
                                                           init.getType(),
                                                           input, panelsToRow)
                                 .getResult());
    Value out = tensor::ExpandShapeOp::create(
        rewriter, loc, init.getType(), consumer.getDpsInits()[0], panelsToRow);
    auto rebuilt = linalg::GenericOp::create(
        rewriter, consumer.getLoc(), TypeRange{init.getType()}, inputs,
        ValueRange{out},
        SmallVector<AffineMap>(inputs.size() + 1,
                               AffineMap::getMultiDimIdentityMap(3, ctx)),
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
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(columns)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, row);
  }
  rewriter.eraseOp(oldInit);
  return cast<linalg::LinalgOp>(product.getOperation());
}
