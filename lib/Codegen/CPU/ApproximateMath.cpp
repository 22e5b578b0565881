//===- ApproximateMath.cpp - Polynomial math on vectors -------------------===//
//
// Rewrites f32 vector `math.exp`, `math.erf`, `math.tanh` and `math.log`
// into polynomial approximations made of FMAs, compares and selects, which
// stay vectors down to LLVM; LLVM would otherwise split each vector into a
// libm call per lane. Scalar math is left to libm. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELAPPROXIMATEMATHPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

bool isApproximated(Operation *op) {
  if (!isa<math::ExpOp, math::ErfOp, math::TanhOp, math::LogOp>(op))
    return false;
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  return type && type.getElementType().isF32();
}

struct ApproximateMathPass
    : tessel::impl::TesselApproximateMathPassBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isApproximated(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return name == math::ExpOp::getOperationName() ||
             name == math::ErfOp::getOperationName() ||
             name == math::TanhOp::getOperationName() ||
             name == math::LogOp::getOperationName();
    });
    // Only the vector ops found above, and what their rewrites create.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
