//===- Folders.cpp - Folding of data-movement and arithmetic ops ----------===//
//
// Shape computations that exporters emit (Shape -> Gather -> Concat ->
// Reshape) fold to constants through these, at import and in canonicalize;
// so do exact algebraic identities (x * 1, x + (-0), transpose chains).
// Folding copies data, so it is limited to small constants.
//
//===----------------------------------------------------------------------===//

#include "FoldUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tessel;

using tessel::detail::broadcastElement;
using tessel::detail::forEachIndex;
using tessel::detail::getFoldable;
using tessel::detail::kMaxFoldElements;

DenseElementsAttr tessel::detail::getFoldable(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Builds the `type`-shaped constant whose element at multi-index `idx` is
/// `source[map(idx)]`, with `map` returning a linear index into `source`.
static DenseElementsAttr
gatherElements(DenseElementsAttr source, RankedTensorType type,
               function_ref<int64_t(ArrayRef<int64_t>)> map) {
  if (type.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<Attribute> values(source.getValues<Attribute>());
  SmallVector<Attribute> result(type.getNumElements());
  forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
    result[n] = values[map(idx)];
  });
  return DenseElementsAttr::get(type, result);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  auto isIdentity = [](ArrayRef<int64_t> p) {
    for (int64_t i = 0, e = int64_t(p.size()); i < e; ++i)
      if (p[i] != i)
        return false;
    return true;
  };
  if (isIdentity(perm))
    return getInput();
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    // transpose(transpose(x, p), q)[i] = x[p[q[i]]]: one transpose, or none.
    SmallVector<int64_t> composed;
    for (int64_t i : perm)
      composed.push_back(producer.getPerm()[i]);
    if (isIdentity(composed) && producer.getInput().getType() == getType())
      return producer.getInput();
    getInputMutable().assign(producer.getInput());
    setPerm(composed);
    return getResult();
  }
  if (DenseElementsAttr dense = getFoldable(adaptor.getInput())) {
    // Result element idx is input element idx' with idx'[perm[i]] = idx[i].
    auto type = cast<RankedTensorType>(getType());
    SmallVector<int64_t> strides = getStrides(dense.getType().getShape());
    if (dense.isSplat())
      return dense.reshape(type);
    return gatherElements(dense, type, [&](ArrayRef<int64_t> idx) {
      int64_t linear = 0;
      for (auto [i, p] : llvm::enumerate(perm))
        linear += idx[i] * strides[p];
      return linear;
    });
  }
  return {};
}

