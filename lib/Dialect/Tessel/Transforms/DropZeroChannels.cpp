//===- DropZeroChannels.cpp - Structured sparsity: remove zero channels ---===//
//
// conv P (output channel c all zero) -> [relu | clip | ...]* -> conv Q
// becomes P without channel c and Q without input channel c.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Support/Remarks.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELDROPZEROCHANNELSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

DenseElementsAttr f32Constant(Value value) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !attr.getElementType().isF32())
    return {};
  return attr;
}

/// Whether `op` is elementwise, maps 0 to 0, and keeps its operand's type.
bool keepsZero(Operation *op) {
  if (isa<ReluOp, LeakyReluOp, HardSwishOp>(op))
    return true;
  if (auto clip = dyn_cast<ClipOp>(op)) {
    std::optional<llvm::APFloat> lo = clip.getMin(), hi = clip.getMax();
    return (!lo || lo->convertToDouble() <= 0.0) &&
           (!hi || hi->convertToDouble() >= 0.0);
  }
  return false;
}

RankedTensorType withChannels(Type type, int64_t channels) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[1] = channels;
  return tensor.clone(shape);
}

/// Copies `attr` (shape [.., C, ..] along `dim`) without the channels in
/// `drop`.
DenseElementsAttr dropAlong(DenseElementsAttr attr, int64_t dim,
                            const llvm::SmallDenseSet<int64_t> &drop) {
  auto type = cast<RankedTensorType>(attr.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (int64_t d = dim + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  auto values = attr.getValues<float>();
  SmallVector<float> kept;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < shape[dim]; ++c) {
      if (drop.contains(c))
        continue;
      for (int64_t i = 0; i < inner; ++i)
        kept.push_back(values[(o * shape[dim] + c) * inner + i]);
    }
  SmallVector<int64_t> newShape(shape);
  newShape[dim] -= int64_t(drop.size());
  return DenseElementsAttr::get(type.clone(newShape), ArrayRef<float>(kept));
}

/// Tries the rewrite on producer `conv`; returns the channels dropped.
int64_t dropZeroChannels(ConvOp conv, int64_t multiple) {
  if (conv.getGroup() != 1)
    return 0;
  DenseElementsAttr weight = f32Constant(conv.getWeight());
  DenseElementsAttr bias;
  if (!weight || (conv.getBias() && !(bias = f32Constant(conv.getBias()))))
    return 0;
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t channels = weightType.getDimSize(0);
  int64_t perChannel = weightType.getNumElements() / channels;
  auto values = weight.getValues<float>();
  llvm::SmallDenseSet<int64_t> zero;
  for (int64_t c = 0; c < channels; ++c) {
    bool allZero = !bias || bias.getValues<float>()[c] == 0.0f;
    for (int64_t i = 0; allZero && i < perChannel; ++i)
      allZero = values[c * perChannel + i] == 0.0f;
    if (allZero)
      zero.insert(c);
  }
  // Keep the channel count a multiple of `multiple` when it is one.
  if (multiple > 1 && channels % multiple == 0) {
    int64_t keepZero = int64_t(zero.size()) % multiple;
    SmallVector<int64_t> sorted(zero.begin(), zero.end());
    llvm::sort(sorted);
    for (int64_t i = 0; i < keepZero; ++i)
      zero.erase(sorted[sorted.size() - 1 - i]);
  }
  if (zero.empty() || int64_t(zero.size()) == channels)
    return 0;

  // The single-use path to the consuming conv.
  SmallVector<Operation *> chain;
  Value value = conv.getResult();
  while (value.hasOneUse() && keepsZero(*value.getUsers().begin())) {
    chain.push_back(*value.getUsers().begin());
    value = chain.back()->getResult(0);
  }
  if (!value.hasOneUse())
    return 0;
  auto consumer = dyn_cast<ConvOp>(*value.getUsers().begin());
  DenseElementsAttr consumerWeight =
      consumer ? f32Constant(consumer.getWeight()) : DenseElementsAttr();
  if (!consumer || consumer.getInput() != value || consumer.getGroup() != 1 ||
      !consumerWeight)
    return 0;

  // 0 * Inf is NaN: a dropped channel must meet only finite weights.
  {
    auto type = cast<RankedTensorType>(consumerWeight.getType());
    int64_t inputs = type.getDimSize(1);
    int64_t taps = type.getNumElements() / (type.getDimSize(0) * inputs);
    auto weights = consumerWeight.getValues<float>();
    for (int64_t o = 0; o < type.getDimSize(0); ++o)
      for (int64_t c : zero)
        for (int64_t t = 0; t < taps; ++t)
          if (!std::isfinite(weights[(o * inputs + c) * taps + t]))
            return 0;
  }
  int64_t kept = channels - int64_t(zero.size());
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  Value newWeight =
      ConstantOp::create(builder, loc, dropAlong(weight, 0, zero));
  Value newBias;
  if (bias)
    newBias = ConstantOp::create(builder, loc, dropAlong(bias, 0, zero));
  auto producer = ConvOp::create(
      builder, loc, withChannels(conv.getType(), kept), conv.getInput(),
      newWeight, newBias, conv.getStridesAttr(), conv.getPadsAttr(),
      conv.getDilationsAttr(), conv.getGroupAttr());
  Value current = producer.getResult();
  for (Operation *op : chain) {
    op->setOperand(0, current);
    op->getResult(0).setType(withChannels(op->getResult(0).getType(), kept));
    current = op->getResult(0);
  }
  builder.setInsertionPoint(consumer);
  Value narrowed = ConstantOp::create(builder, consumer.getLoc(),
                                      dropAlong(consumerWeight, 1, zero));
  auto replacement = ConvOp::create(
      builder, consumer.getLoc(), consumer.getType(), current, narrowed,
      consumer.getBias(), consumer.getStridesAttr(), consumer.getPadsAttr(),
      consumer.getDilationsAttr(), consumer.getGroupAttr());
  consumer.replaceAllUsesWith(replacement.getResult());
  consumer.erase();
  conv.erase();
  return int64_t(zero.size());
}

struct TesselDropZeroChannelsPass
    : public tessel::impl::TesselDropZeroChannelsPassBase<
          TesselDropZeroChannelsPass> {
  using Base::Base;
  void runOnOperation() override {
    // A rewrite replaces the consumer, which may have zero channels of its
    // own (a chain of pruned convs): look again until nothing changes.
    int64_t dropped = 0;
    for (bool changed = true; changed;) {
      changed = false;
      getOperation().walk([&](ConvOp conv) {
        int64_t count = dropZeroChannels(conv, channelMultiple);
        dropped += count;
        changed = count > 0;
        return changed ? WalkResult::interrupt() : WalkResult::advance();
      });
    }
    if (dropped) {
      ModuleOp module = getOperation();
      remark::analysis(module.getLoc(),
                       remark::RemarkOpts::name(kDroppedChannelsRemark)
                           .category(kRemarkCategory))
          << remark::metric("channels", dropped);
    }
  }
};

} // namespace
