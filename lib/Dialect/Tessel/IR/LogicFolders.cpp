//===- LogicFolders.cpp - Folding comparisons and where -------------------===//
//
// Exporters build shapes with comparisons and selects too: torch's
// `expand(n, -1, -1)` becomes Where(Equal(ConstantOfShape * -1, -1), ...),
// whose result feeds Expand's shape. These fold such small constants (and a
// where whose condition is a constant splat), so that the shape is a
// constant at import.
//
//===----------------------------------------------------------------------===//

#include "FoldUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using tessel::detail::broadcastElement;
using tessel::detail::forEachIndex;
using tessel::detail::getFoldable;
using tessel::detail::kMaxFoldElements;

namespace {

/// How an integer or a float pair compares: signed or unsigned for integers
/// (from the element type), ordered for floats (NaN compares false).
using IntCompare = bool (*)(const APInt &, const APInt &, bool isUnsigned);
using FloatCompare = bool (*)(APFloat::cmpResult);

OpFoldResult foldCompare(Attribute lhsAttr, Attribute rhsAttr, Type resultType,
                         IntCompare intCompare, FloatCompare floatCompare) {
  DenseElementsAttr lhs = getFoldable(lhsAttr), rhs = getFoldable(rhsAttr);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!lhs || !rhs || !type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldElements ||
      lhs.getElementType() != rhs.getElementType())
    return {};
  Type element = lhs.getElementType();
  SmallVector<bool> result(type.getNumElements());
  if (auto integer = dyn_cast<IntegerType>(element)) {
    bool isUnsigned = integer.isUnsigned();
    SmallVector<APInt> a(lhs.getValues<APInt>()), b(rhs.getValues<APInt>());
    forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
      result[n] = intCompare(broadcastElement<APInt>(lhs, a, idx),
                             broadcastElement<APInt>(rhs, b, idx), isUnsigned);
    });
  } else if (isa<FloatType>(element)) {
    SmallVector<APFloat> a(lhs.getValues<APFloat>()),
        b(rhs.getValues<APFloat>());
    forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
      result[n] = floatCompare(broadcastElement<APFloat>(lhs, a, idx)
                                   .compare(broadcastElement<APFloat>(rhs, b, idx)));
    });
  } else {
    return {};
  }
  return DenseElementsAttr::get(type, ArrayRef<bool>(result));
}

} // namespace

OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APInt &a, const APInt &b, bool) { return a == b; },
      [](APFloat::cmpResult r) { return r == APFloat::cmpEqual; });
}

OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldCompare(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APInt &a, const APInt &b, bool u) {
        return u ? a.ult(b) : a.slt(b);
      },
      [](APFloat::cmpResult r) { return r == APFloat::cmpLessThan; });
}

OpFoldResult LessOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APInt &a, const APInt &b, bool u) {
        return u ? a.ule(b) : a.sle(b);
      },
      [](APFloat::cmpResult r) {
        return r == APFloat::cmpLessThan || r == APFloat::cmpEqual;
      });
}

OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldCompare(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APInt &a, const APInt &b, bool u) {
        return u ? a.ugt(b) : a.sgt(b);
      },
      [](APFloat::cmpResult r) { return r == APFloat::cmpGreaterThan; });
}

OpFoldResult GreaterOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldCompare(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APInt &a, const APInt &b, bool u) {
        return u ? a.uge(b) : a.sge(b);
      },
      [](APFloat::cmpResult r) {
        return r == APFloat::cmpGreaterThan || r == APFloat::cmpEqual;
      });
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  DenseElementsAttr condition = getFoldable(adaptor.getCondition());
  if (!type || !condition)
    return {};
  // A constant condition that picks one side everywhere: that side, when
  // broadcasting does not change its type.
  if (condition.isSplat()) {
    Value picked = condition.getSplatValue<bool>() ? getLhs() : getRhs();
    if (picked.getType() == type)
      return picked;
  }
  DenseElementsAttr lhs = getFoldable(adaptor.getLhs()),
                    rhs = getFoldable(adaptor.getRhs());
  if (!lhs || !rhs || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldElements ||
      lhs.getElementType() != type.getElementType() ||
      rhs.getElementType() != type.getElementType())
    return {};
  SmallVector<bool> c(condition.getValues<bool>());
  SmallVector<Attribute> a(lhs.getValues<Attribute>()),
      b(rhs.getValues<Attribute>()), result(type.getNumElements());
  forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
    bool pick = broadcastElement<bool>(condition, c, idx);
    result[n] = pick ? broadcastElement<Attribute>(lhs, a, idx)
                     : broadcastElement<Attribute>(rhs, b, idx);
  });
  return DenseElementsAttr::get(type, result);
}
