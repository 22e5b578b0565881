//===- ConvolutionPadding.cpp - Reading a padded input unpadded -----------===//
//
// The padding and per-channel shift analysis of a convolution's input, and
// where its taps reach over the tiles of a dimension.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionPadding.h"

#include "tessel/Dialect/Tessel/IR/FusionGroups.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

/// The per-channel shift of `generic` when it is `x + k` with `k` a
/// constant that varies along dimension 1 at most and `generic` has no
/// other user; sets `x` to the shifted value.
static std::optional<SmallVector<float>>
channelShiftOf(linalg::GenericOp generic, Value &x) {
  if (!generic || !generic->hasOneUse() || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() != 4)
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  DenseElementsAttr constant;
  if (!maps[0].isIdentity() || !maps[2].isIdentity() ||
      !matchPattern(generic.getDpsInputs()[1], m_Constant(&constant)) ||
      !constant.getElementType().isF32())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto add = dyn_cast<arith::AddFOp>(&body.front());
  if (!add || add->getNextNode() != body.getTerminator() ||
      body.getTerminator()->getOperand(0) != add.getResult() ||
      !((add.getLhs() == body.getArgument(0) &&
         add.getRhs() == body.getArgument(1)) ||
        (add.getLhs() == body.getArgument(1) &&
         add.getRhs() == body.getArgument(0))))
    return std::nullopt;
  // The constant is read at the channel (d1) or at 0 along each of its
  // dimensions (a constant 0, or any loop along an extent of 1).
  auto type = cast<RankedTensorType>(constant.getType());
  ArrayRef<AffineExpr> results = maps[1].getResults();
  SmallVector<bool> alongChannels;
  for (auto [i, expr] : llvm::enumerate(results)) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    auto zero = dyn_cast<AffineConstantExpr>(expr);
    bool channel = dim && dim.getPosition() == 1;
    bool atZero = (zero && zero.getValue() == 0) ||
                  (dim && !channel && type.getDimSize(i) == 1);
    if (!channel && !atZero)
      return std::nullopt;
    alongChannels.push_back(channel);
  }
  int64_t channels = generic.getStaticLoopRanges()[1];
  auto values = constant.getValues<float>();
  SmallVector<float> shift;
  for (int64_t c = 0; c < channels; ++c) {
    int64_t flat = 0;
    for (int64_t i = 0; i < type.getRank(); ++i)
      flat = flat * type.getDimSize(i) + (alongChannels[i] ? c : 0);
    shift.push_back(values[flat]);
  }
  x = generic.getDpsInputs()[0];
  return shift;
}

std::optional<ConvPadding>
mlir::tessel::cpu::paddingOf(linalg::GenericOp conv, const Conv2D &geometry) {
  auto pad = conv.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getSourceType().hasStaticShape() ||
      pad.getSourceType().getRank() != 4)
    return std::nullopt;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_AnyZeroFloat()))
    return std::nullopt;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  unsigned rowDim = geometry.rowDim(), colDim = geometry.colDim();
  for (unsigned i = 0; i < 4; ++i)
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0 ||
        (i != rowDim && i != colDim && (low[i] || high[i])))
      return std::nullopt;
  ConvPadding padding;
  padding.source = pad.getSource();
  padding.top = low[rowDim];
  padding.left = low[colDim];
  auto shifted = padding.source.getDefiningOp<linalg::GenericOp>();
  if (geometry.channelsLast || (shifted && !tessel::mayFuse(conv, shifted)))
    return padding;
  if (std::optional<SmallVector<float>> shift =
          channelShiftOf(shifted, padding.source)) {
    padding.shift = std::move(*shift);
    padding.shiftOp = shifted;
  }
  return padding;
}

Reach mlir::tessel::cpu::reachOf(int64_t size, int64_t tile, int64_t q,
                                 int64_t k, int64_t stride, int64_t dilation,
                                 int64_t offset, int64_t inputSize) {
  bool in = false, out = false;
  for (int64_t t = 0; t < size; t += tile) {
    int64_t i = (t + q) * stride + k * dilation - offset;
    (i >= 0 && i < inputSize ? in : out) = true;
  }
  return !out ? Reach::Always : !in ? Reach::Never : Reach::Sometimes;
}
