//===- IntegerProducts.cpp - Products of dequantized values on integers ---===//
//
// A quantized model in ONNX's QDQ form multiplies dequantized values:
//   matmul((cast(a) - za) * sa, (cast(w) - zw) * sw)
// with a and w 8-bit. Scales and zero points are per tensor, except the
// weight's scale, which may be one per output column. The sum over k of
// products of integers times one scale per column is
//   matmul(cast<i32>(a) - za, cast<i32>(w) - zw) * (sa * sw)
// so the product runs on 8-bit values (an integer kernel, VNNI's vpdpbusd)
// and the scales move to its epilogue. A Gemm of such values becomes that
// product (its transposed weights transposed at compile time) plus
// alpha and beta * C in the epilogue. The integer sum is exact where the
// float one rounded: the result is the one an integer runtime (onnxruntime's
// QLinearMatMul) computes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Support/Remarks.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELINTEGERPRODUCTSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Which operand of a product, and how the product reads it: a matrix
/// product's, or a convolution's filters [F, C, KH, KW] (`Filters`, read
/// as they are; the input is the left-hand side).
enum class Side { Lhs, Rhs, RhsTransposed, Filters };

/// A product operand that is a dequantized 8-bit tensor:
/// (integer - zeroPoint) * scale.
struct Dequantized {
  /// The 8-bit activation, or null for constant weights.
  Value integer;
  /// The weights' values with the zero point subtracted, as the product
  /// reads them ([K, N] even when the operand is transposed).
  std::vector<int8_t> values;
  int64_t zeroPoint = 0;
  /// The scale (null when there is none): one element, or for weights one
  /// per output column, shaped to broadcast against the result.
  Value scale;
  /// The largest magnitude of integer - zeroPoint.
  int64_t magnitude = 0;
  /// Constant weights stored negated (`values` = zeroPoint - integer): the
  /// product must be negated.
  bool negated = false;
};

/// Whether `scale` (f32) is one value, or for weights one per output
/// column of the operand `like`: along its last dimension ([N] or
/// [1, N]), or along its first when the product transposes it ([N, 1]).
bool isProductScale(Value scale, RankedTensorType like, Side side) {
  auto type = dyn_cast<RankedTensorType>(scale.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getRank() > like.getRank())
    return false;
  if (type.getNumElements() == 1)
    return true;
  if (side == Side::Filters)
    return type.getRank() == like.getRank() &&
           type.getDimSize(0) == like.getDimSize(0) &&
           type.getNumElements() == like.getDimSize(0);
  if (side == Side::Lhs || like.getRank() != 2)
    return false;
  if (side == Side::Rhs)
    return type.getDimSize(type.getRank() - 1) == like.getDimSize(1) &&
           type.getNumElements() == like.getDimSize(1);
  return type.getRank() == 2 && type.getDimSize(0) == like.getDimSize(0) &&
         type.getDimSize(1) == 1;
}

/// The values of an integer constant, unsigned types zero-extended.
std::vector<int64_t> readIntegers(DenseIntElementsAttr ints) {
  bool isUnsigned = ints.getElementType().isUnsignedInteger();
  std::vector<int64_t> result;
  result.reserve(ints.getNumElements());
  for (const APInt &v : ints.getValues<APInt>())
    result.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                : v.getSExtValue());
  return result;
}

/// The integers of `x` when it is a constant holding integers (an integer
/// constant, or an f32 one whose conversion was folded), or nothing.
std::optional<std::vector<int64_t>> constantIntegers(Value x) {
  DenseIntElementsAttr ints;
  if (matchPattern(x, m_Constant(&ints)))
    return readIntegers(ints);
  std::optional<std::vector<float>> floats = getConstantF32Values(x);
  if (!floats)
    return std::nullopt;
  std::vector<int64_t> result;
  result.reserve(floats->size());
  for (float v : *floats) {
    if (!std::isfinite(v) || v != std::nearbyint(v) || std::fabs(v) > 65536.0f)
      return std::nullopt;
    result.push_back(static_cast<int64_t>(v));
  }
  return result;
}

