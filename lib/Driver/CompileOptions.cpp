//===- CompileOptions.cpp - tessel-compile's command line -----------------===//

#include "CompileOptions.h"

#include "tessel/Pipelines/Pipelines.h"

#include "llvm/ADT/StringExtras.h"

namespace cl = llvm::cl;
using namespace mlir::tessel;

namespace mlir::tessel::compile_options {

cl::OptionCategory category("tessel-compile options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<model.onnx | module.mlir>"),
                               cl::cat(category));
cl::opt<std::string> outputFile(
    "o", cl::value_desc("file"),
    cl::desc("Output file (default: stdout for --compile-to, else the input's "
             "name with .so, .o or .ll)"),
    cl::cat(category));
cl::opt<std::string> targetName("target", cl::init("cpu"),
                                cl::value_desc("cpu"), cl::desc("Target: cpu"),
                                cl::cat(category));
cl::opt<std::string>
    targetCpu("target-cpu", cl::init("host"), cl::value_desc("name"),
              cl::desc("LLVM CPU name (znver4, skylake-avx512, haswell, "
                       "x86-64...) or host (the default)"),
              cl::cat(category));
cl::opt<std::string>
    targetFeatures("target-features", cl::init(""),
                   cl::value_desc("+feature,-feature,..."),
                   cl::desc("Extra LLVM target features, e.g. +avx2,-avx512f"),
                   cl::cat(category));
cl::opt<char> optLevel("O", cl::Prefix, cl::init('2'),
                       cl::desc("Optimisation level: -O0, -O1, -O2, -O3"),
                       cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape", cl::value_desc("NAME=D0xD1x..."),
    cl::desc("Static shape for a graph input (repeatable); ? as dimension "
             "0 for a dynamic batch (with --dim-range)"),
    cl::cat(category));
cl::list<std::string> dimRange(
    "dim-range", cl::value_desc("N=LO..HI"),
    cl::desc("Compiles a dynamic dimension (the model's symbol N, or '?' in "
             "--input-shape) for every size from LO to HI: the batch "
             "(dimension 0 of every input) runs in chunks of the sizes built; "
             "another dimension, such as a sequence, runs padded to the next "
             "length built (repeatable: a batch and one other)"),
    cl::cat(category));
cl::list<std::string> specializeSizes(
    "specialize", cl::value_desc("N=S1,S2,..."),
    cl::desc("The sizes a --dim-range artifact has code for: for the batch "
             "(default: 1, 4 and 8, up to HI) a batch runs in chunks of "
             "these sizes, the cheapest by their measured run times; for "
             "another dimension (default: 8, 12, 16, 24, 32, 48, ... and HI) a run takes "
             "the shortest length built that holds it"),
    cl::cat(category));
cl::list<std::string> inputValues(
    "input-value", cl::value_desc("NAME=V0,V1,...|NAME=FILE.pb"),
    cl::desc("Fix a graph input's value at compile time (repeatable): the "
             "model is compiled for it, e.g. for a shape input, and the "
             "artifact refuses other values"),
    cl::cat(category));
cl::opt<std::string> preprocess(
    "preprocess", cl::value_desc("SPEC"),
    cl::desc("Compile an image's preprocessing into the model, e.g. "
             "input=uint8,hwc,resize=256,crop=224,scale=1/255,"
             "mean=0.485:0.456:0.406,std=0.229:0.224:0.225: the artifact "
             "takes raw pixels (docs/compiler.md, Preprocessing)"),
    cl::cat(category));
cl::opt<std::string>
    compileTo("compile-to", cl::value_desc("phase"),
              cl::desc("Stop after a phase and print its IR: import, graph, "
                       "linalg, llvm"),
              cl::cat(category));
cl::opt<std::string>
    compileFrom("compile-from", cl::value_desc("phase"),
                cl::desc("The phase an .mlir input is at (default: import)"),
                cl::cat(category));
cl::opt<std::string> emitKind("emit", cl::init("so"),
                              cl::value_desc("llvm-ir|obj|so"),
                              cl::desc("Final output (default: so)"),
                              cl::cat(category));
