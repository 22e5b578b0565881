//===- Indexing.cpp - Gathers, slices, pads, tiles to linalg --------------===//
//
// Ops whose result element reads an input element at a computed position.
// Each becomes a linalg.generic over the result whose body computes the
// position (from linalg.index and, for gathers, the index operand) and reads
// it with tensor.extract; slices with positive steps become views.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A parallel generic producing `type`, reading `inputs` through `maps`, whose
/// body returns the element from `body(builder, loc, inputElements)`.
Value buildIndexed(OpBuilder &b, Location loc, RankedTensorType type,
                   ValueRange inputs, ArrayRef<AffineMap> maps,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, init, allMaps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t rank) {
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(linalg::IndexOp::create(b, loc, d));
  return indices;
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    int64_t idxRank =
        cast<RankedTensorType>(op.getIndices().getType()).getRank();
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t d = 0; d < idxRank; ++d)
      idxExprs.push_back(getAffineDimExpr(axis + d, ctx));
    AffineMap idxMap = AffineMap::get(type.getRank(), 0, idxExprs, ctx);
    Value input = op.getInput();
    Value result = buildIndexed(
        rewriter, op.getLoc(), type, op.getIndices(), idxMap,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> loops = loopIndices(b, loc, type.getRank());
          SmallVector<Value> coords(loops.begin(), loops.begin() + axis);
          coords.push_back(
              normalizeIndex(b, loc, args[0], inputType.getDimSize(axis)));
          coords.append(loops.begin() + axis + idxRank, loops.end());
          return tensor::ExtractOp::create(b, loc, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherElementsLowering : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    Value input = op.getInput();
    Value result = buildIndexed(
        rewriter, op.getLoc(), type, op.getIndices(),
        rewriter.getMultiDimIdentityMap(type.getRank()),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> coords = loopIndices(b, loc, type.getRank());
          coords[axis] =
              normalizeIndex(b, loc, args[0], inputType.getDimSize(axis));
          return tensor::ExtractOp::create(b, loc, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Positive steps: a strided view. Otherwise each element reads
/// input[start + i * step].
struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, op.getInput(), ValueRange{}, ValueRange{}, ValueRange{},
          starts, type.getShape(), steps);
      return success();
    }
    Value input = op.getInput();
    Value result = buildIndexed(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          SmallVector<Value> coords = loopIndices(b, loc, type.getRank());
          for (auto [d, c] : llvm::enumerate(coords)) {
            Value scaled = arith::MulIOp::create(
                b, loc, c, indexConstant(b, loc, steps[d]));
            c = arith::AddIOp::create(b, loc, scaled,
                                      indexConstant(b, loc, starts[d]));
          }
          return tensor::ExtractOp::create(b, loc, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToLowering : OpRewritePattern<BroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(),
                             cast<RankedTensorType>(op.getType()),
                             op.getInput(),
                             [](OpBuilder &, Location, ValueRange args) {
                               return args[0];
                             }));
    return success();
  }
};

/// Tiling reads input[i mod extent] in each dimension.
struct TileLowering : OpRewritePattern<TileOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TileOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    if (type.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type.getShape(),
                                                   type.getElementType());
      return success();
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d)
      exprs.push_back(getAffineDimExpr(d, op.getContext()) %
                      inputType.getDimSize(d));
    AffineMap map = AffineMap::get(type.getRank(), 0, exprs, op.getContext());
    rewriter.replaceOp(op, buildIndexed(rewriter, op.getLoc(), type,
                                        op.getInput(), map,
                                        [](OpBuilder &, Location,
                                           ValueRange args) { return args[0]; }));
    return success();
  }
};

