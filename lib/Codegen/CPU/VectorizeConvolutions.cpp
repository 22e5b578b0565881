//===- VectorizeConvolutions.cpp - Convolutions in vector registers -------===//
//
// The tessel-vectorize-convolutions pass: a thin driver that hands each 2-D
// convolution generic (NCHW or NHWC) to the transformations of Transforms.h
// -- as a product (ConvolutionAsProduct.cpp), over filters
// (ConvolutionOverFilters.cpp and its steps) or over columns
// (ConvolutionOverColumns.cpp). See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZECONVOLUTIONSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

LogicalResult
mlir::tessel::vectorizeConvolution(RewriterBase &rewriter,
                                   linalg::GenericOp conv,
                                   const ConvolutionTilingOptions &options) {
  if (FailureOr<linalg::GenericOp> stride1 =
          subsampleStridedPointwise(rewriter, conv);
      succeeded(stride1))
    conv = *stride1;
  if (succeeded(rewriteConvolutionAsProduct(rewriter, conv, options)))
    return success();
  // Filters past the last whole vector run as a convolution of their own,
  // the others on whole vectors.
  if (FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>> parts =
          splitFilterRemainder(rewriter, conv, options.vectorWidth);
      succeeded(parts)) {
    bool head = succeeded(vectorizeConvolution(rewriter, parts->first, options));
    bool tail =
        succeeded(vectorizeConvolution(rewriter, parts->second, options));
    return success(head || tail);
  }
  if (succeeded(vectorizeConvolutionOverFilters(rewriter, conv, options)))
    return success();
  if (succeeded(vectorizeConvolutionOverColumns(rewriter, conv, options)))
    return success();
  // Channels last, other convolutions stay loops (their columns are not
  // contiguous).
  return failure();
}

namespace {
struct VectorizeConvolutionsPass
    : tessel::impl::TesselVectorizeConvolutionsPassBase<
          VectorizeConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (tessel::cpu::matchConv2D(op, /*allowNarrow=*/true))
        convs.push_back(op);
    });
    // The register tiles are sized by the options, which the pipeline
    // fills from the target's CpuTargetInfo.
    tessel::ConvolutionTilingOptions options;
    options.vectorWidth = std::max<int64_t>(1, vectorWidth);
    options.accumulators = accumulators;
    options.fuseEpilogue = fuseEpilogue;
    options.bf16TileRows = bf16TileRows;
    options.blockGatheredRows = blockGatheredRows;
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp conv : convs)
      (void)tessel::vectorizeConvolution(rewriter, conv, options);
  }
};
} // namespace