LogicalResult TransposeOp::canonicalize(TransposeOp op,
                                        PatternRewriter &rewriter) {
  // Moving only unit dimensions keeps the elements in order: the non-unit
  // dimensions appear in the result in the input's order.
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  if (!inputType.hasStaticShape())
    return failure();
  int64_t last = -1;
  for (int64_t d : op.getPerm()) {
    if (inputType.getDimSize(d) == 1)
      continue;
    if (d < last)
      return failure();
    last = d;
  }
  rewriter.replaceOpWithNewOp<ReshapeOp>(
      op, op.getType(), op.getInput(),
      rewriter.getDenseI64ArrayAttr(
          cast<RankedTensorType>(op.getType()).getShape()));
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    // reshape(reshape(x)) is one reshape; update in place.
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  // A reshape keeps the data as it is: weights of any size fold (the
  // recurrent weights' [1, G*H, H] -> [G*H, H] that gemms read).
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  auto type = cast<RankedTensorType>(getType());
  SmallVector<DenseElementsAttr> parts;
  for (Attribute attr : adaptor.getInputs()) {
    DenseElementsAttr dense = getFoldable(attr);
    if (!dense)
      return {};
    parts.push_back(dense);
  }
  if (type.getNumElements() > kMaxFoldElements)
    return {};
  // Row-major: for each index of the dims before `axis`, each input's block.
  int64_t axis = getAxis(), outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  SmallVector<SmallVector<Attribute>> values;
  SmallVector<int64_t> blocks;
  for (DenseElementsAttr part : parts) {
    values.emplace_back(part.getValues<Attribute>());
    blocks.push_back(outer ? part.getNumElements() / std::max<int64_t>(outer, 1)
                           : 0);
  }
  SmallVector<Attribute> result;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [vals, block] : llvm::zip(values, blocks))
      for (int64_t i = 0; i < block; ++i)
        result.push_back(vals[o * block + i]);
  return DenseElementsAttr::get(type, result);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr data = getFoldable(adaptor.getInput());
  DenseElementsAttr indices = getFoldable(adaptor.getIndices());
  if (!data || !indices)
    return {};
  auto inputType = cast<RankedTensorType>(getInput().getType());
  int64_t axis = getAxis(), extent = inputType.getDimSize(axis);
  int64_t idxRank = cast<RankedTensorType>(getIndices().getType()).getRank();
  SmallVector<int64_t> idxValues;
  for (APInt v : indices.getValues<APInt>())
    idxValues.push_back(v.getSExtValue());
  SmallVector<int64_t> idxStrides =
      getStrides(cast<RankedTensorType>(getIndices().getType()).getShape());
  SmallVector<int64_t> inStrides = getStrides(inputType.getShape());
  return gatherElements(
      data, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> idx) {
        int64_t linear = 0, which = 0;
        for (int64_t d = 0; d < idxRank; ++d)
          which += idx[axis + d] * idxStrides[d];
        int64_t i = idxValues[which];
        i = std::clamp<int64_t>(i < 0 ? i + extent : i, 0, extent - 1);
        for (int64_t d = 0; d < axis; ++d)
          linear += idx[d] * inStrides[d];
        linear += i * inStrides[axis];
        for (int64_t d = axis + 1; d < inputType.getRank(); ++d)
          linear += idx[d - 1 + idxRank] * inStrides[d];
        return linear;
      });
}

/// `data[starts + idx * steps]` for every index of `type`, copied element by
/// element from the raw bytes; null for a splat (whose raw data is one
/// element) or elements that are not whole bytes (i1 is packed).
static DenseElementsAttr sliceBytes(DenseElementsAttr data,
                                   RankedTensorType type,
                                   ArrayRef<int64_t> starts,
                                   ArrayRef<int64_t> steps) {
  Type element = data.getElementType();
  if (data.isSplat() || !type.hasStaticShape() || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  size_t bytes = element.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = data.getRawData();
  SmallVector<int64_t> strides = getStrides(data.getType().getShape());
  std::vector<char> result(type.getNumElements() * bytes);
  forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      linear += (starts[d] + idx[d] * steps[d]) * strides[d];
    std::memcpy(result.data() + n * bytes, raw.data() + linear * bytes, bytes);
  });
  return DenseElementsAttr::getFromRawBuffer(type, result);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto inputType = cast<RankedTensorType>(getInput().getType());
  auto type = cast<RankedTensorType>(getType());
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  // A slice is never larger than its input: weights of any size fold (the
  // gate blocks of a recurrent cell's weights), copied by bytes.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput())) {
    if (dense.isSplat() && type.hasStaticShape())
      return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
    if (DenseElementsAttr sliced = sliceBytes(dense, type, starts, steps))
      return sliced;
  }
  DenseElementsAttr data = getFoldable(adaptor.getInput());
  if (!data)
    return {};
  SmallVector<int64_t> strides = getStrides(inputType.getShape());
  return gatherElements(
      data, cast<RankedTensorType>(getType()), [&](ArrayRef<int64_t> idx) {
        int64_t linear = 0;
        for (size_t d = 0; d < idx.size(); ++d)
          linear += (starts[d] + idx[d] * steps[d]) * strides[d];
        return linear;
      });
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!data)
    return {};
  auto type = cast<RankedTensorType>(getType());
  if (data.isSplat())
    return DenseElementsAttr::get(type, data.getSplatValue<Attribute>());
  if (!getFoldable(data))
    return {};
  auto inputType = cast<RankedTensorType>(getInput().getType());
  SmallVector<int64_t> strides = getStrides(inputType.getShape());
  int64_t offset = type.getRank() - inputType.getRank();
  return gatherElements(data, type, [&](ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      if (inputType.getDimSize(d) != 1)
        linear += idx[d + offset] * strides[d];
    return linear;
  });
}

