//===- VectorTypes.cpp - What the CPU vectorizers vectorize ---------------===//

#include "VectorTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

bool mlir::tessel::cpu::hasVectorTypes(linalg::LinalgOp op) {
  bool integers = false;
  auto allowed = [&](Type type) {
    Type element = getElementTypeOrSelf(type);
    if (auto integer = dyn_cast<IntegerType>(element)) {
      integers = true;
      return integer.getWidth() >= 8 && integer.getWidth() <= 64;
    }
    // bf16 and f16: --precision's activations, converted next to the
    // products that read or write them, and a model's own (its elementwise
    // ops compute in f32, tessel-to-linalg's computeWide).
    return element.isF32() || element.isBF16() || element.isF16();
  };
  if (!llvm::all_of(op->getOperandTypes(), allowed) ||
      !llvm::all_of(op->getResultTypes(), allowed))
    return false;
  if (!integers)
    return true;
  return !op->walk([](Operation *inner) {
              return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
                         arith::RemUIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
                         arith::FloorDivSIOp>(inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted();
}
