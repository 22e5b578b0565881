//===- Pipelines.cpp - Tessel's compilation phases ------------------------===//

#include "tessel/Pipelines/Pipelines.h"

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

std::optional<Phase> mlir::tessel::parsePhase(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("import", Phase::Import)
      .Case("graph", Phase::Graph)
      .Case("linalg", Phase::Linalg)
      .Case("llvm", Phase::LLVM)
      .Default(std::nullopt);
}

llvm::StringRef mlir::tessel::getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Import:
    return "import";
  case Phase::Graph:
    return "graph";
  case Phase::Linalg:
    return "linalg";
  case Phase::LLVM:
    return "llvm";
  }
  llvm_unreachable("unknown phase");
}

llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>>
mlir::tessel::getOptimizationNames() {
  static const std::pair<llvm::StringRef, llvm::StringRef> names[] = {
      {"fold-batchnorm",
       "fold BatchNormalization into the preceding Conv or Gemm (graph)"},
      {"fold-input-normalization",
       "fold a per-channel (x - mean) / std on a graph input into the first "
       "Conv or Gemm (graph)"},
      {"sink-product-scales",
       "scale a MatMul's result instead of its operand by a scalar constant, "
       "so the product's epilogue runs it (graph)"},
      {"drop-zero-channels",
       "remove conv output channels whose weights are all zero (graph)"},
      {"fusion-regions",
       "group the ops that run as one kernel into tessel.fused regions "
       "(graph); off, every op is a kernel of its own and the fusions "
       "below only join the parts of one op (a softmax's loop nests)"},
      {"fuse-elementwise",
       "fuse chains of elementwise ops into one loop nest (linalg)"},
      {"fuse-conv-epilogue",
       "start a convolution from its bias and run its consuming elementwise "
       "op on the tile in registers (codegen)"},
      {"fuse-product-epilogue",
       "start a matrix product from its bias and run its consuming "
       "elementwise op on each register tile (codegen)"},
      {"fuse-reductions",
       "run the elementwise op consuming a reduction (and the reduction's "
       "fill) in the reduction's loops, softmax and layer norm row by row "
       "in one loop nest (codegen)"},
      {"fuse-attention",
       "run an attention block (scores product, softmax, value product and "
       "the head transposes) as one loop over its heads (codegen)"},
      {"prefetch-weights",
       "prefetch the next panel of a convolution's or product's packed "
       "weights while the tiles of this one run (codegen)"},
  };
  return names;
}

void mlir::tessel::buildGraphPipeline(OpPassManager &pm,
                                      const PipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.enabled("fold-batchnorm")) {
    pm.addNestedPass<func::FuncOp>(createTesselFoldBatchNormPass());
    pm.addPass(createCanonicalizerPass());
  }
  if (options.enabled("fold-input-normalization")) {
    pm.addNestedPass<func::FuncOp>(createTesselFoldInputNormalizationPass());
    pm.addPass(createCanonicalizerPass());
  }
  if (options.enabled("sink-product-scales")) {
    pm.addNestedPass<func::FuncOp>(createTesselSinkProductScalesPass());
    pm.addPass(createCanonicalizerPass());
  }
  // After BatchNorm folding: a pruned channel's folded bias is what decides
  // whether the channel is zero.
  if (options.enabled("drop-zero-channels")) {
    TesselDropZeroChannelsPassOptions drop;
    drop.channelMultiple = options.vectorWidth;
    pm.addPass(createTesselDropZeroChannelsPass(drop));
    pm.addPass(createCanonicalizerPass());
  }
  // Last: the folds above see the model's own layout.
  if (options.layout == "nhwc") {
    TesselAssignLayoutsPassOptions layouts;
    layouts.vectorWidth = options.vectorWidth;
    pm.addPass(createTesselAssignLayoutsPass(layouts));
  }
  // After layouts: the groups are of the ops that will run.
  if (options.enabled("fusion-regions"))
    pm.addNestedPass<func::FuncOp>(createTesselFormFusedRegionsPass());
}

void mlir::tessel::buildLinalgPipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  pm.addPass(createTesselRecordSignaturePass());
  pm.addNestedPass<func::FuncOp>(createConvertTesselToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createTesselReadThroughUnitExpandsPass());
  if (options.enabled("fuse-elementwise")) {
    pm.addNestedPass<func::FuncOp>(createTesselFuseElementwisePass());
    pm.addPass(createCanonicalizerPass());
  }
}

