//===- LowPrecisionProducts.cpp - Products with 16-bit weights ------------===//
//
// `--precision=bf16|fp16`: a product of an activation and constant weights
// multiplies bf16 or f16 operands and sums in f32 (tessel-to-linalg widens
// 16-bit products): bf16 on AVX512-BF16's `vdpbf16ps` or AMX-BF16 tiles, f16
// on AVX512-FP16's `vfmadd231ph` in short f16 blocks summed in f32. The
// weights are rounded here, once; the activation is cast before the
// product and its result cast back to f32, so that everything else (bias,
// normalisations, softmax, reductions) computes in f32 as before.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"
#include "NodeNames.h"
#include "PrecisionMask.h"

#include "tessel/Codegen/CPU/AmxTiles.h"
#include "tessel/Codegen/CPU/F16Blocks.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Support/Remarks.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <cstring>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWPRECISIONPRODUCTSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// `x` rounded to bf16, to nearest even (the bits); NaN stays a quiet NaN.
uint16_t roundToBf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

/// `x` rounded to f16, to nearest even (the bits): beyond f16's range an
/// infinity (callers refuse such weights first).
uint16_t roundToF16(float x) {
  llvm::APFloat value(x);
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEhalf(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
}

/// An `element` (bf16 or f16) constant of `values` (f32, row-major) with
/// `shape`, or of their transpose when `transpose` (a 2-D [R, C] becomes
/// [C, R]).
Value createNarrowConstant(OpBuilder &builder, Location loc, Type element,
                           ArrayRef<int64_t> shape, ArrayRef<float> values,
                           bool transpose) {
  SmallVector<int64_t> outShape(shape);
  auto round = element.isF16() ? roundToF16 : roundToBf16;
  std::vector<uint16_t> bits(values.size());
  if (transpose) {
    int64_t rows = shape[0], columns = shape[1];
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        bits[c * rows + r] = round(values[r * columns + c]);
    std::swap(outShape[0], outShape[1]);
  } else {
    for (size_t i = 0; i < values.size(); ++i)
      bits[i] = round(values[i]);
  }
  auto type = RankedTensorType::get(outShape, element);
  ArrayRef<char> raw(reinterpret_cast<const char *>(bits.data()),
                     bits.size() * sizeof(uint16_t));
  return ConstantOp::create(builder, loc,
                            DenseElementsAttr::getFromRawBuffer(type, raw));
}

/// Empty when every value is finite and rounds to a finite f16, else why
/// the product stays f32.
std::string f16RangeRefusal(ArrayRef<float> values) {
  float largest = 0.0f;
  for (float v : values) {
    if (!std::isfinite(v))
      return "a weight is not finite";
    largest = std::max(largest, std::fabs(v));
  }
  // 65504 is f16's largest value; up to 65520 (exclusive) rounds to it.
  if (largest < 65520.0f)
    return "";
  return "a weight (|w| = " + std::to_string(largest) +
         ") is beyond f16's range (65504)";
}

Value castTo(OpBuilder &builder, Location loc, Value value, Type element) {
  return CastOp::create(builder, loc, value, TypeAttr::get(element));
}

struct LowPrecisionProductsPass
    : tessel::impl::TesselLowPrecisionProductsPassBase<
          LowPrecisionProductsPass> {
  using Base::Base;

  /// The products' element type: bf16 or f16.
  Type narrow;

  /// The model nodes whose products stay f32 (`keep`).
  llvm::StringSet<> kept;
  /// mode=simulate: the entry's mask arguments, one per product moved.
  unsigned masks = 0;

  LogicalResult initialize(MLIRContext *context) override {
    if (element == "bf16")
      narrow = BFloat16Type::get(context);
    else if (element == "f16")
      narrow = Float16Type::get(context);
    else
      return emitError(UnknownLoc::get(context))
             << "tessel-low-precision-products: unknown element '" << element
             << "' (bf16, f16)";
    if (mode != "apply" && mode != "simulate")
      return emitError(UnknownLoc::get(context))
             << "tessel-low-precision-products: unknown mode '" << mode
             << "' (apply, simulate)";
    for (const std::string &name : keep)
      kept.insert(name);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> products;
    func.walk([&](Operation *op) {
      if (isa<MatMulOp, GemmOp, ConvOp>(op) && hasOnlyF32Tensors(op))
        products.push_back(op);
    });
    // A name that is no candidate's is a mistake the user must hear of.
    for (const std::string &name : keep)
      if (llvm::none_of(products, [&](Operation *op) {
            return getNodeName(op->getLoc()) == name;
          })) {
        mlir::emitError(func.getLoc())
            << "--keep-fp32 names '" << name
            << "', which is no product's node (a Conv, MatMul or Gemm)";
        return signalPassFailure();
      }
    for (Operation *op : products) {
      std::string reason;
      if (kept.contains(getNodeName(op->getLoc())))
        reason = "kept in FP32 (--keep-fp32, or the accuracy budget's "
                 "choice)";
      else if (!productKernel)
        reason = narrow.isF16()
                     ? "the target has no f16 arithmetic (AVX512-FP16)"
                     : "the target has no bf16 product kernel faster than "
                       "its FP32 FMA (AMX-BF16 tiles, or AVX512-BF16's "
                       "vdpbf16ps where it does more multiply-adds per "
                       "cycle)";
      else if (auto matmul = dyn_cast<MatMulOp>(op))
        reason = rewrite(matmul);
      else if (auto gemm = dyn_cast<GemmOp>(op))
        reason = rewrite(gemm);
      else
        reason = rewrite(cast<ConvOp>(op));
      if (!reason.empty())
        remark::analysis(op->getLoc(),
                         remarkOptions(kFullPrecisionProductRemark, op))
            << remark::metric("reason", reason);
    }
  }

  /// `original`'s result replaced by `result`, its low-precision form:
  /// with mode=simulate, chosen at run time by a new entry argument
  /// `precision_mask_<k>` (tensor<1xf32>, 1 for `result`, 0 for the f32
  /// product, which stays; a select, so that an f16 overflow in `result`
  /// does not reach the f32 model), named after its nodes and multiply-adds
  /// for --accuracy-budget's search.
  void finish(Operation *original, Value result) {
    Value y = original->getResult(0);
    if (mode != "simulate") {
      y.replaceAllUsesWith(result);
      original->erase();
      return;
    }
    // The weights' output channels: a conv's first dimension, a matrix's
    // columns (a transposed Gemm B's rows).
    auto gemm = dyn_cast<GemmOp>(original);
    unsigned channelDim =
        isa<ConvOp>(original) || (gemm && gemm.getTransB()) ? 0 : 1;
    Value mask = addPrecisionMask(getOperation(), masks++, original,
                                  channelDim);
    if (!mask)
      return signalPassFailure();
    OpBuilder b(original->getContext());
    auto type = cast<RankedTensorType>(y.getType());
    // (`result` was built before `original`.)
    b.setInsertionPointAfter(original);
    Location loc = original->getLoc();
    Value half = createF32Scalar(b, loc, 0.5f);
    Value chosen = GreaterOp::create(
        b, loc, RankedTensorType::get({1}, b.getI1Type()), mask, half);
    Value blended = WhereOp::create(b, loc, type, chosen, result, y);
    y.replaceAllUsesExcept(blended, blended.getDefiningOp());
  }

  void reportLowered(Location loc, Operation *product) const {
    remark::passed(loc, remarkOptions(kLowPrecisionProductRemark, product))
        << remark::metric("precision", narrow.isF16() ? "fp16" : "bf16");
  }

  /// `lhs x weights` ([K, N] f32 `values`, transposed from [N, K] when
  /// `transposed`) in the narrow type, cast back to f32.
  Value narrowMatMul(OpBuilder &builder, Location loc, Value lhs,
                     ArrayRef<int64_t> weightShape, ArrayRef<float> values,
                     bool transposed, RankedTensorType resultType) const {
    Value weights = createNarrowConstant(builder, loc, narrow, weightShape,
                                         values, transposed);
    auto product =
        MatMulOp::create(builder, loc, resultType.clone(narrow),
                         castTo(builder, loc, lhs, narrow), weights);
    reportLowered(loc, product);
    return castTo(builder, loc, product.getResult(), builder.getF32Type());
  }

  /// Empty when the target's kernel covers a product of `rows` x `columns`
  /// over `reduction` values of `weights` (AMX-BF16 tiles with
  /// `whole-amx-tiles`; the f16 kernel's blocks, whose weights f16 must
  /// hold), else why the product stays f32.
  std::string kernelRefusal(int64_t rows, int64_t columns, int64_t reduction,
                            ArrayRef<float> weights) const {
    std::string extent = "the product (" + std::to_string(rows) + " x " +
                         std::to_string(reduction) + " x " +
                         std::to_string(columns) + ")";
    if (narrow.isF16()) {
      if (!f16_blocks::coverProduct(rows, columns, reduction))
        return extent + " does not fit the f16 kernel (columns in 16s, the "
                        "reduction in 8s); the target's other f16 products "
                        "convert to f32 and would run slower than FP32";
      if (!f16_blocks::paysOff(rows, columns, reduction))
        return extent + " sums fewer than " +
               std::to_string(f16_blocks::kShortestWorthwhileReduction) +
               " steps: converting its f16 sums and its activations would "
               "cost more than f16 saves";
      return f16RangeRefusal(weights);
    }
    if (!wholeAmxTiles ||
        amx_tiles::coverProduct(rows, columns, reduction, /*elementBytes=*/2))
      return "";
    return extent + " is not whole AMX-BF16 tiles (rows in tiles of 5 to "
                    "16, columns in 16s, the reduction in 32s), and the "
                    "target's vdpbf16ps does fewer multiply-adds per cycle "
                    "than its FP32 FMA";
  }

  std::string rewrite(MatMulOp matmul) {
    std::optional<std::vector<float>> weights =
        getConstantF32Values(matmul.getRhs());
    if (!weights)
      return "the right-hand side is not constant (a product of two "
             "activations)";
    auto rhsType = cast<RankedTensorType>(matmul.getRhs().getType());
    if (rhsType.getRank() != 2)
      return "the right-hand side is not a matrix of weights";
    // The rows of each matrix of the left-hand side (a vector: one).
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    int64_t rows =
        lhsType.getRank() < 2 ? 1 : lhsType.getDimSize(lhsType.getRank() - 2);
    if (std::string refusal = kernelRefusal(rows, rhsType.getDimSize(1),
                                            rhsType.getDimSize(0), *weights);
        !refusal.empty())
      return refusal;
    OpBuilder builder(matmul);
    Value result = narrowMatMul(builder, matmul.getLoc(), matmul.getLhs(),
                                rhsType.getShape(), *weights, false,
                                matmul.getType());
    finish(matmul, result);
    return "";
  }

  std::string rewrite(GemmOp gemm) {
    if (gemm.getTransA())
      return "the left-hand side is transposed (trans_a)";
    std::optional<std::vector<float>> weights =
        getConstantF32Values(gemm.getB());
    if (!weights)
      return "B is not constant (a product of two activations)";
    auto aType = cast<RankedTensorType>(gemm.getA().getType());
    auto bType = cast<RankedTensorType>(gemm.getB().getType());
    if (std::string refusal = kernelRefusal(
            aType.getDimSize(0), bType.getDimSize(gemm.getTransB() ? 0 : 1),
            aType.getDimSize(1), *weights);
        !refusal.empty())
      return refusal;
    OpBuilder builder(gemm);
    Location loc = gemm.getLoc();
    auto resultType = cast<RankedTensorType>(gemm.getType());
    Value result = narrowMatMul(
        builder, loc, gemm.getA(),
        cast<RankedTensorType>(gemm.getB().getType()).getShape(), *weights,
        gemm.getTransB(), resultType);
    double alpha = gemm.getAlpha().convertToDouble();
    double beta = gemm.getBeta().convertToDouble();
    if (alpha != 1.0)
      result = MulOp::create(builder, loc, resultType, result,
                             createF32Scalar(builder, loc, alpha));
    if (Value c = gemm.getC(); c && beta != 0.0) {
      if (beta != 1.0)
        c = MulOp::create(builder, loc, c.getType(), c,
                          createF32Scalar(builder, loc, beta));
      result = AddOp::create(builder, loc, resultType, result, c);
    }
    finish(gemm, result);
    return "";
  }

  std::string rewrite(ConvOp conv) {
    auto inputType = cast<RankedTensorType>(conv.getInput().getType());
    if (inputType.getRank() != 4)
      return "not a 2-D convolution (no 16-bit kernel)";
    if (conv.getGroup() != 1)
      return "a grouped convolution (no 16-bit kernel)";
    std::optional<std::vector<float>> weights =
        getConstantF32Values(conv.getWeight());
    if (!weights)
      return "the weights are not constant";
    std::optional<std::vector<float>> bias;
    if (Value b = conv.getBias(); b && !(bias = getConstantF32Values(b)))
      return "the bias is not constant";
    {
      // A product [N*OH*OW, KH*KW*C] x [KH*KW*C, F] (a gathered window's
      // taps padded as tessel-vectorize-convolutions pads them: bf16 to
      // pairs, and to whole tile rows where that costs little, its
      // bf16-tile-rows; f16 to the f16 kernel's blocks).
      auto outType = cast<RankedTensorType>(conv.getType());
      ArrayRef<int64_t> w =
          cast<RankedTensorType>(conv.getWeight().getType()).getShape();
      bool last = conv.getLayout() == Layout::NHWC;
      int64_t positions = outType.getDimSize(0) *
                          outType.getDimSize(last ? 1 : 2) *
                          outType.getDimSize(last ? 2 : 3);
      int64_t taps = w[1] * w[2] * w[3];
      bool pointwise = w[2] == 1 && w[3] == 1;
      int64_t reduction =
          pointwise         ? taps
          : narrow.isF16() ? f16_blocks::padReduction(taps)
                            : amx_tiles::padReductionToTileRows(
                                  taps + taps % 2, 2);
      if (std::string refusal =
              kernelRefusal(positions, w[0], reduction, *weights);
          !refusal.empty())
        return refusal;
    }
    OpBuilder builder(conv);
    Location loc = conv.getLoc();
    auto resultType = cast<RankedTensorType>(conv.getType());
    auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
    auto product = ConvOp::create(
        builder, loc, resultType.clone(narrow),
        castTo(builder, loc, conv.getInput(), narrow),
        createNarrowConstant(builder, loc, narrow, weightType.getShape(),
                             *weights, false),
        Value(), conv.getStridesAttr(), conv.getPadsAttr(),
        conv.getDilationsAttr(), conv.getGroupAttr(), conv.getLayoutAttr());
    reportLowered(loc, product);
    Value result = castTo(builder, loc, product.getResult(),
                          builder.getF32Type());
    // The bias in f32, after the product: along the channels of the
    // layout.
    if (bias) {
      int64_t filters = weightType.getDimSize(0);
      SmallVector<int64_t> shape =
          conv.getLayout() == Layout::NHWC
              ? SmallVector<int64_t>{filters}
              : SmallVector<int64_t>{filters, 1, 1};
      result = AddOp::create(builder, loc, resultType, result,
                             createF32Constant(builder, loc, shape, *bias));
    }
    finish(conv, result);
    return "";
  }
};

} // namespace
