//===- LoweringUtils.h - Helpers shared by the tessel lowerings -*- C++ -*-===//

#ifndef TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H
#define TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// Builds the body of a linalg.generic from its block arguments.
using BodyBuilder =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The map that reads `operand` (of rank <= `resultRank`) broadcast into a
/// result of shape `resultShape`: leading dimensions are dropped and size-1
/// dimensions that the result expands read index 0.
AffineMap getBroadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                          ArrayRef<int64_t> resultShape);

/// A parallel linalg.generic producing `resultType` from `inputs` broadcast
/// into it, one `body` per element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, BodyBuilder body);

/// `tensor.empty` of `type` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  TypedAttr value);

/// Moves the channel entry (position 1) of `nchw`, listed in channels-first
/// order, to the end when `channelsLast`: a channels-first op's indexing
/// map results for its channels-last form.
SmallVector<AffineExpr> inLayout(ArrayRef<AffineExpr> nchw, bool channelsLast);

/// Pads the spatial dimensions (all but the first two) of a channels-first
/// tensor with `value`, or (`channelsLast`) all but the first and the last.
/// `pads` holds all begins, then all ends ([top, left, bottom, right] in
/// 2-D). Returns `input` when all are zero.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> pads, TypedAttr value,
                 bool channelsLast = false);

/// A float attribute of `type` holding `value`.
TypedAttr getFloatAttr(Type type, double value);

/// The most negative finite value (or -inf) of a float type.
TypedAttr getLowestAttr(Type type);

/// Lowers an elementwise op, whatever its operand count, to one broadcasting
/// linalg.generic whose body is `fn(builder, loc, op, scalars)`.
template <typename OpTy> struct ElementwiseLowering : OpRewritePattern<OpTy> {
  using Fn = Value (*)(OpBuilder &, Location, OpTy, ValueRange);
  ElementwiseLowering(MLIRContext *ctx, Fn fn)
      : OpRewritePattern<OpTy>(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value result =
        buildElementwise(rewriter, op.getLoc(), type, op->getOperands(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return fn(b, loc, op, args);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
  Fn fn;
};

/// A scalar constant of `type` (float or integer) holding `value`.
Value buildScalar(OpBuilder &b, Location loc, Type type, double value);

/// Whether `type`, or the element type of the shaped `type`, is an unsigned
/// integer: lowered code computes on signless integers and picks the unsigned
/// arith op (divui, cmpi ult, uitofp...) from the original type.
bool isUnsignedInteger(Type type);

/// Converts scalar `x` from the element type `from` (which may be unsigned)
/// to the element type `to`, with ONNX Cast semantics: floats to integers
/// truncate towards zero, integers extend by their own signedness, anything
/// to i1 is `x != 0`, and i1 becomes 0 or 1.
Value convertScalar(OpBuilder &b, Location loc, Value x, Type from, Type to);

/// Whether `element` computes and sums in f32: f16 and bf16, whose
/// products, reductions, average pooling and elementwise math round once, to
/// the model's type, at the end.
bool sumsInF32(Type element);

/// Applies `fn` to `x` in f32 when `x` is f16 or bf16 (libm has no half
/// precision functions), in `x`'s type otherwise.
Value computeWide(OpBuilder &b, Location loc, Value x,
                  llvm::function_ref<Value(OpBuilder &, Location, Value)> fn);

/// Combines one element into an accumulator: `combine(b, loc, args, acc)`
/// where `args` are the generic's inputs at the current point.
using CombineBuilder =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange, Value)>;

/// Reduces `inputs` over `axes` (sorted, non-negative) with a
/// linalg.generic. The first input has the full shape; any others have that
/// shape without `axes` and are read broadcast along them. The result has the
/// first input's shape without `axes`, starts at `init` and folds each point
/// in with `combine`.
Value buildReduction(OpBuilder &b, Location loc, ValueRange inputs,
                     ArrayRef<int64_t> axes, TypedAttr init,
                     CombineBuilder combine);

/// The index (`i64`) of the extreme of `input` along `axis`, in the input
/// shape without `axis`: the largest with `max`, else the smallest; ties go
/// to the first index, or the last with `selectLast`.
Value buildArgReduction(OpBuilder &b, Location loc, Value input, int64_t axis,
                        bool max, bool selectLast);

/// Reshapes a reduced value (the full shape without `axes`) to `keptType`,
/// the full shape with `axes` of extent 1.
Value expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                        RankedTensorType keptType, ArrayRef<int64_t> axes);

/// Element-type generic arithmetic: float ops on floats, signed integer ops
/// on signless integers, unsigned ones on unsigned integers and on i1 (where
/// signed order is wrong).
Value createAdd(OpBuilder &b, Location loc, Value x, Value y);
Value createMul(OpBuilder &b, Location loc, Value x, Value y);
Value createMax(OpBuilder &b, Location loc, Value x, Value y);
Value createMin(OpBuilder &b, Location loc, Value x, Value y);

/// An index operand's element `raw` (any integer type) as `index`, negative
/// values counted from the end of `extent`, clamped into [0, extent - 1]: an
/// out-of-range index never reads or writes outside the tensor.
Value normalizeIndex(OpBuilder &b, Location loc, Value raw, int64_t extent);

/// The largest value (or +inf) of a float or signed integer type; with
/// `lowest`, the smallest (or -inf). For i1: 1 and 0.
TypedAttr getExtremeAttr(Type type, bool lowest);

/// Emits f64 arithmetic at `loc` (the bodies of the coordinate-computing
/// generics of Resize and GridSample).
struct F64Builder {
  OpBuilder &b;
  Location loc;
  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value floor(Value x) { return math::FloorOp::create(b, loc, x); }
  Value ceil(Value x) { return math::CeilOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  /// `x` clamped to [lo, hi]; NaN becomes `lo`.
  Value clamp(Value x, double lo, double hi) {
    Value low = arith::MaxNumFOp::create(b, loc, x, c(lo));
    return arith::MinNumFOp::create(b, loc, low, c(hi));
  }
  /// `x` rounded to f32 and back (for references that keep coordinates in
  /// f32).
  Value roundToF32(Value x) {
    Value narrow = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
    return arith::ExtFOp::create(b, loc, b.getF64Type(), narrow);
  }
  /// `x` truncated toward zero to an `index`.
  Value toIndex(Value x) {
    Value i = arith::FPToSIOp::create(b, loc, b.getI64Type(), x);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  }
  Value fromIndex(Value i) {
    Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
    return arith::SIToFPOp::create(b, loc, b.getF64Type(), wide);
  }
};

} // namespace mlir::tessel

#endif // TESSEL_LIB_CONVERSION_TESSELTOLINALG_LOWERINGUTILS_H
