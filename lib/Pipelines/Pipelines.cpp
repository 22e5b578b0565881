//===- Pipelines.cpp - Tessel's compilation phases ------------------------===//

#include "tessel/Pipelines/Pipelines.h"

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Codegen/CPU/TargetInfo.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Linalg/Transforms/Passes.h"
#include "tessel/Target/LLVM/TargetInfo.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

llvm::ArrayRef<Optimization> mlir::tessel::getOptimizations() {
  static const Optimization optimizations[] = {
      {"fold-batchnorm", "graph", "tessel-fold-batchnorm",
       "fold BatchNormalization into the preceding Conv or Gemm"},
      {"fold-input-normalization", "graph", "tessel-fold-input-normalization",
       "fold a per-channel (x - mean) / std on a graph input into the first "
       "Conv or Gemm"},
      {"fold-activation-clips", "graph", "tessel-fold-activation-clips",
       "merge a ReLU and a Clip applied one after the other into one Clip"},
      {"sink-product-scales", "graph", "tessel-sink-product-scales",
       "scale a MatMul's result instead of its operand by a scalar constant, "
       "so the product's epilogue runs it"},
      {"integer-products", "graph", "tessel-integer-products",
       "run a MatMul, Gemm or Conv of dequantized 8-bit values (a QDQ "
       "model's) as an integer product of those values, scaled after; what "
       "stays f32 reads its weights dequantized once, at compile time"},
      {"fold-requantization-scales", "graph",
       "tessel-fold-requantization-scales",
       "fold a requantization's division by its scale into the scales of "
       "the integer product (or dequantized 8-bit value) it quantizes: one "
       "multiplier, as integer runtimes requantize"},
      {"drop-zero-channels", "graph", "tessel-drop-zero-channels",
       "remove conv output channels whose weights are all zero"},
      {"fusion-regions", "graph", "tessel-form-fused-regions",
       "group the ops that run as one kernel into tessel.fused regions; "
       "off, every op is a kernel of its own and the fusions below only "
       "join the parts of one op (a softmax's loop nests)"},
      {"fuse-elementwise", "linalg", "tessel-fuse-elementwise",
       "fuse chains of elementwise ops into one loop nest"},
      {"narrow-integer-products", "linalg", "tessel-narrow-integer-products",
       "read the 8-bit operands of i32 products (MatMulInteger) as i8, for "
       "8-bit dot-product kernels (VNNI)"},
      {"quantize-by-reciprocal", "linalg", "tessel-quantize-by-reciprocal",
       "a quantization's division by a constant scale multiplies by its "
       "reciprocal with one exact FMA correction (the same integers, "
       "without vdivps)"},
      {"sample-loops", "codegen", "tessel-sample-loops",
       "run the stretches of a batched model whose layers read more "
       "activations than weights one sample at a time (a loop over the "
       "samples), so each layer's input is still in the caches; the "
       "layers whose weights outweigh a sample's activations run on the "
       "whole batch"},
      {"fuse-conv-epilogue", "codegen",
       "tessel-vectorize-convolutions{fuse-epilogue}",
       "start a convolution from its bias and run its consuming elementwise "
       "op on the tile in registers"},
      {"fuse-product-epilogue", "codegen",
       "tessel-vectorize-contractions{fuse-epilogue}",
       "start a matrix product from its bias and run its consuming "
       "elementwise op on each register tile"},
      {"fuse-reductions", "codegen",
       "tessel-vectorize-generics{fuse-reductions}",
       "run the elementwise op consuming a reduction (and the reduction's "
       "fill) in the reduction's loops, softmax and layer norm row by row "
       "in one loop nest"},
      {"fuse-attention", "codegen", "tessel-fuse-attention",
       "run an attention block (scores product, softmax, value product and "
       "the head transposes) as one loop over its heads"},
      {"outline-kernels", "codegen", "tessel-outline-kernels",
       "compile each kernel's loop nest as a function of its own, one per "
       "distinct kernel (identical layers or recurrent steps share one)"},
      {"prefetch-weights", "codegen", "tessel-prefetch-weights",
       "prefetch the next panel of a convolution's or product's packed "
       "weights while the tiles of this one run"},
      {"block-gathered-rows", "codegen",
       "tessel-vectorize-convolutions{block-gathered-rows}",
       "gather an 8-bit or bf16 convolution's windows block by block of "
       "its product's rows, in the parallel loop that multiplies them, "
       "instead of all of them first"},
      {"amx-tiles", "codegen", "tessel-vectorize-contractions{amx,amx-bf16}",
       "run 8-bit and bf16 products of whole tiles on AMX tiles where the "
       "target has AMX-INT8 and AMX-BF16 (else 8-bit ones on VNNI, and "
       "bf16 ones, on a target whose vdpbf16ps is slower than its FMA, in "
       "f32)"},
      {"f16-fma", "codegen", "tessel-vectorize-contractions{fp16}",
       "run f16 products on AVX512-FP16's vfmadd231ph, summing blocks of at "
       "most 32 steps per lane in f16 and the blocks in f32 (else a model's "
       "own f16 products sum in f32 on the widened FMA, and "
       "--precision=fp16 keeps every product f32)"},
  };
  return optimizations;
}

