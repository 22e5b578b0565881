//===- MicroKernels.cpp - The micro-kernels Tessel emits ------------------===//
//
// f32 FMA today: a `vector.fma` per step, and a product's register tile
// vectorized into one `vector.contract` that tessel-lower-vectors turns into
// outer products, then FMAs (a multiply and an add without FMA3).
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

class F32FmaMicroKernel final : public MicroKernel {
public:
  F32FmaMicroKernel() : MicroKernel(MicroKernelKind::F32Fma) {}

  int64_t getReductionGroup() const override { return 1; }

  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    return vector::FMAOp::create(b, loc, lhs, rhs, acc);
  }

  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override {
    rewriter.setInsertionPoint(tile);
    FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
        rewriter, tile, /*inputVectorSizes=*/{},
        /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
        /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/true);
    if (failed(vectorized))
      return failure();
    rewriter.replaceOp(tile, vectorized->replacements);
    return success();
  }
};

} // namespace

const MicroKernel *mlir::tessel::getMicroKernel(MicroKernelKind kind) {
  static const F32FmaMicroKernel f32Fma;
  switch (kind) {
  case MicroKernelKind::F32Fma:
    return &f32Fma;
  // The low-precision kernels are issues of their own (INT8, BF16/FP16).
  case MicroKernelKind::None:
  case MicroKernelKind::I8Vnni:
  case MicroKernelKind::Bf16Dot:
  case MicroKernelKind::F16Fma:
  case MicroKernelKind::AmxInt8:
  case MicroKernelKind::AmxBf16:
    return nullptr;
  }
  llvm_unreachable("unknown micro-kernel kind");
}

const MicroKernel *mlir::tessel::getMicroKernel(const CpuTargetInfo &target,
                                                Type lhs, Type rhs, Type acc) {
  return getMicroKernel(selectMicroKernel(target, lhs, rhs, acc).emitted);
}

bool mlir::tessel::isMicroKernelImplemented(MicroKernelKind kind) {
  return getMicroKernel(kind) != nullptr;
}