cl::opt<uint64_t> weightsFileThreshold(
    "weights-file-threshold", cl::value_desc("bytes"),
    cl::init(uint64_t(1) << 30),
    cl::desc("When the model's constants of at least 64 KiB total this many "
             "bytes (default 1 GiB; 0: always), they go to OUTPUT.weights "
             "beside the artifact, which the runtime maps read-only and "
             "shares between sessions and processes"),
    cl::cat(category));
cl::opt<unsigned> codegenPartsOption(
    "codegen-parts", cl::value_desc("n"), cl::init(0),
    cl::desc("Compile a shared object's machine code in N parts, each on a "
             "thread of its own (default 0: one part per 48 functions, at "
             "most 4, whatever the host; the artifact does not depend on "
             "the host's cores)"),
    cl::cat(category));
cl::opt<std::string> progressMode(
    "progress", cl::value_desc("auto|always|never"), cl::init("auto"),
    cl::desc("Print a line per phase on stderr once a compile has run for 2 "
             "s: auto (default: when stderr is a terminal), always (every "
             "phase, from the start), never"),
    cl::cat(category));
// How long a compile runs before --progress=auto prints (tests set 0, so
// that what they check does not depend on the machine's speed).
cl::opt<unsigned> progressAfterMs("progress-after-ms", cl::init(2000),
                                  cl::Hidden, cl::cat(category));
cl::opt<bool> checkOnly(
    "check",
    cl::desc("Only check that the model is supported: list every unsupported "
             "operator, type and dynamic dimension; exit 0 if supported"),
    cl::cat(category));
/// `--disable`'s description, naming every optimisation from the one list.
const std::string &disableDescription() {
  static const std::string text =
      "Switch optimisations off, for A/B comparisons: " +
      joinOptimizationNames(", ") +
      " (repeatable; --disable=help lists them with what each does)";
  return text;
}
cl::list<std::string> disabledOptimizations("disable", cl::CommaSeparated,
                                            cl::value_desc("name,..."),
                                            cl::desc(disableDescription()),
                                            cl::cat(category));
cl::list<std::string> passPlugins(
    "load-pass-plugin", cl::value_desc("plugin.so"),
    cl::desc("Load a pass plugin (as tessel-opt --load-pass-plugin) whose "
             "passes --insert-pass can name (repeatable)"),
    cl::cat(category));
cl::list<std::string> insertedPasses(
    "insert-pass", cl::value_desc("phase:pipeline"),
    cl::desc("Run a textual pass pipeline at the end of a phase (graph, "
             "linalg or llvm), e.g. graph:my-pass or "
             "linalg:func.func(my-pass{opt=1}) (repeatable; in order)"),
    cl::cat(category));
cl::opt<bool> printTarget(
    "print-target",
    cl::desc("Print what code generation knows of --target-cpu (vector "
             "width, registers, multiply-add instructions) and the "
             "micro-kernel each product's element types get, then exit"),
    cl::cat(category));
cl::opt<std::string> activationLayout(
    "layout", cl::value_desc("nchw|nhwc"), cl::init("nchw"),
    cl::desc("Layout of 2-D convolutions' and pooling's activations: nchw "
             "(the model's, default) or nhwc (channels last, converted only "
             "at the graph's edges; tessel-assign-layouts)"),
    cl::cat(category));
cl::opt<std::string> quantizeKind(
    "quantize", cl::value_desc("int8"),
    cl::desc("Post-training quantization: int8 runs the convolutions and "
             "matrix products with constant weights on 8-bit integers, their "
             "activations calibrated on --calibration-data"),
    cl::cat(category));
cl::opt<std::string> precision(
    "precision", cl::value_desc("fp32|bf16|fp16"), cl::init("fp32"),
    cl::desc("The products' precision: fp32 (the model's, default), bf16 or "
             "fp16 (convolutions and matrix products with constant weights "
             "multiply bf16 or f16 operands and sum in f32: bf16 on "
             "AVX512-BF16 or AMX-BF16, fp16 on AVX512-FP16; a target without "
             "that arithmetic keeps fp32, with a warning)"),
    cl::cat(category));
cl::list<std::string> keepFp32(
    "keep-fp32", cl::value_desc("NODE,..."), cl::CommaSeparated,
    cl::desc("With --quantize=int8 or --precision=bf16|fp16: the model "
             "nodes (ONNX names) whose convolution or matrix product stays "
             "FP32"),
    cl::cat(category));