const Optimization *mlir::tessel::lookupOptimization(llvm::StringRef name) {
  for (const Optimization &optimization : getOptimizations())
    if (optimization.name == name)
      return &optimization;
  return nullptr;
}

std::string mlir::tessel::joinOptimizationNames(llvm::StringRef separator) {
  std::string names;
  for (const Optimization &optimization : getOptimizations())
    names += (names.empty() ? "" : separator.str()) +
             optimization.name.str();
  return names;
}

CpuTargetInfo PipelineOptions::getDefaultTarget() {
  CpuTargetInfo target;
  target.cpu = "haswell";
  target.vectorBits = 256;
  target.vectorRegisters = 16;
  target.fma = true;
  target.avx2 = true;
  return target;
}

FailureOr<PipelineOptions> mlir::tessel::resolvePipelineOptions(
    const CpuTargetInfo &target, unsigned optLevel,
    llvm::ArrayRef<std::string> disabled, llvm::StringRef layout,
    llvm::StringRef precision, std::string &error) {
  PipelineOptions options;
  if (optLevel > 3) {
    error = "unknown optimisation level " + std::to_string(optLevel) +
            " (0..3)";
    return failure();
  }
  options.optLevel = optLevel;
  for (const std::string &name : disabled) {
    if (!lookupOptimization(name)) {
      error = "unknown optimisation '" + name + "' in --disable (" +
              joinOptimizationNames(", ") + ")";
      return failure();
    }
  }
  options.disabled.assign(disabled.begin(), disabled.end());
  if (layout != "nchw" && layout != "nhwc") {
    error = "unknown --layout '" + layout.str() + "' (nchw, nhwc)";
    return failure();
  }
  options.layout = layout.str();
  if (precision != "fp32" && precision != "bf16" && precision != "fp16") {
    error =
        "unknown --precision '" + precision.str() + "' (fp32, bf16, fp16)";
    return failure();
  }
  options.precision = precision.str();
  options.target = target;
  return options;
}

/// The target's bf16 product kernels as the switches leave them.
static MicroKernelChoice bf16ProductKernels(const PipelineOptions &options) {
  CpuTargetInfo target = options.target;
  target.amxBf16 = options.amxBf16Tiles();
  return selectBf16ProductKernel(target);
}

bool PipelineOptions::hasFastBf16Products() const {
  return isFasterThanFp32(bf16ProductKernels(*this).emitted);
}

bool PipelineOptions::hasFastF16Products() const {
  CpuTargetInfo switched = target;
  switched.avx512Fp16 = f16Fma();
  return hasF16ProductKernel(switched);
}