//===----------------------------------------------------------------------===//
// Integer arithmetic on constants
//
// Exporters compute ranks and axis counts with integer Add/Sub/Mul/Div on
// Shape and Size results (the expanded LayerNormalization function does
// Sub(Size(Shape(X)), axis) -> ConstantOfShape). Folding these small integer
// computations lets the shape-deciding inputs that follow become constants.
// Float arithmetic is left to the compiled code.
//===----------------------------------------------------------------------===//

void tessel::detail::forEachIndex(
    RankedTensorType type, function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> idx(type.getRank(), 0);
  for (int64_t n = 0, e = type.getNumElements(); n < e; ++n) {
    fn(n, idx);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++idx[d] < type.getDimSize(d))
        break;
      idx[d] = 0;
    }
  }
}

int64_t tessel::detail::broadcastLinearIndex(ArrayRef<int64_t> idx,
                                             ArrayRef<int64_t> shape) {
  int64_t offset = idx.size() - shape.size(), linear = 0, stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1)
      linear += idx[d + offset] * stride;
    stride *= shape[d];
  }
  return linear;
}

/// Folds a broadcasting binary op on small integer constants: `fn` combines
/// two elements (`isUnsigned` from the element type), or gives nullopt when
/// it cannot (division by zero), which leaves the op unfolded.
static DenseElementsAttr foldIntegerBinary(
    Attribute lhsAttr, Attribute rhsAttr, Type resultType,
    function_ref<std::optional<APInt>(const APInt &, const APInt &, bool)> fn) {
  DenseElementsAttr lhs = getFoldable(lhsAttr), rhs = getFoldable(rhsAttr);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!lhs || !rhs || !type || type.getNumElements() > kMaxFoldElements)
    return {};
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.getWidth() == 1 || lhs.getElementType() != element ||
      rhs.getElementType() != element)
    return {};
  bool isUnsigned = element.isUnsigned();
  SmallVector<APInt> lhsValues(lhs.getValues<APInt>()),
      rhsValues(rhs.getValues<APInt>()), result(type.getNumElements());
  bool folds = true;
  forEachIndex(type, [&](int64_t n, ArrayRef<int64_t> idx) {
    std::optional<APInt> value =
        folds ? fn(broadcastElement<APInt>(lhs, lhsValues, idx),
                   broadcastElement<APInt>(rhs, rhsValues, idx), isUnsigned)
              : std::nullopt;
    folds = value.has_value();
    if (folds)
      result[n] = *value;
  });
  if (!folds)
    return {};
  return DenseElementsAttr::get(type, result);
}

/// Whether `attr` is a splat of `value` (an integer, or a float compared
/// bit for bit, so -0.0 and +0.0 differ).
static bool isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type element = dense.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    APFloat expected(value);
    bool lost = false;
    expected.convert(floatType.getFloatSemantics(),
                     APFloat::rmNearestTiesToEven, &lost);
    return dense.getSplatValue<APFloat>().bitwiseIsEqual(expected);
  }
  if (auto integer = dyn_cast<IntegerType>(element);
      integer && integer.getWidth() > 1 && value == double(int64_t(value)))
    return dense.getSplatValue<APInt>() == APInt(integer.getWidth(),
                                                 uint64_t(int64_t(value)),
                                                 /*isSigned=*/true);
  return false;
}

