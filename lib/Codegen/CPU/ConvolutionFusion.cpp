//===- ConvolutionFusion.cpp - What a vectorized conv absorbs -------------===//

#include "ConvolutionFusion.h"

#include "KernelMarks.h"

#include "tessel/Codegen/KernelGroup.h"
#include "tessel/Support/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel::cpu;

static bool allParallel(linalg::GenericOp op) {
  return llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
}

ConvPrologue mlir::tessel::cpu::matchPrologue(linalg::GenericOp conv,
                                              unsigned channelDim) {
  Value out = conv.getDpsInits()[0];
  ConvPrologue none{out, Value(), false, nullptr};
  Operation *producer = getKernelPrologue(conv);
  if (!producer)
    return none;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    if (!matchPattern(fill.getInputs()[0], m_PosZeroFloat()))
      return none;
    return {fill.getOutputs()[0], Value(), true, fill};
  }
  auto broadcast = dyn_cast<linalg::GenericOp>(producer);
  if (!broadcast || broadcast.getNumDpsInputs() != 1 ||
      broadcast.getNumDpsInits() != 1 || !allParallel(broadcast) ||
      broadcast.getNumLoops() != 4)
    return none;
  MLIRContext *ctx = conv.getContext();
  SmallVector<AffineMap> maps = broadcast.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(4, 0, getAffineDimExpr(channelDim, ctx), ctx) ||
      !maps[1].isIdentity())
    return none;
  Block &body = broadcast.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || yield.getValues().size() != 1 ||
      yield.getValues()[0] != body.getArgument(0))
    return none;
  Value bias = broadcast.getDpsInputs()[0];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  if (!biasType || biasType.getRank() != 1 ||
      !biasType.getElementType().isF32())
    return none;
  return {broadcast.getDpsInits()[0], bias, false, broadcast};
}

std::optional<ConvEpilogue>
mlir::tessel::cpu::matchEpilogue(linalg::GenericOp conv) {
  Value result = conv.getResult(0);
  linalg::GenericOp op = getKernelEpilogue(conv, result);
  // The kernel reads the epilogue's other inputs at the accumulators'
  // positions (identity maps only) and stores its result where the
  // accumulators would go (the same type).
  if (!op || op->getResult(0).getType() != result.getType() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return std::nullopt;
  std::optional<unsigned> convInput;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs())) {
    if (input.getType() != result.getType())
      return std::nullopt;
    if (input == result) {
      if (convInput)
        return std::nullopt; // x * x: fine in principle, rare; keep simple
      convInput = unsigned(i);
    }
  }
  if (!convInput)
    return std::nullopt;
  Block &body = op.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return std::nullopt; // reads its output
  for (Operation &inner : body.without_terminator()) {
    bool scalarConstant =
        inner.hasTrait<OpTrait::ConstantLike>() && inner.getNumOperands() == 0;
    if (inner.getNumRegions() != 0 ||
        (!scalarConstant && !OpTrait::hasElementwiseMappableTraits(&inner)))
      return std::nullopt;
    for (Type type : llvm::concat<const Type>(inner.getOperandTypes(),
                                              inner.getResultTypes()))
      if (!type.isIntOrIndexOrFloat())
        return std::nullopt;
  }
  return ConvEpilogue{op, *convInput};
}

Value mlir::tessel::cpu::applyEpilogue(OpBuilder &b, Location loc,
                                       const ConvEpilogue &epilogue, Value acc,
                                       function_ref<Value(Value)> read) {
  auto accType = cast<VectorType>(acc.getType());
  auto vectorOf = [&](Type scalar) {
    return VectorType::get(accType.getShape(), scalar);
  };
  linalg::GenericOp op = epilogue.op;
  Block &body = op.getRegion().front();
  IRMapping map;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs()))
    map.map(body.getArgument(i), i == epilogue.convInput ? acc : read(input));
  // A scalar from outside the body (or a constant in it) is broadcast.
  auto lookup = [&](Value scalar) -> Value {
    if (Value mapped = map.lookupOrNull(scalar))
      return mapped;
    Value splat =
        vector::BroadcastOp::create(b, loc, vectorOf(scalar.getType()), scalar);
    map.map(scalar, splat);
    return splat;
  };
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumOperands() == 0) {
      Operation *scalar = b.clone(inner);
      map.map(inner.getResult(0),
              vector::BroadcastOp::create(
                  b, loc, vectorOf(inner.getResult(0).getType()),
                  scalar->getResult(0)));
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : inner.getOperands())
      operands.push_back(lookup(operand));
    SmallVector<Type> types;
    for (Type type : inner.getResultTypes())
      types.push_back(vectorOf(type));
    OperationState state(loc, inner.getName().getStringRef(), operands, types,
                         inner.getAttrs());
    Operation *vectorized = b.create(state);
    for (auto [from, to] :
         llvm::zip(inner.getResults(), vectorized->getResults()))
      map.map(from, to);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return lookup(yield.getValues()[0]);
}

ConvPrologue mlir::tessel::cpu::prologueOf(linalg::GenericOp conv,
                                           unsigned channelDim, bool fuse) {
  if (!fuse)
    return {conv.getDpsInits()[0], Value(), false, nullptr};
  return matchPrologue(conv, channelDim);
}

std::optional<ConvEpilogue>
mlir::tessel::cpu::epilogueOf(linalg::GenericOp conv, bool fuse) {
  if (!fuse)
    return std::nullopt;
  return matchEpilogue(conv);
}

void mlir::tessel::cpu::finishConvolution(
    RewriterBase &rewriter, linalg::GenericOp conv, Value result,
    const ConvPrologue &prologue, const std::optional<ConvEpilogue> &epilogue) {
  SmallVector<Location> locs;
  if (prologue.producer)
    locs.push_back(prologue.producer->getLoc());
  locs.push_back(conv.getLoc());
  if (epilogue) {
    linalg::GenericOp consumer = epilogue->op;
    locs.push_back(consumer.getLoc());
    rewriter.replaceAllUsesWith(consumer.getResult(0), result);
    rewriter.eraseOp(consumer);
  } else {
    rewriter.replaceAllUsesWith(conv.getResult(0), result);
  }
  MLIRContext *ctx = conv.getContext();
  auto pad = conv.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
  rewriter.eraseOp(conv);
  // A padding (and the shift under it) the kernel read through: the
  // shift's ONNX nodes are the kernel's too.
  if (pad && pad->use_empty()) {
    auto shift = pad.getSource().getDefiningOp<linalg::GenericOp>();
    rewriter.eraseOp(pad);
    if (shift && shift->use_empty()) {
      locs.insert(locs.begin(), shift.getLoc());
      rewriter.eraseOp(shift);
    }
  }
  tessel::reportKernel(result.getDefiningOp(), "convolution", FusedLoc::get(ctx, locs));
  if (prologue.producer)
    rewriter.eraseOp(prologue.producer);
}
