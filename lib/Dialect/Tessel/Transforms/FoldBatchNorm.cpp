//===- FoldBatchNorm.cpp - Fold inference BatchNorm into conv / gemm ------===//
//
// batch_norm(conv(x, W, b)) -> conv(x, W * k, (b - mean) * k + beta), with
// k = scale / sqrt(var + epsilon) per output channel; likewise for a rank-2
// gemm, whose output columns are the channels. All in f32 on constants.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <cmath>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFOLDBATCHNORMPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The batch norm's per-channel factor k and shift (beta - mean * k), for
/// `channels` channels; nothing when its vectors are not f32 constants of
/// that extent.
struct Affine {
  std::vector<float> k, mean, beta;
};
std::optional<Affine> foldedAffine(BatchNormOp bn, int64_t channels) {
  auto scale = getConstantF32Values(bn.getScale());
  auto beta = getConstantF32Values(bn.getBias());
  auto mean = getConstantF32Values(bn.getMean());
  auto var = getConstantF32Values(bn.getVar());
  if (!scale || !beta || !mean || !var)
    return std::nullopt;
  for (auto *v : {&*scale, &*beta, &*mean, &*var})
    if (int64_t(v->size()) != channels)
      return std::nullopt;
  float epsilon = bn.getEpsilon().convertToFloat();
  Affine affine;
  affine.k.resize(size_t(channels));
  for (int64_t c = 0; c < channels; ++c)
    affine.k[c] = (*scale)[c] / std::sqrt((*var)[c] + epsilon);
  affine.mean = std::move(*mean);
  affine.beta = std::move(*beta);
  return affine;
}

/// conv -> batch_norm.
LogicalResult foldIntoConv(BatchNormOp bn, ConvOp conv) {
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t channels = weightType.getDimSize(0);
  auto weight = getConstantF32Values(conv.getWeight());
  if (!weight || !hasOnlyF32Tensors(conv))
    return failure();
  std::optional<std::vector<float>> bias;
  if (conv.getBias()) {
    bias = getConstantF32Values(conv.getBias());
    if (!bias || int64_t(bias->size()) != channels)
      return failure();
  }
  std::optional<Affine> affine = foldedAffine(bn, channels);
  if (!affine)
    return failure();

  size_t perChannel = weight->size() / size_t(channels);
  for (int64_t c = 0; c < channels; ++c)
    for (size_t i = 0; i < perChannel; ++i)
      (*weight)[size_t(c) * perChannel + i] *= affine->k[c];
  std::vector<float> newBias(static_cast<size_t>(channels), 0.0f);
  for (int64_t c = 0; c < channels; ++c)
    newBias[c] = ((bias ? (*bias)[c] : 0.0f) - affine->mean[c]) * affine->k[c] +
                 affine->beta[c];

  OpBuilder builder(bn);
  Location loc = builder.getFusedLoc({conv.getLoc(), bn.getLoc()});
  Value w = createF32Constant(builder, loc, weightType.getShape(), *weight);
  Value b = createF32Constant(builder, loc, {channels}, newBias);
  auto folded = ConvOp::create(builder, loc, bn.getType(), conv.getInput(), w,
                               b, conv.getStridesAttr(), conv.getPadsAttr(),
                               conv.getDilationsAttr(), conv.getGroupAttr());
  bn.replaceAllUsesWith(folded.getResult());
  bn.erase();
  conv.erase();
  return success();
}

/// rank-2 gemm -> batch_norm: channels are the output's columns.
LogicalResult foldIntoGemm(BatchNormOp bn, GemmOp gemm) {
  auto resultType = cast<RankedTensorType>(gemm.getType());
  if (resultType.getRank() != 2 || !hasOnlyF32Tensors(gemm))
    return failure();
  int64_t rows = resultType.getDimSize(0), channels = resultType.getDimSize(1);
  auto bType = cast<RankedTensorType>(gemm.getB().getType());
  auto b = getConstantF32Values(gemm.getB());
  if (!b)
    return failure();
  // C broadcasts to [rows, channels]; the folded bias is per channel unless C
  // varies along the rows.
  std::vector<float> c(size_t(rows * channels), 0.0f);
  bool perRow = false;
  if (gemm.getC()) {
    auto cValues = getConstantF32Values(gemm.getC());
    if (!cValues)
      return failure();
    auto cType = cast<RankedTensorType>(gemm.getC().getType());
    ArrayRef<int64_t> shape = cType.getShape();
    int64_t cRows = shape.size() == 2 ? shape[0] : 1;
    int64_t cCols = shape.empty() ? 1 : shape.back();
    perRow = cRows != 1;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t n = 0; n < channels; ++n)
        c[r * channels + n] =
            (*cValues)[(cRows == 1 ? 0 : r) * cCols + (cCols == 1 ? 0 : n)];
  }
  std::optional<Affine> affine = foldedAffine(bn, channels);
  if (!affine)
    return failure();

  // y[r, n] = alpha * sum_k A[r, k] B[k, n] + beta * C[r, n]; B's column n is
  // B[n, :] when trans_b.
  bool transB = gemm.getTransB();
  int64_t inner = transB ? bType.getDimSize(1) : bType.getDimSize(0);
  for (int64_t n = 0; n < channels; ++n)
    for (int64_t k = 0; k < inner; ++k)
      (*b)[transB ? n * inner + k : k * channels + n] *= affine->k[n];
  float beta = gemm.getBeta().convertToFloat();
  int64_t biasRows = perRow ? rows : 1;
  std::vector<float> bias(size_t(biasRows * channels));
  for (int64_t r = 0; r < biasRows; ++r)
    for (int64_t n = 0; n < channels; ++n)
      bias[r * channels + n] =
          (beta * c[r * channels + n] - affine->mean[n]) * affine->k[n] +
          affine->beta[n];

  OpBuilder builder(bn);
  Location loc = builder.getFusedLoc({gemm.getLoc(), bn.getLoc()});
  Value newB = createF32Constant(builder, loc, bType.getShape(), *b);
  Value newC = perRow ? createF32Constant(builder, loc, {rows, channels}, bias)
                      : createF32Constant(builder, loc, {channels}, bias);
  auto folded =
      GemmOp::create(builder, loc, bn.getType(), gemm.getA(), newB, newC,
                     gemm.getAlphaAttr(), builder.getF32FloatAttr(1.0f),
                     gemm.getTransAAttr(), gemm.getTransBAttr());
  bn.replaceAllUsesWith(folded.getResult());
  bn.erase();
  gemm.erase();
  return success();
}

struct TesselFoldBatchNormPass
    : public tessel::impl::TesselFoldBatchNormPassBase<
          TesselFoldBatchNormPass> {
  void runOnOperation() override {
    SmallVector<BatchNormOp> norms;
    getOperation().walk([&](BatchNormOp bn) { norms.push_back(bn); });
    for (BatchNormOp bn : norms) {
      Operation *producer = bn.getInput().getDefiningOp();
      // A producer with other users would have to be kept as well.
      if (!producer || !producer->hasOneUse() || !hasOnlyF32Tensors(bn))
        continue;
      if (auto conv = dyn_cast<ConvOp>(producer))
        (void)foldIntoConv(bn, conv);
      else if (auto gemm = dyn_cast<GemmOp>(producer))
        (void)foldIntoGemm(bn, gemm);
    }
  }
};

} // namespace
