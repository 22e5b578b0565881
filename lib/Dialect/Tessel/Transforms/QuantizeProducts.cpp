//===- QuantizeProducts.cpp - Post-training quantization of products -----===//
//
// The graph side of `tessel-compile --quantize=int8`: the activation
// operands of convolutions and matrix products are returned for
// calibration (mode=instrument), then quantized with the calibrated
// parameters and their weights made int8 per output channel (mode=apply),
// as a QDQ model that tessel-integer-products runs on integers.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"
#include "NodeNames.h"
#include "PrecisionMask.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Support/Remarks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <vector>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELQUANTIZEPRODUCTSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A product whose activation (operand 0) and constant weights (operand 1)
/// get quantized, and the weights' dimension of output channels (one scale
/// each).
struct Candidate {
  Operation *product;
  unsigned channelDim;
};

/// Whether `value` is an f32 constant.
bool isF32Constant(Value value) {
  DenseFPElementsAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         attr.getElementType().isF32();
}

/// The products whose operands get quantized, in walk order.
SmallVector<Candidate> candidateProducts(func::FuncOp func) {
  SmallVector<Candidate> products;
  func.walk([&](Operation *op) {
    if (!isa<ConvOp, MatMulOp, GemmOp>(op) || !hasOnlyF32Tensors(op) ||
        isF32Constant(op->getOperand(0)) ||
        !cast<RankedTensorType>(op->getOperand(0).getType()).hasStaticShape())
      return;
    if (auto conv = dyn_cast<ConvOp>(op)) {
      if (conv.getGroup() == 1 && conv.getLayout() == Layout::NCHW &&
          conv.getInput().getType().getRank() == 4 &&
          isF32Constant(conv.getWeight()))
        products.push_back({op, 0});
    } else if (auto matmul = dyn_cast<MatMulOp>(op)) {
      if (matmul.getRhs().getType().getRank() == 2 &&
          isF32Constant(matmul.getRhs()))
        products.push_back({op, 1});
    } else if (auto gemm = dyn_cast<GemmOp>(op)) {
      if (!gemm.getTransA() && isF32Constant(gemm.getB()))
        products.push_back({op, gemm.getTransB() ? 0u : 1u});
    }
  });
  return products;
}

/// The distinct activation operands of `products`, in order.
SmallVector<Value> activationsOf(ArrayRef<Candidate> products) {
  SmallVector<Value> values;
  for (const Candidate &c : products)
    if (!llvm::is_contained(values, c.product->getOperand(0)))
      values.push_back(c.product->getOperand(0));
  return values;
}

/// dequantize(quantize(x)): uint8 with `scale` and `zeroPoint`, as ONNX's
/// QuantizeLinear and DequantizeLinear import; also the quantization's
/// first op, the one that reads `x`.
std::pair<Value, Operation *> quantizeDequantize(OpBuilder &b, Location loc,
                                                 Value x, double scale,
                                                 int64_t zeroPoint) {
  auto type = cast<RankedTensorType>(x.getType());
  Value s = createF32Scalar(b, loc, static_cast<float>(scale));
  Value z = createF32Scalar(b, loc, static_cast<float>(zeroPoint));
  auto division = DivOp::create(b, loc, type, x, s);
  Value q = RoundOp::create(b, loc, division.getResult());
  q = AddOp::create(b, loc, type, q, z);
  q = ClipOp::create(b, loc, q, b.getF64FloatAttr(0.0),
                     b.getF64FloatAttr(255.0));
  Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  q = CastOp::create(b, loc, q, TypeAttr::get(u8));
  Value d = CastOp::create(b, loc, q, TypeAttr::get(b.getF32Type()));
  d = SubOp::create(b, loc, type, d, z);
  return {MulOp::create(b, loc, type, d, s).getResult(), division};
}

/// Constant f32 weights as symmetric int8 with one scale per entry of
/// `channelDim` (max |w| / 127; 1 for an all-zero channel).
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
  /// Elements per step of `channelDim`, and its extent.
  int64_t inner = 1, channels = 1;
  int64_t channelOf(int64_t i) const { return (i / inner) % channels; }
  float dequantized(int64_t i) const {
    return float(values[i]) * scales[channelOf(i)];
  }
};

QuantizedWeights quantizeWeightValues(ArrayRef<float> values,
                                      ArrayRef<int64_t> shape,
                                      unsigned channelDim) {
  QuantizedWeights q;
  q.channels = shape[channelDim];
  for (size_t d = channelDim + 1; d < shape.size(); ++d)
    q.inner *= shape[d];
  q.scales.assign(q.channels, 0.0f);
  for (int64_t i = 0, e = values.size(); i < e; ++i)
    q.scales[q.channelOf(i)] =
        std::max(q.scales[q.channelOf(i)], std::fabs(values[i]));
  for (float &s : q.scales)
    s = s > 0.0f ? s / 127.0f : 1.0f;
  q.values.resize(values.size());
  for (int64_t i = 0, e = values.size(); i < e; ++i) {
    float v = std::nearbyint(values[i] / q.scales[q.channelOf(i)]);
    q.values[i] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
  }
  return q;
}

