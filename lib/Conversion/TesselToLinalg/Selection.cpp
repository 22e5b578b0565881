//===- Selection.cpp - cumsum and top_k to linalg -------------------------===//
//
// Ops whose result element depends on a whole axis in order. Each is a
// linalg.generic over the result's dimensions plus one reduction dimension
// that walks the axis; the body picks which positions of the walk count
// (those before the element for cumsum, the element of a given rank for
// top_k). That is quadratic in the axis extent, which is small where these
// ops appear (sequence positions, class scores), and stays in linalg. A
// cumsum whose axis is known only at run time walks it with an scf.for.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The map from (d0, ..., d{rank-1}, w) to the input position with the
/// `axis` coordinate replaced by the walk `w`.
AffineMap walkMap(MLIRContext *ctx, int64_t rank, int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  return AffineMap::get(rank + 1, 0, exprs, ctx);
}

/// The map from (d0, ..., d{rank-1}, w) to (d0, ..., d{rank-1}).
AffineMap pointMap(MLIRContext *ctx, int64_t rank) {
  return AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank);
}

SmallVector<utils::IteratorType> walkIterators(int64_t rank) {
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return iterators;
}

/// Whether walk position `walk` counts towards the sum at position `at`.
Value countsTowards(OpBuilder &b, Location loc, CumSumOp op, Value walk,
                    Value at) {
  arith::CmpIPredicate predicate =
      op.getReverse() ? (op.getExclusive() ? arith::CmpIPredicate::ugt
                                           : arith::CmpIPredicate::uge)
                      : (op.getExclusive() ? arith::CmpIPredicate::ult
                                           : arith::CmpIPredicate::ule);
  return arith::CmpIOp::create(b, loc, predicate, walk, at);
}

/// result[p] = sum of input[p with axis = w] over the walk positions w that
/// count towards p[axis]. A constant axis is a reduction dimension of the
/// generic; an axis known only at run time is chosen per element, and an
/// scf.for walks it.
struct CumSumLowering : OpRewritePattern<CumSumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CumSumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    MLIRContext *ctx = op.getContext();
    Value zero = buildFilled(rewriter, loc, type,
                             rewriter.getZeroAttr(type.getElementType()));
    if (std::optional<int64_t> axis = op.getConstantAxis()) {
      auto generic = linalg::GenericOp::create(
          rewriter, loc, type, op.getInput(), zero,
          {walkMap(ctx, rank, *axis), pointMap(ctx, rank)},
          walkIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
            Value at = linalg::IndexOp::create(b, l, *axis);
            Value walk = linalg::IndexOp::create(b, l, rank);
            Value counts = countsTowards(b, l, op, walk, at);
            Value sum = createAdd(b, l, args[0], args[1]);
            linalg::YieldOp::create(
                b, l, ValueRange{arith::SelectOp::create(b, l, counts, sum,
                                                         args[1])});
          });
      rewriter.replaceOp(op, generic.getResult(0));
      return success();
    }
    Value input = op.getInput(), axisValue = op.getAxis();
    auto axisType = cast<RankedTensorType>(axisValue.getType());
    Value result = buildElementwise(
        rewriter, loc, type, zero,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          auto index = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          SmallVector<Value> at(axisType.getRank(), index(0));
          Value raw = tensor::ExtractOp::create(b, l, axisValue, at);
          Value axis = normalizeIndex(b, l, raw, rank);
          SmallVector<Value> point, isAxis;
          Value extent = index(type.getDimSize(0));
          Value position = linalg::IndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            point.push_back(linalg::IndexOp::create(b, l, d));
            isAxis.push_back(arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq, axis, index(d)));
            extent = arith::SelectOp::create(b, l, isAxis[d],
                                             index(type.getDimSize(d)), extent);
            position =
                arith::SelectOp::create(b, l, isAxis[d], point[d], position);
          }
          auto loop = scf::ForOp::create(
              b, l, index(0), extent, index(1), ValueRange{args[0]},
              [&](OpBuilder &lb, Location ll, Value walk, ValueRange acc) {
                SmallVector<Value> coords;
                for (int64_t d = 0; d < rank; ++d)
                  coords.push_back(arith::SelectOp::create(lb, ll, isAxis[d],
                                                           walk, point[d]));
                Value x = tensor::ExtractOp::create(lb, ll, input, coords);
                Value sum = createAdd(lb, ll, x, acc[0]);
                Value counts = countsTowards(lb, ll, op, walk, position);
                scf::YieldOp::create(
                    lb, ll,
                    ValueRange{arith::SelectOp::create(lb, ll, counts, sum,
                                                       acc[0])});
              });
          return loop.getResult(0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Whether `x` is NaN (false for integers).
Value isNaN(OpBuilder &b, Location loc, Value x) {
  if (!isa<FloatType>(x.getType()))
    return arith::ConstantIntOp::create(b, loc, 0, 1);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}

/// Whether `x` sorts strictly before `y`: x > y with `largest` (x < y
/// otherwise), NaN counting as larger than every number.
Value sortsBefore(OpBuilder &b, Location loc, Value x, Value y, bool largest,
                  bool isUnsigned) {
  if (!largest)
    std::swap(x, y);
  // Now: is x > y?
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc,
                                 isUnsigned ? arith::CmpIPredicate::ugt
                                            : arith::CmpIPredicate::sgt,
                                 x, y);
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  Value yIsNumber = arith::XOrIOp::create(
      b, loc, isNaN(b, loc, y), arith::ConstantIntOp::create(b, loc, 1, 1));
  Value nanOverNumber =
      arith::AndIOp::create(b, loc, isNaN(b, loc, x), yIsNumber);
  return arith::OrIOp::create(b, loc, greater, nanOverNumber);
}