cl::opt<std::string> accuracyBudget(
    "accuracy-budget", cl::value_desc("cosine:C|max-abs:X|top1:P"),
    cl::desc("With --quantize=int8 or --precision=bf16|fp16: keep the "
             "fewest products in FP32 such that, on every sample of "
             "--accuracy-data (default with --quantize: the calibration "
             "data) and every subset, the outputs' cosine "
             "similarity to FP32 is at least C, no output element differs by "
             "more than X, or at most P percent of the samples change their "
             "top-1 class"),
    cl::cat(category));
cl::opt<std::string> accuracyData(
    "accuracy-data", cl::value_desc("DIR|FILE.npz"),
    cl::desc("--accuracy-budget's samples, as --calibration-data's; a "
             "directory of .npz files or of sample directories holds named "
             "subsets, and the budget must hold on each"),
    cl::cat(category));
cl::opt<bool> debugOutputs(
    "debug-outputs",
    cl::desc("The artifact also returns every model node's output, named "
             "debug:<node>, in program order (for tessel-compare's "
             "per-layer report; fusion keeps them, so it runs slower)"),
    cl::cat(category));
cl::opt<std::string> calibrationData(
    "calibration-data", cl::value_desc("DIR|FILE.npz"),
    cl::desc("--quantize's samples: a directory of one subdirectory per "
             "sample holding <input name>.npy, or one .npz (numpy.savez or "
             "savez_compressed) whose arrays, one per input, carry a leading "
             "sample axis"),
    cl::cat(category));
cl::opt<std::string> calibrationMethod(
    "calibration", cl::init("minmax"),
    cl::value_desc("minmax|percentile[:P]|entropy"),
    cl::desc("How --quantize chooses each activation's range from the "
             "samples: minmax (the default), percentile (P: the share "
             "kept, 99.99 by default) or entropy (the KL-divergence "
             "threshold, as TensorRT)"),
    cl::cat(category));
cl::opt<std::string> reportFile("report", cl::value_desc("file.json"),
                                cl::desc("Write a JSON compilation report"),
                                cl::cat(category));

} // namespace mlir::tessel::compile_options

std::string mlir::tessel::compile_options::describeFlags(
    const BatchRequest &batchRequest, const PaddedRequest &paddedRequest) {
  std::string flags = std::string("-O") + optLevel.getValue() +
                      " --target=" + targetName + " --target-cpu=" + targetCpu;
  if (!targetFeatures.empty())
    flags += " --target-features=" + targetFeatures;
  for (const std::string &spec : inputShapes)
    flags += " --input-shape=" + spec;
  for (const std::string &spec : inputValues)
    flags += " --input-value=" + spec;
  for (const std::string &range : dimRange)
    flags += " --dim-range=" + range;
  auto specialize = [&](const std::string &name, ArrayRef<int64_t> sizes) {
    flags += " --specialize=" + name + "=";
    for (auto [i, size] : llvm::enumerate(sizes))
      flags += (i ? "," : "") + std::to_string(size);
  };
  if (batchRequest.enabled())
    specialize(batchRequest.name, batchRequest.sizes);
  if (paddedRequest.enabled())
    specialize(paddedRequest.name, paddedRequest.lengths);
  if (!preprocess.empty())
    flags += " --preprocess=" + preprocess;
  for (const std::string &name : disabledOptimizations)
    flags += " --disable=" + name;
  for (const std::string &path : passPlugins)
    flags += " --load-pass-plugin=" + path;
  for (const std::string &spec : insertedPasses)
    flags += " --insert-pass=" + spec;
  if (activationLayout != "nchw")
    flags += " --layout=" + activationLayout;
  if (precision != "fp32")
    flags += " --precision=" + precision;
  if (debugOutputs)
    flags += " --debug-outputs";
  if (!accuracyBudget.empty())
    flags += " --accuracy-budget=" + accuracyBudget +
             (accuracyData.empty() ? std::string()
                                   : " --accuracy-data=" + accuracyData);
  if (!keepFp32.empty())
    flags += " --keep-fp32=" + llvm::join(keepFp32, ",");
  if (!quantizeKind.empty())
    flags += " --quantize=" + quantizeKind +
             " --calibration-data=" + calibrationData +
             " --calibration=" + calibrationMethod;
  return flags;
}