bool PipelineOptions::bf16WholeTilesOnly() const {
  // AMX tiles, and no vdpbf16ps that beats the FMA for the rest.
  MicroKernelChoice choice = bf16ProductKernels(*this);
  return choice.emitted == MicroKernelKind::AmxBf16 &&
         !llvm::is_contained(choice.emittable, MicroKernelKind::Bf16Dot);
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
  if (options.enabled("fold-activation-clips"))
    pm.addNestedPass<func::FuncOp>(createTesselFoldActivationClipsPass());
  if (options.enabled("sink-product-scales")) {
    pm.addNestedPass<func::FuncOp>(createTesselSinkProductScalesPass());
    pm.addPass(createCanonicalizerPass());
  }
  // After the scales moved: a dequantized operand's scalar scale may be on
  // the product already.
  if (!options.quantize.empty()) {
    TesselQuantizeProductsPassOptions quantize;
    quantize.mode = options.quantize;
    quantize.scales.assign(options.quantizeScales.begin(),
                           options.quantizeScales.end());
    quantize.zeroPoints.assign(options.quantizeZeroPoints.begin(),
                               options.quantizeZeroPoints.end());
    quantize.keep.assign(options.keepFp32.begin(), options.keepFp32.end());
    pm.addNestedPass<func::FuncOp>(createTesselQuantizeProductsPass(quantize));
  }
  // After the folds that merge nodes (the nodes compared are those the build
  // computes) and quantization's fake-quantized products; before integer
  // products (whose requantized values are no node's output), the dropped
  // channels (the model's shapes) and layouts (the model's layout).
  if (options.debugOutputs)
    pm.addNestedPass<func::FuncOp>(createTesselExposeNodeOutputsPass());
  if (options.enabled("integer-products")) {
    TesselIntegerProductsPassOptions integer;
    integer.integerKernel = hasEightBitProductKernel(options.target);
    pm.addNestedPass<func::FuncOp>(createTesselIntegerProductsPass(integer));
    pm.addPass(createCanonicalizerPass());
  }
  // After integer products: their scales are what the divisions fold into.
  if (options.enabled("fold-requantization-scales")) {
    pm.addNestedPass<func::FuncOp>(
        createTesselFoldRequantizationScalesPass());
    pm.addPass(createCanonicalizerPass());
  }
  // After BatchNorm folding: a pruned channel's folded bias is what decides
  // whether the channel is zero.
  if (options.enabled("drop-zero-channels")) {
    TesselDropZeroChannelsPassOptions drop;
    drop.channelMultiple = options.getVectorWidth();
    pm.addPass(createTesselDropZeroChannelsPass(drop));
    pm.addPass(createCanonicalizerPass());
  }
  // After the folds and the dropped channels: they read f32 weights.
  if (options.precision == "bf16" || options.precision == "fp16") {
    TesselLowPrecisionProductsPassOptions narrow;
    bool f16 = options.precision == "fp16";
    narrow.element = f16 ? "f16" : "bf16";
    narrow.productKernel =
        f16 ? options.hasFastF16Products() : options.hasFastBf16Products();
    narrow.wholeAmxTiles = !f16 && options.bf16WholeTilesOnly();
    narrow.mode = options.precisionMode;
    // (With --quantize the kept products are the 8-bit pass's.)
    if (options.quantize.empty())
      narrow.keep.assign(options.keepFp32.begin(), options.keepFp32.end());
    pm.addNestedPass<func::FuncOp>(
        createTesselLowPrecisionProductsPass(narrow));
    pm.addPass(createCanonicalizerPass());
  }
  // Last: the folds above see the model's own layout.
  // Convolutions of 8-bit values have their kernel channels last only: with
  // the model's layout, a module holding one goes channels last (all of it).
  TesselAssignLayoutsPassOptions layouts;
  layouts.vectorWidth = options.getVectorWidth();
  layouts.integerOnly = options.layout != "nhwc";
  pm.addPass(createTesselAssignLayoutsPass(layouts));
  // After layouts: the groups are of the ops that will run.
  if (options.enabled("fusion-regions"))
    pm.addNestedPass<func::FuncOp>(createTesselFormFusedRegionsPass());
}