/// The constant f32 weights as symmetric int8 (quantizeWeightValues),
/// dequantized: cast<f32>(q) * scale, the scale shaped to broadcast along
/// that dimension.
Value quantizeWeights(OpBuilder &b, Location loc, Value weights,
                      unsigned channelDim) {
  auto type = cast<RankedTensorType>(weights.getType());
  ArrayRef<int64_t> shape = type.getShape();
  QuantizedWeights q =
      quantizeWeightValues(*getConstantF32Values(weights), shape, channelDim);
  auto qType = RankedTensorType::get(shape, b.getI8Type());
  Value integers = ConstantOp::create(
      b, loc, DenseElementsAttr::get(qType, ArrayRef<int8_t>(q.values)));
  Value f = CastOp::create(b, loc, integers, TypeAttr::get(b.getF32Type()));
  SmallVector<int64_t> scaleShape(shape.size(), 1);
  scaleShape[channelDim] = q.channels;
  // A matrix's per-column scale as [N] (the form QDQ models give it).
  if (shape.size() == 2 && channelDim == 1)
    scaleShape = {q.channels};
  Value scale = createF32Constant(b, loc, scaleShape, q.scales);
  return MulOp::create(b, loc, type, f, scale);
}

struct TesselQuantizeProductsPass
    : public tessel::impl::TesselQuantizeProductsPassBase<
          TesselQuantizeProductsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Candidate> products = candidateProducts(func);
    SmallVector<Value> activations = activationsOf(products);
    if (mode == "instrument")
      return instrument(func, activations);
    if (mode != "apply" && mode != "simulate") {
      func.emitError() << "tessel-quantize-products: unknown mode '" << mode
                       << "' (instrument, apply, simulate)";
      return signalPassFailure();
    }
    if (scales.size() != activations.size() ||
        zeroPoints.size() != activations.size()) {
      func.emitError() << "tessel-quantize-products: " << activations.size()
                       << " activations to quantize, " << scales.size()
                       << " scales and " << zeroPoints.size()
                       << " zero points given";
      return signalPassFailure();
    }
    if (mode == "simulate")
      return simulate(func, products, activations);
    llvm::StringSet<> kept;
    for (const std::string &name : keep)
      kept.insert(name);
    auto isKept = [&](Operation *op) {
      return kept.contains(getNodeName(op->getLoc()));
    };
    // A name that is no candidate's is a mistake the user must hear of.
    for (const std::string &name : keep)
      if (llvm::none_of(products, [&](const Candidate &c) {
            return getNodeName(c.product->getLoc()) == name;
          })) {
        mlir::emitError(func.getLoc()) << "--keep-fp32 names '" << name
                         << "', which is no quantized product's node (a "
                            "Conv, MatMul or Gemm with constant weights)";
        return signalPassFailure();
      }
    OpBuilder b(func.getContext());
    for (auto [i, x] : llvm::enumerate(activations)) {
      // The products kept in f32 read `x` itself; with none left to
      // quantize, nothing does.
      llvm::SmallPtrSet<Operation *, 4> keptReaders;
      bool quantizedReader = false;
      for (const Candidate &c : products)
        if (c.product->getOperand(0) == x) {
          if (isKept(c.product))
            keptReaders.insert(c.product);
          else
            quantizedReader = true;
        }
      if (!quantizedReader)
        continue;
      setInsertionPointAfterValue(b, x);
      // (Lambdas cannot capture structured bindings in C++17.)
      std::pair<Value, Operation *> quantized =
          quantizeDequantize(b, x.getLoc(), x, scales[i], zeroPoints[i]);
      Operation *first = quantized.second;
      // Every reader but the quantization itself, the function's results
      // (a graph output stays exact) and the products kept in f32 reads the
      // 8-bit value, as in an onnxruntime QDQ model: the producer then
      // writes 8 bits (a residual add reads them too) instead of f32 for
      // the product and f32 again for its other readers.
      x.replaceUsesWithIf(quantized.first, [&](OpOperand &use) {
        return use.getOwner() != first &&
               !isa<func::ReturnOp>(use.getOwner()) &&
               !keptReaders.contains(use.getOwner());
      });
    }
    for (const Candidate &c : products) {
      Operation *op = c.product;
      if (isKept(op)) {
        remark::analysis(op->getLoc(),
                         remarkOptions(kFullPrecisionProductRemark, op))
            << remark::metric("reason", "kept in FP32 (--keep-fp32, or the "
                                        "accuracy budget's choice)");
        continue;
      }
      b.setInsertionPoint(op);
      op->setOperand(1, quantizeWeights(b, op->getLoc(), op->getOperand(1),
                                        c.channelDim));
    }
  }

  static void setInsertionPointAfterValue(OpBuilder &b, Value x) {
    if (auto arg = dyn_cast<BlockArgument>(x))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfter(x.getDefiningOp());
  }

  /// mode=simulate: each product `k` gets an entry argument
  /// `precision_mask_<k>` (tensor<1xf32>, 0 or 1) that chooses at run time
  /// between f32 and its quantization, simulated in f32: it reads
  /// `x + m * (qdq(x) - x)` and adds `m * product(x', qdq(W) - W)`. The
  /// activation's other readers read `x + max(m over its products) *
  /// (qdq(x) - x)`, as with mode=apply. With every mask 0 the model
  /// computes as in f32, exactly.
  void simulate(func::FuncOp func, ArrayRef<Candidate> products,
                ArrayRef<Value> activations) {
    MLIRContext *ctx = func.getContext();
    OpBuilder b(ctx);
    auto maskType = RankedTensorType::get({1}, b.getF32Type());
    SmallVector<Value> masks;
    for (auto [k, c] : llvm::enumerate(products)) {
      Value mask = addPrecisionMask(func, k, c.product, c.channelDim);
      if (!mask)
        return signalPassFailure();
      masks.push_back(mask);
    }
    for (auto [i, activation] : llvm::enumerate(activations)) {
      Value x = activation;
      setInsertionPointAfterValue(b, x);
      Location loc = x.getLoc();
      auto type = cast<RankedTensorType>(x.getType());
      llvm::SmallPtrSet<Operation *, 8> originalUsers;
      for (Operation *user : x.getUsers())
        originalUsers.insert(user);
      Value qdq =
          quantizeDequantize(b, loc, x, scales[i], zeroPoints[i]).first;
      Value delta = SubOp::create(b, loc, type, qdq, x);
      auto blend = [&](Value m) -> Value {
        Value scaled = MulOp::create(b, loc, type, delta, m);
        return AddOp::create(b, loc, type, x, scaled);
      };
      Value any;
      SmallVector<std::pair<Operation *, Value>> readers;
      for (auto [k, c] : llvm::enumerate(products))
        if (c.product->getOperand(0) == x) {
          readers.push_back({c.product, blend(masks[k])});
          any = any ? MaxOp::create(b, loc, maskType, any, masks[k]).getResult()
                    : masks[k];
        }
      Value others = blend(any);
      x.replaceUsesWithIf(others, [&](OpOperand &use) {
        Operation *owner = use.getOwner();
        return originalUsers.contains(owner) && !isa<func::ReturnOp>(owner) &&
               llvm::none_of(readers, [&](auto &r) { return r.first == owner; });
      });
      for (auto [product, value] : readers)
        product->setOperand(0, value);
    }
    for (auto [k, c] : llvm::enumerate(products)) {
      Operation *op = c.product;
      Location loc = op->getLoc();
      Value weights = op->getOperand(1);
      auto wType = cast<RankedTensorType>(weights.getType());
      std::vector<float> w = *getConstantF32Values(weights);
      QuantizedWeights q =
          quantizeWeightValues(w, wType.getShape(), c.channelDim);
      std::vector<float> error(w.size());
      for (size_t e = 0; e < w.size(); ++e)
        error[e] = q.dequantized(e) - w[e];
      b.setInsertionPointAfter(op);
      Value errorWeights = createF32Constant(b, loc, wType.getShape(), error);
      // No bias (a Gemm's C) in the correction.
      Value noBias;
      if (op->getNumOperands() > 2) {
        auto bias = cast<RankedTensorType>(op->getOperand(2).getType());
        noBias = createF32Constant(
            b, loc, bias.getShape(),
            std::vector<float>(bias.getNumElements(), 0.0f));
      }
      Operation *correction = b.clone(*op);
      correction->setOperand(1, errorWeights);
      if (noBias)
        correction->setOperand(2, noBias);
      Value y = op->getResult(0);
      auto type = cast<RankedTensorType>(y.getType());
      Value scaled =
          MulOp::create(b, loc, type, correction->getResult(0), masks[k]);
      Value sum = AddOp::create(b, loc, type, y, scaled);
      y.replaceAllUsesExcept(sum, sum.getDefiningOp());
    }
  }

  /// Returns each activation too, named calibration_<i>.
  void instrument(func::FuncOp func, ArrayRef<Value> activations) {
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<Value> results(ret.getOperands());
    unsigned first = results.size();
    results.append(activations.begin(), activations.end());
    OpBuilder b(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(func.getContext(),
                                   func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    for (unsigned i = 0; i < activations.size(); ++i)
      func.setResultAttr(first + i, "tessel.name",
                         b.getStringAttr("calibration_" + std::to_string(i)));
  }
};

} // namespace
