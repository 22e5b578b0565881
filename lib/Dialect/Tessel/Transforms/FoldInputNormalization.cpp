//===- FoldInputNormalization.cpp - Fold x * a + b into the first layer ---===//
//
// A chain of add/sub/mul/div by per-channel constants on a graph input (or
// on its cast, transposed, reshaped, resized or cropped value) is the
// affine map a[c] * x + b[c]; its scale moves into the weights of the
// conv or gemm it feeds, and its shift into the bias (or, in front of a
// padded conv, stays as one add on the input).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDINPUTNORMALIZATIONPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// a[c] * x + b[c] over the channels (dimension 1) of the chain's input,
/// and the chain's ops, first to last.
struct Normalizer {
  Value input;
  std::vector<float> scale, shift;
  SmallVector<Operation *> chain;

  Value output() const { return chain.back()->getResult(0); }
  bool shifts() const {
    return llvm::any_of(shift, [](float v) { return v != 0.0f; });
  }
};

/// The per-channel values of `value`, a constant that broadcasts (right
/// aligned, numpy-style) to `type` along dimension 1 only; nothing else.
std::optional<std::vector<float>> perChannel(Value value,
                                             RankedTensorType type) {
  auto constantType = dyn_cast<RankedTensorType>(value.getType());
  std::optional<std::vector<float>> values = getConstantF32Values(value);
  if (!constantType || !values || constantType.getRank() > type.getRank())
    return std::nullopt;
  int64_t channels = type.getDimSize(1);
  int64_t offset = type.getRank() - constantType.getRank();
  bool alongChannels = false;
  for (int64_t i = 0; i < constantType.getRank(); ++i) {
    int64_t extent = constantType.getDimSize(i);
    if (extent == 1)
      continue;
    if (i + offset != 1 || extent != channels)
      return std::nullopt;
    alongChannels = true;
  }
  // All other extents are 1, so the flat index is the channel.
  if (!alongChannels)
    return std::vector<float>(size_t(channels), values->front());
  return values;
}

/// Extends `norm` by `op` when `op` is an add, sub, mul or div of the chain's
/// value by a per-channel constant; false otherwise.
bool extend(Normalizer &norm, Operation *op, Value current) {
  if (op->getNumOperands() != 2 || op->getNumResults() != 1 ||
      op->getResult(0).getType() != norm.input.getType())
    return false;
  auto type = cast<RankedTensorType>(norm.input.getType());
  bool currentFirst = op->getOperand(0) == current;
  Value other = op->getOperand(currentFirst ? 1 : 0);
  if (other == current)
    return false;
  std::optional<std::vector<float>> k = perChannel(other, type);
  if (!k)
    return false;
  auto &a = norm.scale, &b = norm.shift;
  size_t channels = a.size();
  if (isa<AddOp>(op)) {
    for (size_t c = 0; c < channels; ++c)
      b[c] += (*k)[c];
  } else if (isa<SubOp>(op)) {
    // x - k, or k - x.
    for (size_t c = 0; c < channels; ++c) {
      if (currentFirst) {
        b[c] -= (*k)[c];
      } else {
        a[c] = -a[c];
        b[c] = (*k)[c] - b[c];
      }
    }
  } else if (isa<MulOp>(op)) {
    for (size_t c = 0; c < channels; ++c) {
      a[c] *= (*k)[c];
      b[c] *= (*k)[c];
    }
  } else if (isa<DivOp>(op) && currentFirst) {
    // k / x is not affine.
    for (size_t c = 0; c < channels; ++c) {
      a[c] /= (*k)[c];
      b[c] /= (*k)[c];
    }
  } else {
    return false;
  }
  norm.chain.push_back(op);
  return true;
}

/// The longest normaliser chain on `input` whose ops each have one user.
std::optional<Normalizer> normalizerOf(Value input) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getElementType().isF32() || !input.hasOneUse())
    return std::nullopt;
  Normalizer norm;
  norm.input = input;
  norm.scale.assign(size_t(type.getDimSize(1)), 1.0f);
  norm.shift.assign(size_t(type.getDimSize(1)), 0.0f);
  Value current = input;
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (!extend(norm, user, current))
      break;
    current = user->getResult(0);
  }
  if (norm.chain.empty())
    return std::nullopt;
  return norm;
}

