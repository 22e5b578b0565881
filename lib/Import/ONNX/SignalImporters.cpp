//===- SignalImporters.cpp - Window functions ----------------------------===//
//
// HannWindow, HammingWindow and BlackmanWindow (opset 17). Their only input
// is the window's length, which decides the output shape: it must be a
// constant (or fixed with --input-value), and the window is then computed at
// compile time, in double precision, as one constant.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// The generalized cosine window sum_k (-1)^k a_k cos(2 pi k n / N).
LogicalResult importCosineWindow(NodeContext &ctx,
                                 SmallVectorImpl<Value> &results,
                                 ArrayRef<double> coefficients) {
  std::optional<double> size = ctx.constantScalar(0);
  if (!size)
    return ctx.failNonConstant(
        "the window size must be a constant (it decides the output shape)",
        /*firstInput=*/0);
  if (*size < 0 || *size > double(int64_t(1) << 24) ||
      *size != std::floor(*size))
    return ctx.fail("window size " + std::to_string(*size) +
                    " is not an integer in [0, 2^24]");
  int64_t length = static_cast<int64_t>(*size);
  int32_t dtype = static_cast<int32_t>(
      ctx.intAttr("output_datatype", onnx::TensorProto::FLOAT));
  Type element = convertElementType(ctx.builder.getContext(), dtype);
  if (!element ||
      isa<IntegerType>(element) && element.getIntOrFloatBitWidth() == 1)
    return ctx.fail("unsupported output_datatype " + elementTypeName(dtype));
  // A periodic window (the default) has period N = size; a symmetric one
  // N = size - 1.
  bool periodic = ctx.intAttr("periodic", 1) != 0;
  double period = periodic ? double(length) : double(length - 1);
  const double tau = 2.0 * M_PI;
  SmallVector<double> window;
  for (int64_t n = 0; n < length; ++n) {
    double value = 0;
    for (auto [k, a] : llvm::enumerate(coefficients)) {
      double term = k == 0 ? a : a * std::cos(tau * double(k) * n / period);
      value += (k % 2 ? -term : term);
    }
    window.push_back(period == 0 ? coefficients[0] : value);
  }
  auto type = RankedTensorType::get({length}, element);
  DenseElementsAttr attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (double v : window) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(f);
    }
    attr = DenseElementsAttr::get(type, values);
  } else {
    // Integer windows truncate toward zero, as ONNX's Cast does.
    auto intType = cast<IntegerType>(element);
    SmallVector<APInt> values;
    for (double v : window)
      values.push_back(APInt(intType.getWidth(), static_cast<int64_t>(v),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    attr = DenseElementsAttr::get(type, values);
  }
  return ctx.emit<ConstantOp>(results, attr);
}

} // namespace

void mlir::tessel::onnx_import::registerSignalImporters(
    ImporterRegistry &registry) {
  registry.add(
      "HannWindow",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importCosineWindow(ctx, results, {0.5, 0.5});
      },
      {1, 1}, 17);
  registry.add(
      "HammingWindow",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importCosineWindow(ctx, results, {25.0 / 46.0, 21.0 / 46.0});
      },
      {1, 1}, 17);
  registry.add(
      "BlackmanWindow",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importCosineWindow(ctx, results, {0.42, 0.5, 0.08});
      },
      {1, 1}, 17);
}