/// The value of a constant holding one integral f32 (or integer) element.
std::optional<int64_t> integralScalar(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return std::nullopt;
  std::optional<std::vector<int64_t>> ints = constantIntegers(value);
  if (!ints)
    return std::nullopt;
  return ints->front();
}

/// `operand` as (integer - zp) * scale, or the reason it is not one.
FailureOr<Dequantized> matchDequantized(Value operand, Side side,
                                        std::string &reason) {
  auto type = cast<RankedTensorType>(operand.getType());
  Dequantized result;
  Value x = operand;
  if (auto mul = x.getDefiningOp<MulOp>()) {
    for (unsigned i = 0; i < 2; ++i) {
      Value term = mul->getOperand(i), scale = mul->getOperand(1 - i);
      if (term.getType() == type && isProductScale(scale, type, side)) {
        result.scale = scale;
        x = term;
        break;
      }
    }
  }
  if (auto sub = x.getDefiningOp<SubOp>()) {
    std::optional<int64_t> zp = integralScalar(sub.getRhs());
    if (sub.getLhs().getType() == type && zp) {
      result.zeroPoint = *zp;
      x = sub.getLhs();
    }
  }
  if (auto cast = x.getDefiningOp<CastOp>()) {
    auto from =
        dyn_cast<IntegerType>(cast.getInput().getType().getElementType());
    if (!from || from.getWidth() != 8) {
      reason = "is converted from a type that is not 8 bits wide";
      return failure();
    }
    x = cast.getInput();
    if (side != Side::Lhs && !matchPattern(x, m_Constant())) {
      reason = "is not a constant (no integer kernel multiplies two "
               "activations)";
      return failure();
    }
    if (side == Side::Lhs) {
      result.integer = x;
      int64_t low = from.isUnsigned() ? 0 : -128;
      int64_t high = from.isUnsigned() ? 255 : 127;
      result.magnitude = std::max(std::abs(low - result.zeroPoint),
                                  std::abs(high - result.zeroPoint));
      return result;
    }
  }
  if (side == Side::Lhs) {
    reason = matchPattern(x, m_Constant())
                 ? "is a constant (no integer kernel reads constant rows)"
                 : "is not a dequantized 8-bit value";
    return failure();
  }
  if (isa_and_nonnull<SubOp>(x.getDefiningOp())) {
    reason = "has a zero point that is not one integer";
    return failure();
  }
  std::optional<std::vector<int64_t>> integers = constantIntegers(x);
  if (!integers) {
    reason = matchPattern(x, m_Constant())
                 ? "is a constant that is not 8-bit integers"
                 : "is not a constant (no integer kernel multiplies two "
                   "activations)";
    return failure();
  }
  if (type.getRank() != 2 && side != Side::Filters) {
    reason = "is not a matrix";
    return failure();
  }
  // The weights as [K, N] (filters: as they are), zero point subtracted,
  // each in [-128, 127].
  int64_t rows = type.getDimSize(0), columns = type.getNumElements() / rows;
  bool transposed = side == Side::RhsTransposed;
  // Weights quantized as an activation (uint8 with a zero point of 127 or
  // 128, as onnxruntime does to weights shared through Identity) span
  // [-127, 128] once centred: negated they fit int8, and the product is
  // negated back exactly (`negated`).
  int64_t low = 0, high = 0;
  for (int64_t v : *integers) {
    low = std::min(low, v - result.zeroPoint);
    high = std::max(high, v - result.zeroPoint);
  }
  if (high > 127 && low >= -127)
    result.negated = true;
  else if (low < -128 || high > 127) {
    reason = "is a constant that is not 8-bit integers";
    return failure();
  }
  result.values.resize(rows * columns);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      int64_t v = (*integers)[r * columns + c] - result.zeroPoint;
      if (result.negated)
        v = -v;
      int64_t at = transposed ? c * rows + r : r * columns + c;
      result.values[at] = static_cast<int8_t>(v);
      result.magnitude = std::max<int64_t>(result.magnitude, std::abs(v));
    }
  }
  result.zeroPoint = 0;
  return result;
}