/// Constant padding is tensor.pad; reflect and edge read a mirrored or
/// clamped position.
struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (op.getMode() == PadMode::Constant) {
      Type element = type.getElementType();
      TypedAttr value;
      if (isa<FloatType>(element))
        value = rewriter.getFloatAttr(element, op.getValue().convertToDouble());
      else
        value = rewriter.getIntegerAttr(
            element, static_cast<int64_t>(op.getValue().convertToDouble()));
      SmallVector<OpFoldResult> low, high;
      for (int64_t d = 0; d < rank; ++d) {
        low.push_back(rewriter.getIndexAttr(pads[d]));
        high.push_back(rewriter.getIndexAttr(pads[rank + d]));
      }
      Value scalar = arith::ConstantOp::create(rewriter, loc, value);
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, op.getInput(), low,
                                                 high, scalar);
      return success();
    }
    bool reflect = op.getMode() == PadMode::Reflect;
    Value input = op.getInput();
    Value result = buildIndexed(
        rewriter, loc, type, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> coords = loopIndices(b, l, rank);
          for (auto [d, c] : llvm::enumerate(coords)) {
            int64_t extent = inputType.getDimSize(d);
            Value zero = indexConstant(b, l, 0);
            Value last = indexConstant(b, l, extent - 1);
            Value j = arith::SubIOp::create(b, l, c,
                                            indexConstant(b, l, pads[d]));
            if (reflect) {
              // j < 0 -> -j; j > last -> 2 * last - j.
              Value negated = arith::SubIOp::create(b, l, zero, j);
              j = arith::MaxSIOp::create(b, l, j, negated);
              Value mirrored = arith::SubIOp::create(
                  b, l, indexConstant(b, l, 2 * (extent - 1)), j);
              j = arith::MinSIOp::create(b, l, j, mirrored);
            } else {
              j = arith::MaxSIOp::create(b, l, j, zero);
              j = arith::MinSIOp::create(b, l, j, last);
            }
            c = j;
          }
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Keeps x[..., i, j] where j - i >= k (upper) or j - i <= k (lower).
struct TriluLowering : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    Value k = op.getK();
    bool upper = op.getUpper();
    Value result = buildElementwise(
        rewriter, loc, type, op.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value diagonal = arith::SubIOp::create(b, l, j, i);
          Value offset = indexConstant(b, l, 0);
          if (k) {
            auto kType = cast<RankedTensorType>(k.getType());
            SmallVector<Value> at(kType.getRank(), indexConstant(b, l, 0));
            Value raw = tensor::ExtractOp::create(b, l, k, at);
            offset = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
          }
          Value keep = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diagonal, offset);
          Value zero = arith::ConstantOp::create(
              b, l, b.getZeroAttr(args[0].getType()));
          return arith::SelectOp::create(b, l, keep, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// result[o] = input[o[:b], indices[o[:r-1], 0..m-1], o[r-1:]] where r is
/// the indices' rank, b the batch dims and m the tuple length.
struct GatherNDLowering : OpRewritePattern<GatherNDOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherNDOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t batch = op.getBatchDims();
    int64_t tuples = indicesType.getRank() - 1;
    int64_t m = indicesType.getShape().back();
    Value input = op.getInput(), indices = op.getIndices();
    Value result = buildIndexed(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          SmallVector<Value> loops = loopIndices(b, loc, type.getRank());
          SmallVector<Value> coords(loops.begin(), loops.begin() + batch);
          SmallVector<Value> tuple(loops.begin(), loops.begin() + tuples);
          tuple.push_back(Value());
          for (int64_t j = 0; j < m; ++j) {
            tuple.back() = indexConstant(b, loc, j);
            Value raw = tensor::ExtractOp::create(b, loc, indices, tuple);
            coords.push_back(
                normalizeIndex(b, loc, raw, inputType.getDimSize(batch + j)));
          }
          coords.append(loops.begin() + tuples, loops.end());
          return tensor::ExtractOp::create(b, loc, input, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// result[p] = index(p without axis) == p[axis] ? on : off, the index
/// converted to i64 (truncating floats) and wrapped once when negative.
struct OneHotLowering : OpRewritePattern<OneHotOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OneHotOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type indexElement =
        cast<RankedTensorType>(op.getIndices().getType()).getElementType();
    int64_t axis = op.getAxis(), depth = op.getDepth();
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis)
        exprs.push_back(getAffineDimExpr(d, ctx));
    AffineMap map = AffineMap::get(type.getRank(), 0, exprs, ctx);
    Value values = op.getValues();
    Value result = buildIndexed(
        rewriter, op.getLoc(), type, op.getIndices(), map,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Type i64 = b.getI64Type();
          Value index = convertScalar(b, loc, args[0], indexElement, i64);
          Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
          Value negative = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, index, zero);
          Value wrapped = arith::AddIOp::create(
              b, loc, index, arith::ConstantIntOp::create(b, loc, i64, depth));
          index = arith::SelectOp::create(b, loc, negative, wrapped, index);
          Value here = arith::IndexCastOp::create(
              b, loc, i64, linalg::IndexOp::create(b, loc, axis));
          Value hot = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            index, here);
          Value off = tensor::ExtractOp::create(
              b, loc, values, ValueRange{indexConstant(b, loc, 0)});
          Value on = tensor::ExtractOp::create(
              b, loc, values, ValueRange{indexConstant(b, loc, 1)});
          return arith::SelectOp::create(b, loc, hot, on, off);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tessel::populateIndexingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GatherLowering, GatherElementsLowering, SliceLowering,
               BroadcastToLowering, TileLowering, PadLowering, TriluLowering,
               GatherNDLowering, OneHotLowering>(
      patterns.getContext());
}