Location fusedLoc(OpBuilder &builder, const Normalizer &norm, Operation *op) {
  SmallVector<Location> locs;
  for (Operation *link : norm.chain)
    locs.push_back(link->getLoc());
  locs.push_back(op->getLoc());
  return builder.getFusedLoc(locs);
}

void eraseChain(Normalizer &norm) {
  for (Operation *op : llvm::reverse(norm.chain))
    op->erase();
}

LogicalResult foldIntoConv(Normalizer &norm, ConvOp conv) {
  if (conv.getInput() != norm.output() || !hasOnlyF32Tensors(conv))
    return failure();
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  std::optional<std::vector<float>> weight =
      getConstantF32Values(conv.getWeight());
  if (!weight)
    return failure();
  int64_t filters = weightType.getDimSize(0);
  int64_t channelsPerGroup = weightType.getDimSize(1);
  int64_t filtersPerGroup = filters / conv.getGroup();
  std::vector<float> bias(size_t(filters), 0.0f);
  if (conv.getBias()) {
    std::optional<std::vector<float>> values =
        getConstantF32Values(conv.getBias());
    if (!values || int64_t(values->size()) != filters)
      return failure();
    bias = std::move(*values);
  }
  // Zero padding is the raw value -b / a: with a shift, only an unpadded
  // conv takes the shift into its bias.
  bool padded = llvm::any_of(conv.getPads(), [](int64_t p) { return p; });
  bool keepShift = padded && norm.shifts();
  // A zero scale has no shift on the input that does the same; a lone add
  // is already that shift.
  bool alreadyShift =
      norm.chain.size() == 1 && isa<AddOp>(norm.chain.front()) &&
      llvm::all_of(norm.scale, [](float a) { return a == 1.0f; });
  if (keepShift && (llvm::is_contained(norm.scale, 0.0f) || alreadyShift))
    return failure();

  size_t perFilter = weight->size() / size_t(filters);
  size_t taps = perFilter / size_t(channelsPerGroup);
  for (int64_t o = 0; o < filters; ++o) {
    int64_t channelBase = (o / filtersPerGroup) * channelsPerGroup;
    for (int64_t i = 0; i < channelsPerGroup; ++i) {
      size_t c = size_t(channelBase + i);
      for (size_t t = 0; t < taps; ++t) {
        float &w = (*weight)[size_t(o) * perFilter + size_t(i) * taps + t];
        if (!keepShift)
          bias[o] += w * norm.shift[c];
        w *= norm.scale[c];
      }
    }
  }

  OpBuilder builder(conv);
  Location loc = fusedLoc(builder, norm, conv);
  Value input = norm.input;
  Operation *replacedTranspose = nullptr;
  if (keepShift) {
    // (W * a) applied to x + b / a is W applied to a * x + b.
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape(inputType.getRank(), 1);
    shape[1] = inputType.getDimSize(1);
    std::vector<float> shift(norm.shift.size());
    for (size_t c = 0; c < shift.size(); ++c)
      shift[c] = norm.shift[c] / norm.scale[c];
    SmallVector<Location> chainLocs;
    for (Operation *link : norm.chain)
      chainLocs.push_back(link->getLoc());
    Location shiftLoc = builder.getFusedLoc(chainLocs);
    auto transpose = input.getDefiningOp<TransposeOp>();
    if (transpose && transpose->hasOneUse() &&
        llvm::is_contained(norm.chain, *input.getUsers().begin())) {
      // The input is a transposed value (an image's HWC pixels made NCHW):
      // the shift goes in front of the transpose, with the channels on the
      // axis they come from, so that the conversion kernel adds it as it
      // writes and the convolution reads a plain tensor.
      ArrayRef<int64_t> perm = transpose.getPerm();
      SmallVector<int64_t> sourceShape(shape.size(), 1);
      sourceShape[perm[1]] = shape[1];
      Value source = transpose.getInput();
      builder.setInsertionPoint(transpose);
      Value shifted = AddOp::create(
          builder, shiftLoc, source,
          createF32Constant(builder, shiftLoc, sourceShape, shift));
      input = TransposeOp::create(builder, transpose.getLoc(),
                                  transpose.getType(), shifted,
                                  transpose.getPermAttr());
      builder.setInsertionPoint(conv);
      replacedTranspose = transpose;
    } else {
      input = AddOp::create(builder, shiftLoc, input,
                            createF32Constant(builder, shiftLoc, shape, shift));
    }
  }
  Value w = createF32Constant(builder, loc, weightType.getShape(), *weight);
  Value b = createF32Constant(builder, loc, {filters}, bias);
  auto folded = ConvOp::create(builder, loc, conv.getType(), input, w, b,
                               conv.getStridesAttr(), conv.getPadsAttr(),
                               conv.getDilationsAttr(), conv.getGroupAttr());
  conv.replaceAllUsesWith(folded.getResult());
  conv.erase();
  eraseChain(norm);
  if (replacedTranspose)
    replacedTranspose->erase();
  return success();
}