/// Whether `value` is computed from an integer conversion through at most
/// `depth` multiplications and subtractions: a dequantized value, even one
/// matchDequantized refuses.
bool looksDequantized(Value value, int depth = 2) {
  Operation *op = value.getDefiningOp();
  if (auto cast = dyn_cast_or_null<CastOp>(op))
    return isa<IntegerType>(cast.getInput().getType().getElementType());
  if (depth == 0 || !isa_and_nonnull<MulOp, SubOp>(op))
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return looksDequantized(operand, depth - 1);
  });
}

/// A scalar i32 constant.
Value i32Scalar(OpBuilder &builder, Location loc, int64_t value) {
  auto type = RankedTensorType::get({}, builder.getI32Type());
  return ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getI32IntegerAttr(value)));
}

/// The i32 form of a dequantized operand: cast(integer) - zp, or the
/// weights as an i8 constant [K, N] converted to i32.
Value integerOperand(OpBuilder &builder, Location loc, const Dequantized &d,
                     ArrayRef<int64_t> shape) {
  Type i32 = builder.getI32Type();
  if (!d.integer) {
    auto type = RankedTensorType::get(shape, builder.getI8Type());
    Value constant = ConstantOp::create(
        builder, loc, DenseElementsAttr::get(type, llvm::ArrayRef(d.values)));
    return CastOp::create(builder, loc, constant, TypeAttr::get(i32));
  }
  Value wide = CastOp::create(builder, loc, d.integer, TypeAttr::get(i32));
  if (d.zeroPoint == 0)
    return wide;
  return SubOp::create(builder, loc, wide,
                       i32Scalar(builder, loc, d.zeroPoint));
}

/// A product's operands as ONNX reads them: `lhs` x `rhs` (or its
/// transpose).
struct Product {
  Operation *op;
  Value lhs, rhs;
  bool transposeLhs = false, transposeRhs = false;
};

/// Rewrites `product` when both its operands are dequantized 8-bit values:
/// returns the f32 result of the integer product with its scales applied.
/// Reports why not when either operand looks dequantized.
FailureOr<Value> productOnIntegers(OpBuilder &builder, const Product &product) {
  Operation *op = product.op;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!hasOnlyF32Tensors(op) || !resultType.hasStaticShape())
    return failure();
  if (!looksDequantized(product.lhs) && !looksDequantized(product.rhs))
    return failure();
  auto fail = [&](const Twine &reason) -> FailureOr<Value> {
    remark::analysis(op->getLoc(),
                     remarkOptions(kFloatQuantizedProductRemark, op))
        << remark::metric("reason", reason.str());
    return failure();
  };
  if (product.transposeLhs)
    return fail("the left-hand side is transposed (trans_a)");
  std::string lhsReason, rhsReason;
  FailureOr<Dequantized> lhs =
      matchDequantized(product.lhs, Side::Lhs, lhsReason);
  if (failed(lhs))
    return fail("the left-hand side " + lhsReason);
  FailureOr<Dequantized> rhs = matchDequantized(
      product.rhs, product.transposeRhs ? Side::RhsTransposed : Side::Rhs,
      rhsReason);
  if (failed(rhs))
    return fail("the right-hand side " + rhsReason);
  auto lhsType = cast<RankedTensorType>(product.lhs.getType());
  if (lhsType.getRank() < 2)
    return fail("the left-hand side is not a matrix");
  // The i32 sum of `depth` products must not overflow.
  int64_t depth = lhsType.getDimSize(lhsType.getRank() - 1);
  if (depth * lhs->magnitude * rhs->magnitude >
      std::numeric_limits<int32_t>::max())
    return fail("the i32 sum could overflow");

  Location loc = op->getLoc();
  int64_t columns = resultType.getDimSize(resultType.getRank() - 1);
  Value a = integerOperand(builder, loc, *lhs, lhsType.getShape());
  Value b = integerOperand(builder, loc, *rhs, {depth, columns});
  auto accType = resultType.clone(builder.getI32Type());
  auto integerProduct = MatMulOp::create(builder, loc, accType, a, b);
  Value result = CastOp::create(builder, loc, integerProduct.getResult(),
                                TypeAttr::get(builder.getF32Type()));
  for (Value scale : {lhs->scale, rhs->scale}) {
    if (!scale)
      continue;
    auto scaleType = cast<RankedTensorType>(scale.getType());
    if (product.transposeRhs && scaleType.getNumElements() > 1)
      scale = ReshapeOp::create(builder, loc, scaleType.clone({columns}), scale,
                                builder.getDenseI64ArrayAttr(columns));
    result = MulOp::create(builder, loc, resultType, result, scale);
  }
  if (rhs->negated)
    result = MulOp::create(builder, loc, resultType, result,
                           createF32Scalar(builder, loc, -1.0f));
  remark::passed(loc, remarkOptions(kIntegerProductRemark, integerProduct))
      << remark::metric("lhs", getElementTypeOrSelf(lhs->integer.getType()))
      << remark::metric("rhs", builder.getI8Type());
  return result;
}


