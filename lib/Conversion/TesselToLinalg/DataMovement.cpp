//===- DataMovement.cpp - Constants, reshapes, transposes, concats --------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

struct ConstantLowering : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant is not typed");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// A pure collapse or expand of dimensions becomes the matching tensor op
/// (a view after bufferization); anything else a `tensor.reshape`.
struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (sourceType == resultType) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    if (std::optional<SmallVector<ReassociationIndices>> reassociation =
            getReassociationIndicesForReshape(sourceType, resultType)) {
      if (sourceType.getRank() > resultType.getRank())
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
            op, resultType, op.getInput(), *reassociation);
      else
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
            op, resultType, op.getInput(), *reassociation);
      return success();
    }
    // Shapes that differ in unit dimensions only (moved, added, removed):
    // a collapse to the common shape without them, then an expand.
    SmallVector<int64_t> common;
    for (int64_t extent : sourceType.getShape())
      if (extent != 1)
        common.push_back(extent);
    auto commonType =
        RankedTensorType::get(common, sourceType.getElementType());
    std::optional<SmallVector<ReassociationIndices>> down =
        getReassociationIndicesForReshape(sourceType, commonType);
    std::optional<SmallVector<ReassociationIndices>> up =
        getReassociationIndicesForReshape(commonType, resultType);
    if (sourceType.hasStaticShape() && resultType.hasStaticShape() &&
        !common.empty() && down && up) {
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, op.getLoc(), commonType, op.getInput(), *down);
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType,
                                                         collapsed, *up);
      return success();
    }
    auto shapeType =
        RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        DenseIntElementsAttr::get(shapeType, resultType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType,
                                                   op.getInput(), shape);
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value init =
        tensor::EmptyOp::create(rewriter, op.getLoc(), resultType.getShape(),
                                resultType.getElementType());
    // In a `layout` group (a transpose of elementwise ops), a generic: the
    // elementwise producers fuse into its loop nest (a named transpose
    // takes no producer).
    auto fused = op->getParentOfType<FusedOp>();
    if (fused && fused.getKind() == "layout") {
      int64_t rank = resultType.getRank();
      // result[i] = input[j] with perm[i] = j: the input is read at the
      // inverse permutation of the loop indices.
      SmallVector<AffineExpr> reads(rank);
      for (auto [i, j] : llvm::enumerate(op.getPerm()))
        reads[j] = rewriter.getAffineDimExpr(i);
      SmallVector<AffineMap> maps = {
          AffineMap::get(rank, 0, reads, rewriter.getContext()),
          rewriter.getMultiDimIdentityMap(rank)};
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      auto generic = linalg::GenericOp::create(
          rewriter, op.getLoc(), TypeRange{resultType}, ValueRange{op.getInput()},
          ValueRange{init}, maps, iterators,
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          });
      rewriter.replaceOp(op, generic->getResults());
      return success();
    }
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       op.getInput(), init,
                                                       op.getPerm())
                               ->getResult(0));
    return success();
  }
};

/// Concatenations of more inputs than this become one `tensor.concat`: the
/// chain of `tensor.insert_slice`s costs One-Shot Bufferize's analysis
/// (and empty-tensor elimination's) time that grows with the cube of its
/// length (mlir-opt on a chain of 50 inserts: 1 s, 100: 12 s, 200: 221 s;
/// a 2-layer GRU's 100-step outputs are such a chain), where
/// `tensor.concat` costs time linear in its inputs (0.04 s for 100). Both copy
/// an input that bufferization cannot write in place (a recurrent step's state,
/// read again by the next step, always is copied).
constexpr size_t kMaxInsertChain = 16;

/// Inserts each input at its offset along `axis` into an empty tensor.
struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank(), axis = op.getAxis();
    if (op.getInputs().size() > kMaxInsertChain) {
      rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
          op, resultType, static_cast<uint64_t>(axis), op.getInputs());
      return success();
    }
    Value result = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                           resultType.getElementType());
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
      for (int64_t extent : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(extent));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tessel::populateDataMovementToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ReshapeLowering, TransposeLowering,
               ConcatLowering>(patterns.getContext());
}
