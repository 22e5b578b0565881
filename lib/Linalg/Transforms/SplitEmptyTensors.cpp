//===- SplitEmptyTensors.cpp - One tensor.empty per use -------------------===//
//
// CSE merges equal tensor.empty ops; before bufferization every use gets
// its own again, so that the writes of unrelated kernels do not all start
// from one value. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSPLITEMPTYTENSORSPASS
#include "tessel/Linalg/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

struct SplitEmptyTensorsPass
    : tessel::impl::TesselSplitEmptyTensorsPassBase<SplitEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    OpBuilder b(&getContext());
    for (tensor::EmptyOp empty : shared) {
      // Every use takes a clone placed right before its user (the empty's
      // dynamic sizes dominate it, as the empty does).
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          empty->getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : uses) {
        b.setInsertionPoint(use->getOwner());
        use->set(b.clone(*empty)->getResult(0));
      }
      empty->erase();
    }
  }
};

} // namespace