LogicalResult foldIntoGemm(Normalizer &norm, GemmOp gemm) {
  auto resultType = cast<RankedTensorType>(gemm.getType());
  if (gemm.getA() != norm.output() || gemm.getTransA() ||
      resultType.getRank() != 2 || !hasOnlyF32Tensors(gemm))
    return failure();
  auto bType = cast<RankedTensorType>(gemm.getB().getType());
  std::optional<std::vector<float>> b = getConstantF32Values(gemm.getB());
  if (!b)
    return failure();
  int64_t columns = resultType.getDimSize(1);
  int64_t inner = int64_t(norm.scale.size());
  // C, when there is one, must be the same for every row: the folded bias
  // is one row.
  float alpha = gemm.getAlpha().convertToFloat();
  float beta = gemm.getBeta().convertToFloat();
  std::vector<float> bias(size_t(columns), 0.0f);
  if (Value c = gemm.getC()) {
    auto cType = cast<RankedTensorType>(c.getType());
    std::optional<std::vector<float>> values = getConstantF32Values(c);
    if (!values || (cType.getRank() == 2 && cType.getDimSize(0) != 1))
      return failure();
    bool perColumn = cType.getRank() > 0 && cType.getShape().back() != 1;
    for (int64_t n = 0; n < columns; ++n)
      bias[n] = beta * (*values)[perColumn ? n : 0];
  }

  // Column n of B is B[n, :] when trans_b.
  bool transB = gemm.getTransB();
  for (int64_t k = 0; k < inner; ++k)
    for (int64_t n = 0; n < columns; ++n) {
      float &w = (*b)[transB ? n * inner + k : k * columns + n];
      bias[n] += alpha * w * norm.shift[k];
      w *= norm.scale[k];
    }

  OpBuilder builder(gemm);
  Location loc = fusedLoc(builder, norm, gemm);
  Value newB = createF32Constant(builder, loc, bType.getShape(), *b);
  Value newC = createF32Constant(builder, loc, {columns}, bias);
  auto folded =
      GemmOp::create(builder, loc, gemm.getType(), norm.input, newB, newC,
                     gemm.getAlphaAttr(), builder.getF32FloatAttr(1.0f),
                     gemm.getTransAAttr(), gemm.getTransBAttr());
  gemm.replaceAllUsesWith(folded.getResult());
  gemm.erase();
  eraseChain(norm);
  return success();
}

struct TesselFoldInputNormalizationPass
    : public tessel::impl::TesselFoldInputNormalizationPassBase<
          TesselFoldInputNormalizationPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (BlockArgument input : func.getArguments()) {
      // The input itself, or what its conversion to the model's tensor
      // made of it (a cast, a layout change, a resize or a crop: what
      // --preprocess prepends, and what exporters write before a
      // normaliser), each link with one user.
      Value start = input;
      std::optional<Normalizer> norm = normalizerOf(start);
      while (!norm && start.hasOneUse()) {
        Operation *user = *start.getUsers().begin();
        if (!isa<CastOp, TransposeOp, ReshapeOp, SliceOp, ResizeOp, RoundOp>(
                user) ||
            user->getNumResults() != 1 || user->getOperand(0) != start)
          break;
        start = user->getResult(0);
        norm = normalizerOf(start);
      }
      if (!norm || !norm->output().hasOneUse())
        continue;
      Operation *consumer = *norm->output().getUsers().begin();
      if (auto conv = dyn_cast<ConvOp>(consumer))
        (void)foldIntoConv(*norm, conv);
      else if (auto gemm = dyn_cast<GemmOp>(consumer))
        (void)foldIntoGemm(*norm, gemm);
    }
  }
};

} // namespace
