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

/// Whether the body is `out + ext(in0) * ext(in1)` on i32, the inputs
/// 8-bit and each extended (signed or unsigned) once.
static bool isNarrowMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 5 ||
      !body.getArgument(2).getType().isInteger(32))
    return false;
  auto extended = [&](Value v, unsigned arg) {
    Operation *ext = v.getDefiningOp();
    return ext && isa<arith::ExtSIOp, arith::ExtUIOp>(ext) &&
           ext->getOperand(0) == body.getArgument(arg) &&
           body.getArgument(arg).getType().isInteger(8);
  };
  Operation *yield = body.getTerminator();
  auto add = yield->getNumOperands() == 1
                 ? yield->getOperand(0).getDefiningOp<arith::AddIOp>()
                 : nullptr;
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulIOp>();
  if (!mul || !llvm::is_contained(add->getOperands(), out))
    return false;
  return (extended(mul.getLhs(), 0) && extended(mul.getRhs(), 1)) ||
         (extended(mul.getLhs(), 1) && extended(mul.getRhs(), 0));
}

std::optional<Conv2D> mlir::tessel::cpu::matchConv2D(linalg::GenericOp op,
                                                     bool allowIntegers) {
  if (op.getNumLoops() != 7 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      op.hasDynamicShape())
    return std::nullopt;
  Conv2D conv;
  if (allowIntegers && isNarrowMultiplyAccumulate(op))
    conv.integer = true;
  else if (!isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int i = 0; i < 7; ++i)
    if (iterators[i] != (i < 4 ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction))
      return std::nullopt;
  for (Value v : op->getOperands())
    if (!conv.integer && !getElementTypeOrSelf(v.getType()).isF32())
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
