//===- Pipelines.h - Tessel's compilation phases ----------------*- C++ -*-===//
//
// A model goes through fixed phases; each phase boundary is a place a user
// can stop (`tessel-compile --compile-to=<phase>`) and look at the IR.
//
//   import  - the tessel dialect as the ONNX importer built it
//   graph   - after graph-level cleanup (canonicalize, CSE)
//   linalg  - linalg/tensor/arith/math on tensors
//   llvm    - the LLVM dialect, ready for translation to LLVM IR
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_PIPELINES_PIPELINES_H

#include "tessel/Codegen/CPU/TargetInfo.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>
#include <utility>

#include <optional>

namespace mlir::tessel {

enum class Phase { Import, Graph, Linalg, LLVM };

/// Parses "import", "graph", "linalg" or "llvm".
std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef getPhaseName(Phase phase);

/// One optimisation that `--disable=NAME` switches off: the one list that
/// tessel-compile's `--disable` (and `--disable=help`), the registered
/// pipelines' `disable=` option, the README's table and `bench/ab.py` all
/// take their names from (test/Driver/disable-switches.test checks them).
struct Optimization {
  llvm::StringLiteral name;
  /// The phase whose pipeline it is part of: "graph", "linalg" or
  /// "codegen" (the llvm phase's code generation).
  llvm::StringLiteral phase;
  /// The pass it runs, or the pass and option it sets ("pass{option}").
  llvm::StringLiteral pass;
  llvm::StringLiteral description;
};

/// Every optimisation --disable can name, in pipeline order.
llvm::ArrayRef<Optimization> getOptimizations();

/// The optimisation called `name`, or null.
const Optimization *lookupOptimization(llvm::StringRef name);

/// The names of getOptimizations(), joined by `separator`.
std::string joinOptimizationNames(llvm::StringRef separator);

/// Options shared by the pipelines. tessel-compile fills them from its
/// flags; the registered pipelines from the options below
/// (`tessel-opt --tessel-cpu-pipeline="target-cpu=znver4 disable=..."`).
struct PipelineOptions {
  /// Optimisation level, 0..3. At 0, contractions stay scalar loops.
  unsigned optLevel = 2;
  /// The CPU generated for: sizes the register tiles and chooses the
  /// micro-kernels. Without one, an AVX2 machine with FMA (haswell).
  CpuTargetInfo target = getDefaultTarget();
  /// Optimisations switched off by name (tessel-compile --disable=NAME), for
  /// A/B comparisons; see getOptimizations().
  llvm::SmallVector<std::string> disabled;
  /// The activations' layout for 2-D convolutions and pooling: "nchw" (the
  /// model's) or "nhwc" (tessel-assign-layouts).
  std::string layout = "nchw";
  /// Post-training quantization (tessel-quantize-products, before
  /// tessel-integer-products): "" (none), "instrument" (return the
  /// activations to calibrate) or "apply" (with one scale and zero point
  /// per activation, from calibration).
  std::string quantize;
  std::vector<double> quantizeScales;
  std::vector<int64_t> quantizeZeroPoints;
  /// The products' precision (tessel-compile --precision): "fp32" (the
  /// model's), "bf16" or "fp16" (tessel-low-precision-products: products
  /// with constant weights on bf16 or f16 operands, where the target has
  /// the arithmetic).
  std::string precision = "fp32";
  /// tessel-low-precision-products' mode: "apply", or "simulate" (each
  /// product's precision chosen at run time by a mask input:
  /// --accuracy-budget's search build with --precision).
  std::string precisionMode = "apply";
  /// tessel-compile --debug-outputs: the artifact also returns each model
  /// node's output (tessel-expose-node-outputs), for tessel-compare.
  bool debugOutputs = false;
  /// With quantize "apply": the model nodes whose products stay f32
  /// (tessel-compile --keep-fp32, or --accuracy-budget's choice).
  std::vector<std::string> keepFp32;
  /// A padded dimension (tessel-compile --dim-range on a sequence): the
  /// fewest valid positions a run may have (tessel-mask-padded-positions'
  /// min-length).
  int64_t paddedMinLength = 1;
  /// Whether tessel-mask-padded-positions runs: false only in the driver's
  /// builds that compare a padded dimension's constants between lengths.
  bool maskPaddedPositions = true;

