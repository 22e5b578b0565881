//===- VectorTypes.cpp - What the CPU vectorizers vectorize ---------------===//

#include "VectorTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

bool mlir::tessel::cpu::isVectorFloat(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

bool mlir::tessel::cpu::hasVectorTypes(linalg::LinalgOp op) {
  bool integers = false;
  auto allowed = [&](Type type) {
    Type element = getElementTypeOrSelf(type);
    if (auto integer = dyn_cast<IntegerType>(element)) {
      integers = true;
      return integer.getWidth() >= 8 && integer.getWidth() <= 64;
    }
    return isVectorFloat(element);
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
