//===- LoweringUtils.cpp - Helpers shared by the tessel lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::tessel;

AffineMap mlir::tessel::getBroadcastMap(MLIRContext *ctx,
                                        ArrayRef<int64_t> operandShape,
                                        ArrayRef<int64_t> resultShape) {
  size_t offset = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, extent] : llvm::enumerate(operandShape)) {
    if (extent == 1 && resultShape[i + offset] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

Value mlir::tessel::buildElementwise(OpBuilder &b, Location loc,
                                     RankedTensorType resultType,
                                     ValueRange inputs, BodyBuilder body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        getBroadcastMap(ctx, cast<RankedTensorType>(input.getType()).getShape(),
                        resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

Value mlir::tessel::buildFilled(OpBuilder &b, Location loc,
                                RankedTensorType type, TypedAttr value) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

SmallVector<AffineExpr> mlir::tessel::inLayout(ArrayRef<AffineExpr> nchw,
                                               bool channelsLast) {
  SmallVector<AffineExpr> result(nchw);
  if (channelsLast)
    std::rotate(result.begin() + 1, result.begin() + 2, result.end());
  return result;
}

Value mlir::tessel::padSpatial(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> pads, TypedAttr value,
                               bool channelsLast) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), k = rank - 2;
  assert(static_cast<int64_t>(pads.size()) == 2 * k && "pads per spatial dim");
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowOfr, highOfr;
  // Spatial dimension j is tensor dimension first + j.
  int64_t first = channelsLast ? 1 : 2;
  for (int64_t i = 0; i < rank; ++i) {
    bool spatial = i >= first && i < first + k;
    int64_t low = spatial ? pads[i - first] : 0,
            high = spatial ? pads[k + i - first] : 0;
    shape[i] += low + high;
    lowOfr.push_back(b.getIndexAttr(low));
    highOfr.push_back(b.getIndexAttr(high));
  }
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return tensor::PadOp::create(b, loc, padded, input, lowOfr, highOfr, scalar);
}

TypedAttr mlir::tessel::getFloatAttr(Type type, double value) {
  return FloatAttr::get(type, value);
}

TypedAttr mlir::tessel::getLowestAttr(Type type) {
  auto floatType = cast<FloatType>(type);
  return FloatAttr::get(
      type, llvm::APFloat::getInf(floatType.getFloatSemantics(), true));
}

Value mlir::tessel::buildScalar(OpBuilder &b, Location loc, Type type,
                                double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

bool mlir::tessel::sumsInF32(Type element) {
  return element.isF16() || element.isBF16();
}

Value mlir::tessel::computeWide(
    OpBuilder &b, Location loc, Value x,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Type type = x.getType();
  if (!sumsInF32(type))
    return fn(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, fn(b, loc, wide));
}

bool mlir::tessel::isUnsignedInteger(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isUnsigned();
}

/// Rounds f32 `x` to bf16, to nearest even; NaN stays a (quiet) NaN.
static Value truncToBF16(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type(), i16 = b.getIntegerType(16);
  auto c32 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c32(16)), c32(1));
  Value bias = arith::AddIOp::create(b, loc, c32(0x7FFF), lsb);
  Value rounded = arith::AddIOp::create(b, loc, bits, bias);
  Value high = arith::TruncIOp::create(
      b, loc, i16, arith::ShRUIOp::create(b, loc, rounded, c32(16)));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value nan = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i16, 0x7FC0));
  Value result = arith::SelectOp::create(b, loc, isNaN, nan, high);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), result);
}

Value mlir::tessel::convertScalar(OpBuilder &b, Location loc, Value x,
                                  Type from, Type to) {
  auto toSignless = [&](Type t) -> Type {
    if (auto intType = dyn_cast<IntegerType>(t))
      return b.getIntegerType(intType.getWidth());
    return t;
  };
  Type target = toSignless(to);
  Type source = x.getType();
  if (source == target)
    return x;
  // Everything reaches bf16 from f32, rounded by integer code: LLVM would
  // call __truncsfbf2 or __truncdfbf2, which libgcc may lack, and the arith
  // canonicalizer folds truncf(sitofp) into a direct sitofp to bf16.
  // (f64 -> bf16 thus rounds twice.)
  if (target.isBF16()) {
    Value wide =
        source.isF32() ? x : convertScalar(b, loc, x, from, b.getF32Type());
    return truncToBF16(b, loc, wide);
  }
  auto fromFloat = dyn_cast<FloatType>(source);
  auto toFloat = dyn_cast<FloatType>(target);
  // Bool is 0 or 1 whatever the other side: zero-extend, unsigned-convert.
  bool fromBool = source.isInteger(1);
  bool fromUnsigned = fromBool || isUnsignedInteger(from);
  if (target.isInteger(1)) {
    Value zero = buildScalar(b, loc, source, 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, target, x);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, target, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, target, wide);
  }
  if (fromFloat) {
    if (isUnsignedInteger(to))
      return arith::FPToUIOp::create(b, loc, target, x);
    return arith::FPToSIOp::create(b, loc, target, x);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, target, x);
    return arith::SIToFPOp::create(b, loc, target, x);
  }
  unsigned fromWidth = source.getIntOrFloatBitWidth();
  unsigned toWidth = target.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, target, x);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, x);
  return arith::ExtSIOp::create(b, loc, target, x);
}