  bool enabled(llvm::StringRef name) const {
    return llvm::find(disabled, name) == disabled.end();
  }
  /// Whether bf16 x bf16 -> f32 products run on AMX-BF16 tiles (the target
  /// has them and `amx-tiles` is enabled).
  bool amxBf16Tiles() const {
    return target.amxTile && target.amxBf16 && enabled("amx-tiles");
  }
  /// Whether f16 products run on AVX512-FP16's FMAs (the target has them
  /// and `f16-fma` is enabled).
  bool f16Fma() const { return target.avx512Fp16 && enabled("f16-fma"); }
  /// Whether the target, as the switches leave it, has a bf16 product
  /// kernel that beats its FP32 FMA (selectBf16ProductKernel: AMX-BF16
  /// tiles, or a vdpbf16ps faster than the FMA), and whether that is AMX
  /// tiles alone (then only products of whole tiles go bf16).
  bool hasFastBf16Products() const;
  bool bf16WholeTilesOnly() const;
  /// Whether the target, as the switches leave it, has an f16 product
  /// kernel that beats its FP32 FMA (AVX512-FP16, `f16-fma`).
  bool hasFastF16Products() const;
  /// f32 elements per vector register of the target.
  int64_t getVectorWidth() const { return target.getF32Lanes(); }
  static CpuTargetInfo getDefaultTarget();
};

/// The registered pipelines' textual options: the same as tessel-compile's
/// flags of the same names.
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> targetCpu{
      *this, "target-cpu",
      llvm::cl::desc("LLVM CPU name, or host (as tessel-compile "
                     "--target-cpu; default: host)"),
      llvm::cl::init("host")};
  Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("Extra LLVM target features, +avx2,-avx512f (as "
                     "tessel-compile --target-features)")};
  Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimisation level 0..3 (as tessel-compile -O)"),
      llvm::cl::init(2)};
  ListOption<std::string> disable{
      *this, "disable",
      llvm::cl::desc("Optimisations switched off (as tessel-compile "
                     "--disable)")};
  Option<std::string> layout{
      *this, "layout",
      llvm::cl::desc("nchw or nhwc (as tessel-compile --layout)"),
      llvm::cl::init("nchw")};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("fp32, bf16 or fp16 (as tessel-compile --precision)"),
      llvm::cl::init("fp32")};
  Option<bool> debugOutputs{
      *this, "debug-outputs",
      llvm::cl::desc("Also return every model node's output (as "
                     "tessel-compile --debug-outputs)"),
      llvm::cl::init(false)};
};

/// Checks the options for a resolved `target` and turns them into
/// PipelineOptions; on failure `error` says what is wrong, in
/// tessel-compile's words.
FailureOr<PipelineOptions>
resolvePipelineOptions(const CpuTargetInfo &target, unsigned optLevel,
                       llvm::ArrayRef<std::string> disabled,
                       llvm::StringRef layout, llvm::StringRef precision,
                       std::string &error);

/// import -> graph: graph-level simplification on the tessel dialect.
void buildGraphPipeline(OpPassManager &pm, const PipelineOptions &options);
/// graph -> linalg: tessel ops to structured ops on tensors.
void buildLinalgPipeline(OpPassManager &pm, const PipelineOptions &options);
/// linalg -> llvm: code generation, then lowering.
void buildLLVMPipeline(OpPassManager &pm, const PipelineOptions &options);
/// The first part of linalg -> llvm: CPU code generation on tensors (the
/// vectorizers form the kernels; at -O0 nothing).
void buildCodegenPipeline(OpPassManager &pm, const PipelineOptions &options);
/// The rest of linalg -> llvm: entry ABI, bufferization, loops, and the LLVM
/// dialect.
void buildLoweringPipeline(OpPassManager &pm, const PipelineOptions &options);

/// Adds the phases after `from` up to and including `to`.
void buildPipeline(OpPassManager &pm, Phase from, Phase to,
                   const PipelineOptions &options);

/// Registers `tessel-graph-pipeline`, `tessel-linalg-pipeline`,
/// `tessel-llvm-pipeline` and `tessel-cpu-pipeline` (all three) for
/// tessel-opt, each taking PipelineCLOptions.
void registerTesselPipelines();

} // namespace mlir::tessel

#endif // TESSEL_PIPELINES_PIPELINES_H