bool runOnIntegers(MatMulOp matmul) {
  OpBuilder builder(matmul);
  FailureOr<Value> result = productOnIntegers(
      builder, Product{matmul, matmul.getLhs(), matmul.getRhs()});
  if (failed(result))
    return false;
  matmul.replaceAllUsesWith(*result);
  matmul.erase();
  return true;
}

/// alpha * op(A) op(B) + beta * C, the product on integers.
bool runOnIntegers(GemmOp gemm) {
  OpBuilder builder(gemm);
  FailureOr<Value> result =
      productOnIntegers(builder, Product{gemm, gemm.getA(), gemm.getB(),
                                         gemm.getTransA(), gemm.getTransB()});
  if (failed(result))
    return false;
  Location loc = gemm.getLoc();
  Type type = gemm.getType();
  float alpha = gemm.getAlpha().convertToFloat();
  float beta = gemm.getBeta().convertToFloat();
  if (alpha != 1.0f)
    result = MulOp::create(builder, loc, type, *result,
                           createF32Scalar(builder, loc, alpha))
                 .getResult();
  if (Value c = gemm.getC(); c && beta != 0.0f) {
    if (beta != 1.0f)
      c = MulOp::create(builder, loc, c.getType(), c,
                        createF32Scalar(builder, loc, beta));
    result = AddOp::create(builder, loc, type, *result, c).getResult();
  }
  gemm.replaceAllUsesWith(*result);
  gemm.erase();
  return true;
}

/// The values of a float constant (f32 or f64).
std::optional<std::vector<double>> constantFloats(Value value) {
  DenseFPElementsAttr floats;
  if (!matchPattern(value, m_Constant(&floats)))
    return std::nullopt;
  std::vector<double> result;
  result.reserve(floats.getNumElements());
  for (const APFloat &v : floats.getValues<APFloat>())
    result.push_back(v.convertToDouble());
  return result;
}