void mlir::tessel::buildLinalgPipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  pm.addPass(createTesselRecordSignaturePass());
  pm.addNestedPass<func::FuncOp>(createConvertTesselToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  // A model with a padded dimension (its arguments marked
  // tessel.padded_dim; nothing to do otherwise): before fusion, so that the
  // masks fuse like any elementwise op.
  if (options.maskPaddedPositions)
    pm.addNestedPass<func::FuncOp>(
        createTesselMaskPaddedPositionsPass({options.paddedMinLength}));
  pm.addNestedPass<func::FuncOp>(createTesselReadThroughUnitExpandsPass());
  if (options.enabled("fuse-elementwise")) {
    pm.addNestedPass<func::FuncOp>(createTesselFuseElementwisePass());
    pm.addPass(createCanonicalizerPass());
  }
  if (options.enabled("narrow-integer-products")) {
    pm.addNestedPass<func::FuncOp>(createTesselNarrowIntegerProductsPass());
    pm.addPass(createCanonicalizerPass());
  }
  // After fusion: the quantizations are in the bodies that compute their
  // inputs.
  if (options.enabled("quantize-by-reciprocal")) {
    TesselQuantizeByReciprocalPassOptions reciprocal;
    reciprocal.fma = options.target.fma;
    pm.addNestedPass<func::FuncOp>(
        createTesselQuantizeByReciprocalPass(reciprocal));
  }
}