void mlir::tessel::buildLLVMPipeline(OpPassManager &pm,
                                     const PipelineOptions &options) {
  // CPU code generation on tensors: register-tiled, vectorized
  // convolutions and products.
  if (options.optLevel > 0) {
    TesselVectorizeConvolutionsPassOptions convolutions;
    convolutions.vectorWidth = options.vectorWidth;
    convolutions.fuseNeighbours = options.enabled("fuse-conv-epilogue");
    // Filter tiles of up to 24 accumulators with AVX-512's 32 registers
    // (ResNet-18's 3x3 convolutions: 1.16x onnxruntime's time at 12, 1.02x
    // at 24), 12 with AVX2's 16.
    convolutions.accumulators = options.vectorWidth >= 16 ? 24 : 12;
    pm.addNestedPass<func::FuncOp>(
        createTesselVectorizeConvolutionsPass(convolutions));
    // Before the vectorizers: they register-tile the ops in each head's
    // loop as parts of the attention kernel.
    if (options.enabled("fuse-attention"))
      pm.addNestedPass<func::FuncOp>(createTesselFuseAttentionPass());
    TesselVectorizeContractionsPassOptions vectorize;
    vectorize.vectorWidth = options.vectorWidth;
    // AVX-512 has 32 vector registers, AVX2 16.
    vectorize.accumulators = options.vectorWidth >= 16 ? 16 : 12;
    vectorize.fuseEpilogues = options.enabled("fuse-product-epilogue");
    pm.addNestedPass<func::FuncOp>(
        createTesselVectorizeContractionsPass(vectorize));
    TesselVectorizeWindowsPassOptions windows;
    windows.vectorWidth = options.vectorWidth;
    pm.addNestedPass<func::FuncOp>(createTesselVectorizeWindowsPass(windows));
    TesselVectorizeGenericsPassOptions generics;
    generics.vectorWidth = options.vectorWidth;
    generics.fuseReductions = options.enabled("fuse-reductions");
    pm.addNestedPass<func::FuncOp>(createTesselVectorizeGenericsPass(generics));
    pm.addNestedPass<func::FuncOp>(createTesselApproximateMathPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  pm.addPass(createTesselEntryABIPass());
  // Bufferize: results are written straight into the caller's buffers where
  // the analysis allows.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Intermediates in one workspace the runtime reuses across runs.
  if (options.optLevel > 0)
    pm.addPass(createTesselPlanMemoryPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createCanonicalizerPass());

  // Marked loops on the runtime's parallel_for.
  if (options.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createTesselPrefetchStoresPass());
    if (options.enabled("prefetch-weights"))
      pm.addNestedPass<func::FuncOp>(createTesselPrefetchWeightsPass());
    pm.addPass(createTesselParallelizeLoopsPass());
  }
  // Vectors down to 1-D vector ops, loops, then the LLVM dialect.
  pm.addNestedPass<func::FuncOp>(createTesselLowerVectorsPass());
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll(true);
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
  pm.addNestedPass<func::FuncOp>(createTesselLowerStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // libm calls on vectors are made per lane: the vector extracts and
  // from_elements that gathers the results are lowered here.
  pm.addPass(createConvertVectorToLLVMPass());
  // bf16 arithmetic in f32, and bf16 conversions as integer code: LLVM
  // would call __truncsfbf2, which the libgcc an artifact links against may
  // lack.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::tessel::buildPipeline(OpPassManager &pm, Phase from, Phase to,
                                 const PipelineOptions &options) {
  auto wants = [&](Phase p) { return from < p && p <= to; };
  if (wants(Phase::Graph))
    buildGraphPipeline(pm, options);
  if (wants(Phase::Linalg))
    buildLinalgPipeline(pm, options);
  if (wants(Phase::LLVM))
    buildLLVMPipeline(pm, options);
}

void mlir::tessel::registerTesselPipelines() {
  PassPipelineRegistration<>(
      "tessel-graph-pipeline", "Graph-level cleanup of the tessel dialect",
      [](OpPassManager &pm) { buildGraphPipeline(pm, {}); });
  PassPipelineRegistration<>(
      "tessel-linalg-pipeline", "Lowers the tessel dialect to linalg",
      [](OpPassManager &pm) { buildLinalgPipeline(pm, {}); });
  PassPipelineRegistration<>(
      "tessel-llvm-pipeline", "Lowers linalg on tensors to the LLVM dialect",
      [](OpPassManager &pm) { buildLLVMPipeline(pm, {}); });
  PassPipelineRegistration<>(
      "tessel-cpu-pipeline", "The whole CPU pipeline, tessel to LLVM dialect",
      [](OpPassManager &pm) {
        buildPipeline(pm, Phase::Import, Phase::LLVM, {});
      });
}
