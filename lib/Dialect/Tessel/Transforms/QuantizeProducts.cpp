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

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

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

/// The constant f32 weights as symmetric int8 with one scale per entry of
/// `channelDim` (max |w| / 127; 1 for an all-zero channel), dequantized:
/// cast<f32>(q) * scale, the scale shaped to broadcast along that
/// dimension.
Value quantizeWeights(OpBuilder &b, Location loc, Value weights,
                      unsigned channelDim) {
  auto type = cast<RankedTensorType>(weights.getType());
  std::vector<float> values = *getConstantF32Values(weights);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t channels = shape[channelDim];
  int64_t inner = 1;
  for (size_t d = channelDim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  auto channelOf = [&](int64_t i) { return (i / inner) % channels; };
  std::vector<float> scales(channels, 0.0f);
  for (int64_t i = 0, e = values.size(); i < e; ++i)
    scales[channelOf(i)] = std::max(scales[channelOf(i)], std::fabs(values[i]));
  for (float &s : scales)
    s = s > 0.0f ? s / 127.0f : 1.0f;
  std::vector<int8_t> q(values.size());
  for (int64_t i = 0, e = values.size(); i < e; ++i) {
    float v = std::nearbyint(values[i] / scales[channelOf(i)]);
    q[i] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
  }
  auto qType = RankedTensorType::get(shape, b.getI8Type());
  Value integers = ConstantOp::create(
      b, loc, DenseElementsAttr::get(qType, ArrayRef<int8_t>(q)));
  Value f = CastOp::create(b, loc, integers, TypeAttr::get(b.getF32Type()));
  SmallVector<int64_t> scaleShape(shape.size(), 1);
  scaleShape[channelDim] = channels;
  // A matrix's per-column scale as [N] (the form QDQ models give it).
  if (shape.size() == 2 && channelDim == 1)
    scaleShape = {channels};
  Value scale = createF32Constant(b, loc, scaleShape, scales);
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
    if (mode != "apply") {
      func.emitError() << "tessel-quantize-products: unknown mode '" << mode
                       << "' (instrument, apply)";
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
    OpBuilder b(func.getContext());
    for (auto [i, x] : llvm::enumerate(activations)) {
      if (auto arg = dyn_cast<BlockArgument>(x))
        b.setInsertionPointToStart(arg.getOwner());
      else
        b.setInsertionPointAfter(x.getDefiningOp());
      // (Lambdas cannot capture structured bindings in C++17.)
      std::pair<Value, Operation *> quantized =
          quantizeDequantize(b, x.getLoc(), x, scales[i], zeroPoints[i]);
      Operation *first = quantized.second;
      // Every reader but the quantization itself and the function's
      // results (a graph output stays exact) reads the 8-bit value, as in
      // an onnxruntime QDQ model: the producer then writes 8 bits (a
      // residual add reads them too) instead of f32 for the product and
      // f32 again for its other readers.
      x.replaceUsesWithIf(quantized.first, [&](OpOperand &use) {
        return use.getOwner() != first &&
               !isa<func::ReturnOp>(use.getOwner());
      });
    }
    for (const Candidate &c : products) {
      Operation *op = c.product;
      b.setInsertionPoint(op);
      op->setOperand(1, quantizeWeights(b, op->getLoc(), op->getOperand(1),
                                        c.channelDim));
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