Value mlir::tessel::buildReduction(OpBuilder &b, Location loc,
                                   ValueRange inputs, ArrayRef<int64_t> axes,
                                   TypedAttr init, CombineBuilder combine) {
  auto type = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> reducedShape;
  SmallVector<AffineExpr> kept;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      reducedShape.push_back(type.getDimSize(d));
      kept.push_back(b.getAffineDimExpr(d));
    }
  }
  auto reducedType = RankedTensorType::get(reducedShape, init.getType());
  AffineMap dropAxes = AffineMap::get(rank, 0, kept, b.getContext());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  maps.append(inputs.size() - 1, dropAxes);
  maps.push_back(dropAxes);
  Value filled = buildFilled(b, loc, reducedType, init);
  return linalg::GenericOp::create(
             b, loc, reducedType, inputs, filled, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc, combine(nb, nloc, args.drop_back(), args.back()));
             })
      .getResult(0);
}

Value mlir::tessel::buildArgReduction(OpBuilder &b, Location loc, Value input,
                                      int64_t axis, bool max, bool selectLast) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> reducedShape(type.getShape());
  reducedShape.erase(reducedShape.begin() + axis);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap dropAxis = identity.dropResult(axis);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  Value values =
      buildFilled(b, loc, RankedTensorType::get(reducedShape, element),
                  getExtremeAttr(element, /*lowest=*/max));
  Type i64 = b.getI64Type();
  Value indices = buildFilled(b, loc, RankedTensorType::get(reducedShape, i64),
                              b.getI64IntegerAttr(0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{values.getType(), indices.getType()}, input,
      ValueRange{values, indices},
      ArrayRef<AffineMap>{identity, dropAxis, dropAxis}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], best = args[1], bestIndex = args[2];
        Value better;
        if (isa<FloatType>(element)) {
          auto predicate = max ? (selectLast ? arith::CmpFPredicate::OGE
                                             : arith::CmpFPredicate::OGT)
                               : (selectLast ? arith::CmpFPredicate::OLE
                                             : arith::CmpFPredicate::OLT);
          better = arith::CmpFOp::create(nb, l, predicate, x, best);
        } else {
          auto predicate = max ? (selectLast ? arith::CmpIPredicate::sge
                                             : arith::CmpIPredicate::sgt)
                               : (selectLast ? arith::CmpIPredicate::sle
                                             : arith::CmpIPredicate::slt);
          better = arith::CmpIOp::create(nb, l, predicate, x, best);
        }
        Value index = arith::IndexCastOp::create(
            nb, l, i64, linalg::IndexOp::create(nb, l, axis));
        Value newBest = arith::SelectOp::create(nb, l, better, x, best);
        Value newIndex =
            arith::SelectOp::create(nb, l, better, index, bestIndex);
        linalg::YieldOp::create(nb, l, ValueRange{newBest, newIndex});
      });
  return generic.getResult(1);
}

Value mlir::tessel::expandReducedDims(OpBuilder &b, Location loc, Value reduced,
                                      RankedTensorType keptType,
                                      ArrayRef<int64_t> axes) {
  if (reduced.getType() == keptType)
    return reduced;
  // Each reduced (extent-1) dimension joins the group of the next kept
  // dimension; trailing ones join the last group.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < keptType.getRank(); ++d) {
    pending.push_back(d);
    if (!llvm::is_contained(axes, d)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return tensor::ExpandShapeOp::create(b, loc, keptType, reduced, groups);
}

Value mlir::tessel::createAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value mlir::tessel::createMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value mlir::tessel::createMax(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1) || isUnsignedInteger(x.getType()))
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value mlir::tessel::createMin(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (x.getType().isInteger(1) || isUnsignedInteger(x.getType()))
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

TypedAttr mlir::tessel::getExtremeAttr(Type type, bool lowest) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(
        type, llvm::APFloat::getInf(floatType.getFloatSemantics(), lowest));
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(type, lowest ? 0 : 1);
  return IntegerAttr::get(type, lowest ? llvm::APInt::getSignedMinValue(width)
                                       : llvm::APInt::getSignedMaxValue(width));
}

Value mlir::tessel::normalizeIndex(OpBuilder &b, Location loc, Value raw,
                                   int64_t extent) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = arith::AddIOp::create(
      b, loc, i, arith::ConstantIndexOp::create(b, loc, extent));
  i = arith::SelectOp::create(b, loc, isNegative, wrapped, i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(
      b, loc, i, arith::ConstantIndexOp::create(b, loc, extent - 1));
}
