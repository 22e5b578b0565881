//===- Convolution2D.cpp - The 2-D convolution generic --------------------===//

#include "Convolution2D.h"

#include "AffineProbes.h"
#include "ParallelMarks.h"

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using mlir::tessel::cpu::Conv2D;

/// Whether the body is `out + in0 * in1` on f32.
static bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add =
      dyn_cast_or_null<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || !yield || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add.getResult())
    return false;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1),
        out = body.getArgument(2);
  bool mulOk = (mul.getLhs() == in0 && mul.getRhs() == in1) ||
               (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  return mulOk && addOk;
}

/// The reduction group of a body `out + ext(in0) * ext(in1)`, each input
/// extended once: 4 for 8-bit inputs (extended signed or unsigned) into
/// i32, 2 for bf16 ones into f32 (vdpbf16ps's pairs), 1 for f16 ones; 0
/// for anything else.
static int64_t narrowMultiplyAccumulateGroup(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 5)
    return 0;
  Type acc = body.getArgument(2).getType();
  bool integer = acc.isInteger(32);
  if (!integer && !acc.isF32())
    return 0;
  auto extended = [&](Value v, unsigned arg) {
    Operation *ext = v.getDefiningOp();
    if (!ext || ext->getOperand(0) != body.getArgument(arg))
      return false;
    Type narrow = body.getArgument(arg).getType();
    return integer ? isa<arith::ExtSIOp, arith::ExtUIOp>(ext) &&
                         narrow.isInteger(8)
                   : isa<arith::ExtFOp>(ext) &&
                         (narrow.isBF16() || narrow.isF16());
  };
  Operation *yield = body.getTerminator();
  Operation *add = yield->getNumOperands() == 1
                       ? yield->getOperand(0).getDefiningOp()
                       : nullptr;
  if (!add || !(integer ? isa<arith::AddIOp>(add) : isa<arith::AddFOp>(add)))
    return 0;
  Value out = body.getArgument(2);
  Value product = add->getOperand(0) == out ? add->getOperand(1)
                                            : add->getOperand(0);
  Operation *mul = product.getDefiningOp();
  if (!mul || !(integer ? isa<arith::MulIOp>(mul) : isa<arith::MulFOp>(mul)) ||
      !llvm::is_contained(add->getOperands(), out))
    return 0;
  bool ok = (extended(mul->getOperand(0), 0) &&
             extended(mul->getOperand(1), 1)) ||
            (extended(mul->getOperand(0), 1) &&
             extended(mul->getOperand(1), 0));
  if (!ok)
    return 0;
  return integer ? 4 : body.getArgument(0).getType().isF16() ? 1 : 2;
}

std::optional<Conv2D> mlir::tessel::cpu::matchConv2D(linalg::GenericOp op,
                                                     bool allowNarrow) {
  if (op.getNumLoops() != 7 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      op.hasDynamicShape())
    return std::nullopt;
  Conv2D conv;
  if (int64_t group = allowNarrow ? narrowMultiplyAccumulateGroup(op) : 0) {
    conv.narrow = true;
    conv.reductionGroup = group;
  } else if (!isMultiplyAccumulate(op)) {
    return std::nullopt;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int i = 0; i < 7; ++i)
    if (iterators[i] != (i < 4 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  for (Value v : op->getOperands())
    if (!conv.narrow && !getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] == AffineMap::get(7, 0, {d(0), d(2), d(3), d(1)}, ctx))
    conv.channelsLast = true;
  else if (maps[2] != AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx))
    return std::nullopt;
  if (maps[1] != AffineMap::get(7, 0, {d(1), d(4), d(5), d(6)}, ctx) ||
      maps[0].getNumResults() != 4 || maps[0].getResult(0) != d(0))
    return std::nullopt;

  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto weightType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  conv.batch = outType.getDimSize(0);
  conv.filters = outType.getDimSize(conv.channelDim());
  conv.outHeight = outType.getDimSize(conv.rowDim());
  conv.outWidth = outType.getDimSize(conv.colDim());
  conv.channelsPerGroup = weightType.getDimSize(1);
  conv.kernelHeight = weightType.getDimSize(2);
  conv.kernelWidth = weightType.getDimSize(3);
  int64_t groups =
      inputType.getDimSize(conv.channelDim()) / conv.channelsPerGroup;
  if (groups < 1 || conv.filters % groups != 0)
    return std::nullopt;
  conv.filtersPerGroup = conv.filters / groups;

  auto rows = tessel::cpu::linearIn(maps[0].getResult(conv.rowDim()), 2, 5, 7);
  auto cols = tessel::cpu::linearIn(maps[0].getResult(conv.colDim()), 3, 6, 7);
  if (!rows || !cols)
    return std::nullopt;
  std::tie(conv.strideH, conv.dilationH) = *rows;
  std::tie(conv.strideW, conv.dilationW) = *cols;

  // The input channel: (f floordiv filtersPerGroup) * channelsPerGroup + c.
  AffineExpr channel = maps[0].getResult(conv.channelDim());
  for (int d = 0; d < 7; ++d)
    if (d != 1 && d != 4 && channel.isFunctionOfDim(d))
      return std::nullopt;
  for (int64_t f :
       {int64_t(0), conv.filtersPerGroup - 1,
        std::min(conv.filtersPerGroup, conv.filters - 1), conv.filters - 1})
    for (int64_t c : {int64_t(0), conv.channelsPerGroup - 1})
      if (tessel::cpu::evaluate(channel,
                                tessel::cpu::at(7, {{1, f}, {4, c}})) !=
          (f / conv.filtersPerGroup) * conv.channelsPerGroup + c)
        return std::nullopt;
  return conv;
}

int64_t mlir::tessel::cpu::convolutionWork(const Conv2D &conv) {
  return workOf({conv.batch, conv.filters, conv.outHeight, conv.outWidth,
                 conv.channelsPerGroup, conv.kernelHeight, conv.kernelWidth});
}

const tessel::MicroKernel *mlir::tessel::cpu::getConvolutionMicroKernel(
    linalg::GenericOp op, const ConvolutionTilingOptions &options) {
  const MicroKernel *microKernel = options.microKernel;
  if (!microKernel) {
    auto elementType = [](Value v) {
      return getElementTypeOrSelf(v.getType());
    };
    microKernel = getMicroKernel(
        describeVectorTarget(options.vectorWidth, options.accumulators),
        elementType(op.getDpsInputs()[0]), elementType(op.getDpsInputs()[1]),
        elementType(op.getDpsInits()[0]));
  }
  return microKernel && microKernel->getReductionGroup() == 1 ? microKernel
                                                              : nullptr;
}

bool mlir::tessel::cpu::imagesInsideFilterBlocks(const Conv2D &conv,
                                                 int64_t block,
                                                 int64_t inHeight,
                                                 int64_t inWidth) {
  return conv.batch > 1 &&
         workOf({block, conv.kernelHeight, conv.kernelWidth}) >
             workOf({inHeight, inWidth});
}