void mlir::tessel::buildCodegenPipeline(OpPassManager &pm,
                                        const PipelineOptions &options) {
  // CPU code generation on tensors: register-tiled, vectorized
  // convolutions and products.
  if (options.optLevel > 0) {
    // First: the kernels inside a sample loop are planned for one sample.
    if (options.enabled("sample-loops"))
      pm.addNestedPass<func::FuncOp>(createTesselSampleLoopsPass());
    TesselVectorizeConvolutionsPassOptions convolutions;
    convolutions.vectorWidth = options.getVectorWidth();
    convolutions.fuseEpilogue = options.enabled("fuse-conv-epilogue");
    convolutions.accumulators = options.target.getConvolutionAccumulators();
    convolutions.bf16TileRows = options.amxBf16Tiles();
    convolutions.blockGatheredRows = options.enabled("block-gathered-rows");
    pm.addNestedPass<func::FuncOp>(
        createTesselVectorizeConvolutionsPass(convolutions));
    // Before the vectorizers: they register-tile the ops in each head's
    // loop as parts of the attention kernel.
    if (options.enabled("fuse-attention"))
      pm.addNestedPass<func::FuncOp>(createTesselFuseAttentionPass());
    TesselVectorizeContractionsPassOptions vectorize;
    vectorize.vectorWidth = options.getVectorWidth();
    vectorize.accumulators = options.target.getProductAccumulators();
    vectorize.fmasPerCycle = options.target.fmasPerCycle;
    vectorize.fmaLatency = options.target.fmaLatency;
    vectorize.loadsPerCycle = options.target.loadsPerCycle;
    vectorize.l2CacheBytes = options.target.l2Bytes;
    vectorize.fuseEpilogue = options.enabled("fuse-product-epilogue");
    vectorize.vnni = options.target.avx512Vnni || options.target.avxVnni;
    // The instruction's presence, not whether it beats the FMA: where it
    // does not, tessel-low-precision-products makes no bf16 products for
    // it to run, and a model's own bf16 products run on the next kernel
    // (the widened FMA).
    vectorize.bf16 = options.target.avx512Bf16;
    vectorize.amx = options.target.amxTile && options.target.amxInt8 &&
                    options.enabled("amx-tiles");
    vectorize.amxBf16 = options.amxBf16Tiles();
    vectorize.fp16 = options.f16Fma();
    pm.addNestedPass<func::FuncOp>(
        createTesselVectorizeContractionsPass(vectorize));
    TesselVectorizeWindowsPassOptions windows;
    windows.vectorWidth = options.getVectorWidth();
    pm.addNestedPass<func::FuncOp>(createTesselVectorizeWindowsPass(windows));
    TesselVectorizeGenericsPassOptions generics;
    generics.vectorWidth = options.getVectorWidth();
    generics.fuseReductions = options.enabled("fuse-reductions");
    pm.addNestedPass<func::FuncOp>(createTesselVectorizeGenericsPass(generics));
    pm.addNestedPass<func::FuncOp>(createTesselApproximateMathPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

void mlir::tessel::buildLoweringPipeline(OpPassManager &pm,
                                         const PipelineOptions &options) {
  pm.addPass(createTesselEntryABIPass());
  pm.addNestedPass<func::FuncOp>(createTesselSplitEmptyTensorsPass());
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
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());

  // Marked loops on the runtime's parallel_for.
  if (options.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createTesselPrefetchStoresPass());
    if (options.enabled("prefetch-weights"))
      pm.addNestedPass<func::FuncOp>(createTesselPrefetchWeightsPass());
    if (options.enabled("outline-kernels"))
      pm.addPass(createTesselOutlineKernelsPass());
    pm.addPass(createTesselParallelizeLoopsPass());
  }
  // Vectors down to 1-D vector ops, loops, then the LLVM dialect.
  pm.addNestedPass<func::FuncOp>(createTesselLowerVectorsPass());
  pm.addNestedPass<func::FuncOp>(createTesselWidenBf16VectorMathPass());
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll(true);
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
  pm.addNestedPass<func::FuncOp>(createTesselLowerStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // From here on, the conversions that need no module-level symbols run on
  // each function on its own: MLIR runs them on the functions in parallel
  // (the kernels, after tessel-outline-kernels).
  pm.addNestedPass<func::FuncOp>(memref::createExpandStridedMetadataPass());
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  // AMX tiles cross the loops' branches: converted together.
  pm.addPass(createTesselLowerAmxPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addNestedPass<func::FuncOp>(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // libm calls on vectors are made per lane: the vector extracts and
  // from_elements that gathers the results are lowered here.
  pm.addNestedPass<func::FuncOp>(createConvertVectorToLLVMPass());
  // bf16 arithmetic in f32, and bf16 conversions as integer code: LLVM
  // would call __truncsfbf2, which the libgcc an artifact links against may
  // lack.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addNestedPass<func::FuncOp>(
      arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass(expand));
  pm.addNestedPass<func::FuncOp>(createArithToLLVMConversionPass());
  pm.addNestedPass<func::FuncOp>(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addNestedPass<LLVM::LLVMFuncOp>(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createTesselBf16MemoryAsIntegersPass());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
  // The weights as flat byte arrays: one LLVM constant each, not one per
  // row (ViT-B/32's compile, Zen 3: see the pass).
  pm.addPass(createTesselConstantGlobalsAsBytesPass());
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

void mlir::tessel::buildLLVMPipeline(OpPassManager &pm,
                                     const PipelineOptions &options) {
  buildCodegenPipeline(pm, options);
  buildLoweringPipeline(pm, options);
}

/// Registers `name`, building phases (from, to] with the options parsed
/// from its textual form.
static void registerPipeline(llvm::StringRef name, llvm::StringRef summary,
                             Phase from, Phase to) {
  registerPassPipeline(
      name, summary,
      [from, to](OpPassManager &pm, llvm::StringRef text,
                 llvm::function_ref<LogicalResult(const llvm::Twine &)>
                     errorHandler) -> LogicalResult {
        PipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        std::string error;
        FailureOr<CpuTargetInfo> target = resolveCpuTargetInfo(
            CpuTarget{"", cl.targetCpu, cl.targetFeatures, cl.optLevel},
            error);
        if (failed(target))
          return errorHandler(error);
        FailureOr<PipelineOptions> options = resolvePipelineOptions(
            *target, cl.optLevel, cl.disable, cl.layout, cl.precision,
            error);
        if (failed(options))
          return errorHandler(error);
        options->debugOutputs = cl.debugOutputs;
        buildPipeline(pm, from, to, *options);
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> handler) {
        handler(PipelineCLOptions());
      });
}

void mlir::tessel::registerTesselPipelines() {
  registerPipeline("tessel-graph-pipeline",
                   "Graph-level cleanup of the tessel dialect", Phase::Import,
                   Phase::Graph);
  registerPipeline("tessel-linalg-pipeline",
                   "Lowers the tessel dialect to linalg", Phase::Graph,
                   Phase::Linalg);
  registerPipeline("tessel-llvm-pipeline",
                   "Lowers linalg on tensors to the LLVM dialect",
                   Phase::Linalg, Phase::LLVM);
  registerPipeline("tessel-cpu-pipeline",
                   "The whole CPU pipeline, tessel to LLVM dialect",
                   Phase::Import, Phase::LLVM);
}