/// The values of `value` when it is computed from constants by the ops
/// that dequantize and quantize (casts, add, sub, mul and div by a constant
/// broadcasting against it, round, clip) in f32 or f64, each rounded to its
/// type as the op would round at run time: weights dequantized, or
/// dequantized and quantized again (onnxruntime's quantizer does that to
/// weights an exporter shared between layers), an int32 bias dequantized
/// in f64. Nothing otherwise, or past `depth` ops.
std::optional<std::vector<double>> evaluate(Value value, int depth) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  DenseIntElementsAttr ints;
  if (matchPattern(value, m_Constant(&ints))) {
    std::vector<int64_t> integers = readIntegers(ints);
    return std::vector<double>(integers.begin(), integers.end());
  }
  Type element = type.getElementType();
  bool isF32 = element.isF32();
  if (!isF32 && !element.isF64()) {
    // An 8-bit integer converted from f32 values in its range.
    auto integer = dyn_cast<IntegerType>(type.getElementType());
    auto cast = dyn_cast_or_null<CastOp>(op);
    if (!integer || integer.getWidth() != 8 || !cast || depth == 0 ||
        !cast.getInput().getType().getElementType().isF32())
      return std::nullopt;
    std::optional<std::vector<double>> values =
        evaluate(cast.getInput(), depth - 1);
    double low = integer.isUnsigned() ? 0.0 : -128.0;
    double high = integer.isUnsigned() ? 255.0 : 127.0;
    if (!values)
      return std::nullopt;
    for (double &v : *values) {
      if (!(v >= low && v <= high))
        return std::nullopt;
      v = std::trunc(v);
    }
    return values;
  }
  if (std::optional<std::vector<double>> floats = constantFloats(value))
    return floats;
  if (depth == 0 || !op)
    return std::nullopt;
  if (auto cast = dyn_cast<CastOp>(op)) {
    std::optional<std::vector<double>> values =
        evaluate(cast.getInput(), depth - 1);
    if (values && isF32)
      for (double &v : *values)
        v = static_cast<float>(v);
    return values;
  }
  if (auto round = dyn_cast<RoundOp>(op)) {
    std::optional<std::vector<double>> values =
        evaluate(round.getInput(), depth - 1);
    if (values)
      for (double &v : *values)
        v = std::nearbyint(v);
    return values;
  }
  if (auto clip = dyn_cast<ClipOp>(op)) {
    std::optional<std::vector<double>> values =
        evaluate(clip.getInput(), depth - 1);
    if (values)
      for (double &v : *values) {
        auto bound = [&](FloatAttr b) {
          double x = b.getValueAsDouble();
          return isF32 ? static_cast<float>(x) : x;
        };
        if (FloatAttr min = clip.getMinAttr())
          v = std::max(v, bound(min));
        if (FloatAttr max = clip.getMaxAttr())
          v = std::min(v, bound(max));
      }
    return values;
  }
  if (!isa<AddOp, SubOp, MulOp, DivOp>(op))
    return std::nullopt;
  // One operand has the result's shape; the other is a constant that
  // broadcasts against it (numpy rules, aligned to the trailing dimensions).
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  bool lhsFull = lhs.getType() == type;
  Value full = lhsFull ? lhs : rhs, other = lhsFull ? rhs : lhs;
  if (full.getType() != type)
    return std::nullopt;
  // The constant first: it is cheap to read, the other side may be large.
  std::optional<std::vector<double>> operand = constantFloats(other);
  auto otherType = dyn_cast<RankedTensorType>(other.getType());
  if (!operand || !otherType || otherType.getRank() > type.getRank())
    return std::nullopt;
  std::optional<std::vector<double>> values = evaluate(full, depth - 1);
  if (!values)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> small = otherType.getShape();
  int64_t offset = type.getRank() - otherType.getRank();
  for (int64_t d = 0; d < otherType.getRank(); ++d)
    if (small[d] != 1 && small[d] != shape[offset + d])
      return std::nullopt;
  SmallVector<int64_t> index(type.getRank(), 0);
  for (double &v : *values) {
    int64_t at = 0;
    for (int64_t d = 0; d < otherType.getRank(); ++d)
      at = at * small[d] + (small[d] == 1 ? 0 : index[offset + d]);
    double c = (*operand)[at];
    double x = lhsFull ? v : c, y = lhsFull ? c : v;
    // f32 operands are exact in double, and the double result of one
    // operation rounds to the f32 one.
    if (isa<AddOp>(op))
      v = x + y;
    else if (isa<SubOp>(op))
      v = x - y;
    else if (isa<MulOp>(op))
      v = x * y;
    else
      v = x / y;
    if (isF32)
      v = static_cast<float>(v);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return values;
}