/// `x op c` (or `c op x` when `commutes`) is `x` when `c` is a splat of
/// the identity and broadcasting does not change x's type. The float
/// identities are exact, signed zeros included: x * 1, x / 1, x - (+0),
/// x + (-0).
static Value foldIdentity(Value lhs, Value rhs, Attribute lhsAttr,
                          Attribute rhsAttr, Type resultType, double identity,
                          bool commutes) {
  if (isSplatOf(rhsAttr, identity) && lhs.getType() == resultType)
    return lhs;
  if (commutes && isSplatOf(lhsAttr, identity) && rhs.getType() == resultType)
    return rhs;
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + (-0) is x for every x; x + (+0) is not (-0 + +0 is +0). Integers
  // have one zero.
  bool isFloat = isa<FloatType>(getType().getElementType());
  if (Value x = foldIdentity(getLhs(), getRhs(), adaptor.getLhs(),
                             adaptor.getRhs(), getType(), isFloat ? -0.0 : 0.0,
                             /*commutes=*/true))
    return x;
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b, bool) {
                             return std::optional<APInt>(a + b);
                           });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentity(getLhs(), getRhs(), adaptor.getLhs(),
                             adaptor.getRhs(), getType(), 0.0,
                             /*commutes=*/false))
    return x;
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b, bool) {
                             return std::optional<APInt>(a - b);
                           });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentity(getLhs(), getRhs(), adaptor.getLhs(),
                             adaptor.getRhs(), getType(), 1.0,
                             /*commutes=*/true))
    return x;
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b, bool) {
                             return std::optional<APInt>(a * b);
                           });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentity(getLhs(), getRhs(), adaptor.getLhs(),
                             adaptor.getRhs(), getType(), 1.0,
                             /*commutes=*/false))
    return x;
  // Truncating division, as the lowering; the most negative value divided
  // by -1 overflows and is left to run time, as division by zero is.
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b,
                              bool isUnsigned) -> std::optional<APInt> {
                             if (b.isZero())
                               return std::nullopt;
                             if (isUnsigned)
                               return a.udiv(b);
                             if (a.isMinSignedValue() && b.isAllOnes())
                               return std::nullopt;
                             return a.sdiv(b);
                           });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b, bool isUnsigned) {
                             bool less = isUnsigned ? a.ult(b) : a.slt(b);
                             return std::optional<APInt>(less ? a : b);
                           });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldIntegerBinary(adaptor.getLhs(), adaptor.getRhs(), getType(),
                           [](const APInt &a, const APInt &b, bool isUnsigned) {
                             bool less = isUnsigned ? a.ult(b) : a.slt(b);
                             return std::optional<APInt>(less ? b : a);
                           });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // Negation is the subtraction from zero, wrapping like the lowering.
  DenseElementsAttr data = getFoldable(adaptor.getInput());
  auto element = dyn_cast<IntegerType>(getType().getElementType());
  if (!data || !element || element.getWidth() == 1)
    return {};
  SmallVector<APInt> result;
  for (APInt v : data.getValues<APInt>())
    result.push_back(-v);
  return DenseElementsAttr::get(cast<ShapedType>(getType()), result);
}

/// Integer (or bool) to integer or float casts of small constants: the ONNX
/// Cast rules of the lowering (extend by the source's signedness, truncate,
/// any value to bool is `x != 0`, to float rounds to nearest).
OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr data = getFoldable(adaptor.getInput());
  auto type = cast<RankedTensorType>(getType());
  if (!data)
    return {};
  auto from = dyn_cast<IntegerType>(data.getElementType());
  if (!from)
    return {};
  bool fromUnsigned = from.isUnsigned() || from.getWidth() == 1;
  if (auto toFloat = dyn_cast<FloatType>(type.getElementType())) {
    // Integer to float rounds to nearest, even on ties, as the lowering's
    // sitofp/uitofp do (window sizes and lengths cast for Range).
    SmallVector<APFloat> result;
    for (APInt v : data.getValues<APInt>()) {
      APFloat f(toFloat.getFloatSemantics());
      f.convertFromAPInt(v, /*IsSigned=*/!fromUnsigned,
                         APFloat::rmNearestTiesToEven);
      result.push_back(f);
    }
    return DenseElementsAttr::get(type, result);
  }
  auto to = dyn_cast<IntegerType>(type.getElementType());
  if (!to)
    return {};
  SmallVector<APInt> result;
  for (APInt v : data.getValues<APInt>()) {
    if (to.getWidth() == 1)
      result.push_back(APInt(1, v.isZero() ? 0 : 1));
    else
      result.push_back(fromUnsigned ? v.zextOrTrunc(to.getWidth())
                                    : v.sextOrTrunc(to.getWidth()));
  }
  return DenseElementsAttr::get(type, result);
}
