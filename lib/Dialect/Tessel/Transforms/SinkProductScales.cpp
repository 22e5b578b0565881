//===- SinkProductScales.cpp - Scale a matmul's result, not its operand ---===//
//
// matmul(x * c, y) -> matmul(x, y) * c for a scalar constant c (and / c),
// so that the scale runs in the product's epilogue.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "FoldingUtils.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include <cmath>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSINKPRODUCTSCALESPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Whether `value` is an f32 constant holding one finite non-zero value.
bool isScalarScale(Value value) {
  std::optional<std::vector<float>> values = getConstantF32Values(value);
  return values && values->size() == 1 && std::isfinite(values->front()) &&
         values->front() != 0.0f;
}

/// `operand` of `matmul` when it is `x * c`, `c * x` or `x / c` (one user,
/// no broadcast of `x`): the scaling op and `x`; nothing otherwise.
std::optional<std::pair<Operation *, Value>> scaleOf(Value operand) {
  Operation *op = operand.getDefiningOp();
  if (!op || !isa<MulOp, DivOp>(op) || !op->hasOneUse() ||
      !hasOnlyF32Tensors(op))
    return std::nullopt;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (isScalarScale(rhs) && lhs.getType() == operand.getType())
    return std::make_pair(op, lhs);
  if (isa<MulOp>(op) && isScalarScale(lhs) &&
      rhs.getType() == operand.getType())
    return std::make_pair(op, rhs);
  return std::nullopt;
}

/// Moves one scale of `matmul`'s operands to its result: the new matmul,
/// or failure when neither operand is scaled.
FailureOr<MatMulOp> sinkScale(MatMulOp matmul) {
  if (!hasOnlyF32Tensors(matmul))
    return failure();
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<std::pair<Operation *, Value>> scale =
        scaleOf(matmul->getOperand(i));
    if (!scale)
      continue;
    auto [scaling, x] = *scale;
    Value c = scaling->getOperand(0) == x ? scaling->getOperand(1)
                                          : scaling->getOperand(0);
    OpBuilder builder(matmul);
    Value lhs = i == 0 ? x : matmul.getLhs();
    Value rhs = i == 1 ? x : matmul.getRhs();
    auto product =
        MatMulOp::create(builder, matmul.getLoc(), matmul.getType(), lhs, rhs);
    Value scaled =
        isa<DivOp>(scaling)
            ? DivOp::create(builder, scaling->getLoc(), product, c).getResult()
            : MulOp::create(builder, scaling->getLoc(), product, c).getResult();
    matmul.replaceAllUsesWith(scaled);
    matmul.erase();
    scaling->erase();
    return product;
  }
  return failure();
}

struct TesselSinkProductScalesPass
    : public tessel::impl::TesselSinkProductScalesPassBase<
          TesselSinkProductScalesPass> {
  void runOnOperation() override {
    SmallVector<MatMulOp> matmuls;
    getOperation().walk([&](MatMulOp op) { matmuls.push_back(op); });
    // Both operands' scales: a product of two dequantized 8-bit values
    // then multiplies their centred integers, whose sums f32 holds
    // exactly while they stay below 2^24.
    for (MatMulOp matmul : matmuls)
      for (FailureOr<MatMulOp> next = sinkScale(matmul); succeeded(next);
           next = sinkScale(*next)) {
      }
  }
};

} // namespace
