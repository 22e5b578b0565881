//===- KernelGroup.cpp - The kernel model of every code generator --------===//

#include "tessel/Codegen/KernelGroup.h"

#include "tessel/Dialect/Tessel/IR/FusionGroups.h"

using namespace mlir;
using namespace mlir::tessel;

linalg::LinalgOp mlir::tessel::getKernelPrologue(linalg::LinalgOp root) {
  Value out = root.getDpsInits()[0];
  auto producer = out.getDefiningOp<linalg::LinalgOp>();
  if (!producer || !out.hasOneUse() || !mayFuse(root, producer) ||
      producer->getNumResults() != 1 || producer.getNumReductionLoops() != 0)
    return nullptr;
  return producer;
}

linalg::GenericOp mlir::tessel::getKernelEpilogue(Operation *root,
                                                  Value result) {
  if (!result.hasOneUse())
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || !mayFuse(root, consumer) ||
      !consumer.hasPureTensorSemantics() || consumer->getNumResults() != 1 ||
      consumer.getNumReductionLoops() != 0 ||
      cast<ShapedType>(consumer->getResult(0).getType()).getShape() !=
          cast<ShapedType>(result.getType()).getShape() ||
      !consumer.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return nullptr;
  for (OpOperand &operand : consumer->getOpOperands())
    if (operand.get() == result &&
        !consumer.getMatchingIndexingMap(&operand).isIdentity())
      return nullptr;
  return consumer;
}

KernelGroup mlir::tessel::getKernelGroup(linalg::LinalgOp root) {
  return {root, getKernelPrologue(root),
          getKernelEpilogue(root, root->getResult(0))};
}