/// The f32 values of the f32 `value` computed from constants (`evaluate`).
std::optional<std::vector<float>> evaluateConstant(Value value) {
  if (!getElementTypeOrSelf(value.getType()).isF32() &&
      !getElementTypeOrSelf(value.getType()).isInteger(8))
    return std::nullopt;
  std::optional<std::vector<double>> values = evaluate(value, /*depth=*/10);
  if (!values)
    return std::nullopt;
  return std::vector<float>(values->begin(), values->end());
}

/// Replaces every conversion to 8-bit integers of values computed from
/// constants (weights quantized again) by the integer constant it
/// computes: the product reading it then sees constant 8-bit weights.
void foldQuantizedConstants(func::FuncOp func) {
  SmallVector<CastOp> casts;
  func.walk([&](CastOp cast) {
    auto to = dyn_cast<IntegerType>(cast.getType().getElementType());
    if (to && to.getWidth() == 8 &&
        cast.getInput().getType().getElementType().isF32() &&
        !matchPattern(cast.getInput(), m_Constant()))
      casts.push_back(cast);
  });
  for (CastOp cast : casts) {
    std::optional<std::vector<float>> values = evaluateConstant(cast);
    if (!values)
      continue;
    auto type = cast.getType();
    bool isUnsigned = type.getElementType().isUnsignedInteger();
    SmallVector<APInt> ints;
    ints.reserve(values->size());
    for (float v : *values)
      ints.push_back(APInt(8, static_cast<int64_t>(v), !isUnsigned,
                           /*implicitTrunc=*/true));
    OpBuilder builder(cast);
    Value constant = ConstantOp::create(builder, cast.getLoc(),
                                        DenseElementsAttr::get(type, ints));
    cast.replaceAllUsesWith(constant);
    cast.erase();
  }
}

/// Replaces the operands of `op` (a product left in f32) that dequantize
/// constant weights with the f32 constants they compute, so that no run
/// dequantizes them again.
void foldDequantizedWeights(Operation *op) {
  // In a product of quantized values, constant weights whose conversion
  // from integers was folded (a constant of integral f32 values times the
  // scale) are dequantized weights too.
  bool quantized = llvm::any_of(op->getOperands(),
                                [](Value v) { return looksDequantized(v); });
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (matchPattern(value, m_Constant()) ||
        !(quantized || looksDequantized(value)))
      continue;
    std::optional<std::vector<float>> values = evaluateConstant(value);
    if (!values)
      continue;
    OpBuilder builder(op);
    auto type = cast<RankedTensorType>(value.getType());
    operand.set(
        createF32Constant(builder, value.getLoc(), type.getShape(), *values));
  }
}