/// Whether `x` and `y` are equal in the sort order (two NaNs are).
Value sortsEqual(OpBuilder &b, Location loc, Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  Value equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  Value bothNaN = arith::AndIOp::create(b, loc, isNaN(b, loc, x),
                                        isNaN(b, loc, y));
  return arith::OrIOp::create(b, loc, equal, bothNaN);
}

/// Two generics. The first computes each element's rank along the axis: how
/// many elements sort before it (ties broken by position), a permutation of
/// 0..n-1. The second writes the element of rank j, and its position, to
/// result position j, for j < k.
struct TopKLowering : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t rank = inputType.getRank(), axis = op.getAxis();
    bool largest = op.getLargest();
    bool isUnsigned = isUnsignedInteger(inputType);
    Type i64 = rewriter.getI64Type();

    auto ranksType = RankedTensorType::get(inputType.getShape(), i64);
    Value zeroRanks =
        buildFilled(rewriter, loc, ranksType, rewriter.getI64IntegerAttr(0));
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, ranksType, ValueRange{input, input}, zeroRanks,
            {pointMap(ctx, rank), walkMap(ctx, rank, axis),
             pointMap(ctx, rank)},
            walkIterators(rank),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value self = args[0], other = args[1];
              Value at = linalg::IndexOp::create(b, l, axis);
              Value walk = linalg::IndexOp::create(b, l, rank);
              Value earlier = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::ult, walk, at);
              Value tieBefore = arith::AndIOp::create(
                  b, l, sortsEqual(b, l, other, self), earlier);
              Value before = arith::OrIOp::create(
                  b, l, sortsBefore(b, l, other, self, largest, isUnsigned),
                  tieBefore);
              Value one = arith::ExtUIOp::create(b, l, i64, before);
              linalg::YieldOp::create(
                  b, l, ValueRange{arith::AddIOp::create(b, l, args[2], one)});
            })
            .getResult(0);

    Value zeroValues = buildFilled(
        rewriter, loc, valuesType,
        rewriter.getZeroAttr(valuesType.getElementType()));
    Value zeroIndices =
        buildFilled(rewriter, loc, indicesType, rewriter.getI64IntegerAttr(0));
    auto select = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valuesType, indicesType},
        ValueRange{input, ranks}, ValueRange{zeroValues, zeroIndices},
        {walkMap(ctx, rank, axis), walkMap(ctx, rank, axis),
         pointMap(ctx, rank), pointMap(ctx, rank)},
        walkIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value slot = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value walk = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, rank));
          Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                              args[1], slot);
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::SelectOp::create(b, l, match, args[0], args[2]),
                  arith::SelectOp::create(b, l, match, walk, args[3])});
        });
    rewriter.replaceOp(op, select.getResults());
    return success();
  }
};

} // namespace

void mlir::tessel::populateSelectionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<CumSumLowering, TopKLowering>(patterns.getContext());
}