/// A convolution of dequantized 8-bit values on integers:
///   conv((x - zx) * sx, (w - zw) * sw[f]) + b
///     = cast<f32>(conv_i32(x - zx, w - zw)) * sx * sw[f] + b
/// the i32 convolution padding with 0 as the f32 one did (a padded x then
/// reads zx). Reports why not when an operand looks dequantized.
bool runOnIntegers(ConvOp conv) {
  Operation *op = conv;
  auto resultType = cast<RankedTensorType>(conv.getType());
  auto inputType = cast<RankedTensorType>(conv.getInput().getType());
  if (!hasOnlyF32Tensors(op) || !resultType.hasStaticShape() ||
      !inputType.hasStaticShape() ||
      !llvm::any_of(op->getOperands(),
                    [](Value v) { return looksDequantized(v); }))
    return false;
  auto fail = [&](const Twine &reason) {
    remark::analysis(op->getLoc(),
                     remarkOptions(kFloatQuantizedProductRemark, op))
        << remark::metric("reason", reason.str());
    return false;
  };
  if (inputType.getRank() != 4 || conv.getLayout() != Layout::NCHW)
    return fail("not a 2-D convolution (no integer kernel)");
  if (conv.getGroup() != 1)
    return fail("a grouped convolution (no integer kernel)");
  std::string inputReason, weightReason;
  FailureOr<Dequantized> input =
      matchDequantized(conv.getInput(), Side::Lhs, inputReason);
  if (failed(input))
    return fail("the input " + inputReason);
  FailureOr<Dequantized> weights =
      matchDequantized(conv.getWeight(), Side::Filters, weightReason);
  if (failed(weights))
    return fail("the weights " + weightReason);
  Value bias = conv.getBias();
  std::optional<std::vector<float>> biasValues;
  if (bias && !(biasValues = evaluateConstant(bias)))
    return fail("the bias is not a constant");
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  ArrayRef<int64_t> w = weightType.getShape();
  int64_t depth = w[1] * w[2] * w[3];
  if (depth * input->magnitude * weights->magnitude >
      std::numeric_limits<int32_t>::max())
    return fail("the i32 sum could overflow");

  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  Value x = integerOperand(builder, loc, *input, inputType.getShape());
  Value filters = integerOperand(builder, loc, *weights, w);
  auto integerConv = ConvOp::create(
      builder, loc, resultType.clone(builder.getI32Type()), x, filters,
      Value(), conv.getStridesAttr(), conv.getPadsAttr(),
      conv.getDilationsAttr(), conv.getGroupAttr(), conv.getLayoutAttr());
  Value result = CastOp::create(builder, loc, integerConv.getResult(),
                                TypeAttr::get(builder.getF32Type()));
  // Per-filter values broadcast along NCHW's channels: [F, 1, 1].
  auto perFilter = [&](Value v) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getNumElements() == 1)
      return v;
    return ReshapeOp::create(builder, loc, type.clone({w[0], 1, 1}), v,
                             builder.getDenseI64ArrayAttr({w[0], 1, 1}));
  };
  for (Value scale : {input->scale, weights->scale})
    if (scale)
      result = MulOp::create(builder, loc, resultType, result, perFilter(scale));
  if (weights->negated)
    result = MulOp::create(builder, loc, resultType, result,
                           createF32Scalar(builder, loc, -1.0f));
  if (biasValues)
    result = AddOp::create(
        builder, loc, resultType, result,
        createF32Constant(builder, loc, {w[0], 1, 1}, *biasValues));
  remark::passed(loc, remarkOptions(kIntegerProductRemark, integerConv))
      << remark::metric("lhs", getElementTypeOrSelf(input->integer.getType()))
      << remark::metric("rhs", builder.getI8Type());
  conv.replaceAllUsesWith(result);
  conv.erase();
  return true;
}

struct TesselIntegerProductsPass
    : public tessel::impl::TesselIntegerProductsPassBase<
          TesselIntegerProductsPass> {
  using Base::Base;

  void runOnOperation() override {
    foldQuantizedConstants(getOperation());
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<MatMulOp, GemmOp, ConvOp>(op))
        products.push_back(op);
    });
    for (Operation *op : products) {
      bool onIntegers = false;
      if (!integerKernel) {
        noIntegerKernel(op);
      } else if (auto matmul = dyn_cast<MatMulOp>(op)) {
        onIntegers = runOnIntegers(matmul);
      } else if (auto gemm = dyn_cast<GemmOp>(op)) {
        onIntegers = runOnIntegers(gemm);
      } else {
        onIntegers = runOnIntegers(cast<ConvOp>(op));
      }
      if (!onIntegers)
        foldDequantizedWeights(op);
    }
  }

  /// Says why a product of dequantized values stays f32 on this target.
  static void noIntegerKernel(Operation *op) {
    if (!hasOnlyF32Tensors(op) ||
        !llvm::any_of(op->getOperands(),
                      [](Value v) { return looksDequantized(v); }))
      return;
    remark::analysis(op->getLoc(),
                     remarkOptions(kFloatQuantizedProductRemark, op))
        << remark::metric("reason",
                          "the target has no 8-bit dot-product kernel (VNNI or AVX2): "
                          "its f32 kernels are faster than integer loops");
  }
};

} // namespace
