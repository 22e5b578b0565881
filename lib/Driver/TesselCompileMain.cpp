//===- TesselCompileMain.cpp - The tessel-compile driver ------------------===//

#include "tessel/Driver/TesselCompileMain.h"

#include "AccuracyBudget.h"
#include "ChooseKeptProducts.h"
#include "Calibration.h"
#include "Progress.h"
#include "Report.h"
#include "WriteArtifact.h"
#include "build_info.h"
#include "TemporaryBuild.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Driver/Diagnostics.h"
#include "tessel/Import/ONNX/ImportONNX.h"
#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Pipelines/Registration.h"
#include "tessel/Target/LLVM/Artifact.h"
#include "tessel/Target/LLVM/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tessel;
namespace cl = llvm::cl;

#ifndef TESSEL_VERSION
#define TESSEL_VERSION "0.0.0"
#endif

namespace {

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
cl::list<std::string>
    inputShapes("input-shape", cl::value_desc("NAME=D0xD1x..."),
                cl::desc("Static shape for a graph input (repeatable)"),
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

using ::tessel::ErrorCode;


/// Prints `<where>: error[E<code>]: <message>` and returns `exitCode`.
int reportError(llvm::StringRef where, ErrorCode code,
                const llvm::Twine &message, int exitCode = 1) {
  llvm::errs() << where << ": " << ::tessel::errorTag(code) << ": " << message
               << "\n";
  return exitCode;
}

/// A usage error: exit code 2.
int usageError(const llvm::Twine &message) {
  return reportError("tessel-compile", ErrorCode::Usage, message, 2);
}

/// Parses NAME=1x3x224x224 (NAME may itself contain '=' or 'x').
LogicalResult parseInputShape(llvm::StringRef spec, ImportOptions &options,
                              std::string &error) {
  size_t eq = spec.rfind('=');
  if (eq == llvm::StringRef::npos || eq == 0) {
    error = "--input-shape '" + spec.str() + "' is not NAME=D0xD1x...";
    return failure();
  }
  llvm::StringRef name = spec.take_front(eq), dims = spec.drop_front(eq + 1);
  llvm::SmallVector<int64_t> shape;
  if (!dims.empty() && dims != "scalar") {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0) {
        error = "--input-shape '" + spec.str() + "': '" + part.str() +
                "' is not a non-negative dimension";
        return failure();
      }
      shape.push_back(d);
    }
  }
  options.inputShapes[name] = shape;
  return success();
}

std::string defaultOutput(llvm::StringRef input, llvm::StringRef extension) {
  llvm::SmallString<128> path(llvm::sys::path::filename(input));
  llvm::sys::path::replace_extension(path, extension);
  return path.str().str();
}

/// libLLVM and libMLIR register ~400 options for every backend (Polly,
/// AMDGPU, Hexagon, ...). --help lists Tessel's options and MLIR's
/// `--mlir-*` flags (IR printing, timing, reproducers); the rest are hidden:
/// --help-hidden lists them, and they still parse.
void hideBackendOptions() {
  static cl::OptionCategory mlirCategory("MLIR options");
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    if (name.starts_with("mlir-")) {
      option->addCategory(mlirCategory);
      continue;
    }
    bool shown = llvm::is_contained(option->Categories, &category) ||
                 name == "help" || name == "help-list" || name == "version";
    if (!shown && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

int mlir::tessel::tesselCompileMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Before the pass manager's options: --mlir-print-ir-before/after=PASS
  // look PASS up among the registered passes (Tessel's and MLIR's).
  registerTesselPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // Recorded in the artifact's descriptor and the report: the same compiler
  // (release and revision) writes the same bytes.
  std::string version = std::string("tessel ") + TESSEL_VERSION + " (git " +
                        ::tessel::build::gitRevision() + ", LLVM " +
                        LLVM_VERSION_STRING + ")";
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << ::tessel::build::versionText("tessel-compile");
  });
  hideBackendOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tessel-compile: compiles an ONNX model into a native artifact\n\n"
      "  tessel-compile model.onnx -o model.so\n"
      "  tessel-compile model.onnx --compile-to=linalg\n");

  // Options first: a wrong flag is a usage error before any work.
  for (const std::string &path : passPlugins) {
    llvm::Expected<PassPlugin> plugin = PassPlugin::load(path);
    if (!plugin)
      return usageError("cannot load the pass plugin '" + path +
                        "': " + llvm::toString(plugin.takeError()));
    plugin->registerPassRegistryCallbacks();
  }
  // Each --insert-pass as (phase, pipeline), checked here: the pipeline is
  // parsed again into each phase's pass manager.
  llvm::SmallVector<std::pair<Phase, std::string>> insertions;
  for (const std::string &spec : insertedPasses) {
    auto [phaseName, pipeline] = llvm::StringRef(spec).split(':');
    std::optional<Phase> phase = parsePhase(phaseName);
    if (!phase || *phase == Phase::Import || pipeline.empty())
      return usageError("--insert-pass '" + spec +
                        "' is not PHASE:PIPELINE with PHASE graph, linalg or "
                        "llvm");
    std::string error;
    llvm::raw_string_ostream errors(error);
    OpPassManager check(ModuleOp::getOperationName());
    if (failed(parsePassPipeline(pipeline, check, errors)))
      return usageError("--insert-pass '" + spec + "': " +
                        llvm::StringRef(error).trim());
    insertions.emplace_back(*phase, pipeline.str());
  }
  if (targetName != "cpu")
    return usageError("unsupported --target '" + targetName +
                      "' (supported: cpu)");
  if (optLevel < '0' || optLevel > '3')
    return usageError(llvm::Twine("unknown optimisation level -O") +
                      llvm::Twine(optLevel));
  std::optional<Phase> stopAt;
  if (!compileTo.empty() && !(stopAt = parsePhase(compileTo)))
    return usageError("unknown --compile-to phase '" + compileTo +
                      "' (import, graph, linalg, llvm)");
  std::optional<Phase> startAt;
  if (!compileFrom.empty() && !(startAt = parsePhase(compileFrom)))
    return usageError("unknown --compile-from phase '" + compileFrom +
                      "' (import, graph, linalg, llvm)");
  if (emitKind != "so" && emitKind != "obj" && emitKind != "llvm-ir")
    return usageError("unknown --emit kind '" + emitKind +
                      "' (llvm-ir, obj, so)");
  if (llvm::is_contained(disabledOptimizations, "help")) {
    for (const Optimization &optimization : getOptimizations())
      llvm::outs() << "  " << optimization.name << ": "
                   << optimization.description << " (" << optimization.phase
                   << ", " << optimization.pass << ")\n";
    return 0;
  }
  // The target machine first: its description sizes the register tiles.
  CpuTarget target{"", targetCpu, targetFeatures,
                   static_cast<unsigned>(optLevel - '0')};
  std::string error;
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(target, error);
  if (failed(machine))
    return usageError(error);
  FailureOr<PipelineOptions> resolved = resolvePipelineOptions(
      getCpuTargetInfo(**machine), target.optLevel,
      llvm::SmallVector<std::string>(disabledOptimizations.begin(),
                                     disabledOptimizations.end()),
      activationLayout, precision, error);
  if (failed(resolved))
    return usageError(error);
  PipelineOptions pipelineOptions = *resolved;
  pipelineOptions.debugOutputs = debugOutputs;
  pipelineOptions.keepFp32.assign(keepFp32.begin(), keepFp32.end());
  AccuracyBudget budget;
  if (!accuracyBudget.empty()) {
    if (quantizeKind.empty() && precision == "fp32")
      return usageError("--accuracy-budget applies to --quantize=int8 or "
                        "--precision=bf16|fp16 (the products it may keep in "
                        "FP32)");
    if (quantizeKind.empty() && accuracyData.empty())
      return usageError("--accuracy-budget with --precision needs "
                        "--accuracy-data=DIR or FILE.npz (the samples the "
                        "budget must hold on)");
    std::string error;
    if (!parseAccuracyBudget(accuracyBudget, budget, error))
      return usageError(error);
  } else if (!accuracyData.empty()) {
    return usageError("--accuracy-data applies with --accuracy-budget");
  }
  if (!keepFp32.empty() && quantizeKind.empty() && precision == "fp32")
    return usageError("--keep-fp32 applies with --quantize=int8 or "
                      "--precision=bf16|fp16");
  CalibrationMethod calibration;
  if (!quantizeKind.empty()) {
    if (quantizeKind != "int8")
      return usageError("unsupported --quantize '" + quantizeKind +
                        "' (supported: int8)");
    if (calibrationData.empty())
      return usageError("--quantize=int8 needs --calibration-data=DIR or "
                        "FILE.npz (samples of the model's inputs)");
    std::string error;
    if (!parseCalibrationMethod(calibrationMethod, calibration, error))
      return usageError(error);
  } else if (!calibrationData.empty() ||
             calibrationMethod.getNumOccurrences()) {
    return usageError("--calibration-data and --calibration apply with "
                      "--quantize=int8");
  }
  if (precision == "bf16" && !pipelineOptions.hasFastBf16Products()) {
    const CpuTargetInfo &t = pipelineOptions.target;
    llvm::errs() << "tessel-compile: warning: --precision=bf16: the products "
                    "stay fp32: the target ("
                 << t.cpu << ") ";
    if (t.amxBf16)
      llvm::errs() << "has AMX-BF16 tiles, turned off (--disable=amx-tiles), "
                      "and ";
    if (t.avx512Bf16)
      llvm::errs() << "runs vdpbf16ps at " << llvm::format("%g", t.bf16DotRate)
                   << "x the multiply-adds per cycle of its FP32 FMA\n";
    else
      llvm::errs() << "has no bf16 arithmetic (AVX512-BF16)\n";
  }
  if (precision == "fp16" && !pipelineOptions.hasFastF16Products())
    llvm::errs() << "tessel-compile: warning: --precision=fp16: the products "
                    "stay fp32: the target ("
                 << pipelineOptions.target.cpu << ") "
                 << (pipelineOptions.target.avx512Fp16
                         ? "has AVX512-FP16, turned off (--disable=f16-fma)"
                         : "has no f16 arithmetic (AVX512-FP16)")
                 << "\n";
  if (printTarget) {
    MLIRContext context;
    printCpuTargetInfo(pipelineOptions.target, &context, llvm::outs());
    return 0;
  }
  if (inputFile.empty())
    return usageError("no input file (tessel-compile model.onnx -o model.so)");
  ImportOptions importOptions;
  importOptions.defaultModelName = llvm::sys::path::stem(inputFile).str();
  for (const std::string &spec : inputShapes) {
    std::string error;
    if (failed(parseInputShape(spec, importOptions, error)))
      return usageError(error);
  }
  for (const std::string &spec : inputValues) {
    llvm::StringRef text(spec);
    size_t eq = text.rfind('=');
    if (eq == llvm::StringRef::npos || eq == 0)
      return usageError("--input-value '" + spec +
                        "' is not NAME=V0,V1,... or NAME=FILE.pb");
    importOptions.inputValues[text.take_front(eq)] =
        text.drop_front(eq + 1).str();
  }
  importOptions.preprocess = preprocess;
  bool isMLIR = llvm::StringRef(inputFile).ends_with(".mlir") || startAt;
  if (isMLIR && !inputValues.empty())
    return usageError("--input-value applies to ONNX models, not .mlir input");
  if (isMLIR && !preprocess.empty())
    return usageError("--preprocess applies to ONNX models, not .mlir input");
  if (startAt && !llvm::StringRef(inputFile).ends_with(".mlir"))
    return usageError("--compile-from needs an .mlir input");
  Phase from = startAt.value_or(Phase::Import);
  Phase to = stopAt.value_or(Phase::LLVM);
  if (checkOnly) {
    if (stopAt || startAt || !outputFile.empty())
      return usageError("--check takes no -o, --compile-to or --compile-from");
    // Lowering to linalg is where element types meet the code generator;
    // nothing is generated.
    to = Phase::Linalg;
  }
  if (to < from)
    return usageError("--compile-to is earlier than --compile-from");
  if (!quantizeKind.empty() && from > Phase::Import)
    return usageError("--quantize applies to a model (or imported .mlir), "
                      "not to --compile-from");

  // Declared before the context, so it outlives the context's remark
  // engine, which writes into it.
  CompileReport report;
  DialectRegistry registry;
  registerTesselDialects(registry);
  MLIRContext context(registry);
  TesselDiagnosticHandler diagnostics(&context, inputFile);

  report.input = inputFile;
  // The passes' remarks (what they did) go to the report.
  if (!reportFile.empty() && failed(recordRemarksIn(context, report)))
    return reportError("tessel-compile", ErrorCode::Internal,
                       "cannot record the passes' remarks");
  report.compilerVersion = version;
  report.gitRevision = ::tessel::build::gitRevision();
  report.llvmVersion = LLVM_VERSION_STRING;
  std::string flags = std::string("-O") + optLevel.getValue() +
                      " --target=" + targetName + " --target-cpu=" + targetCpu;
  if (!targetFeatures.empty())
    flags += " --target-features=" + targetFeatures;
  for (const std::string &spec : inputShapes)
    flags += " --input-shape=" + spec;
  for (const std::string &spec : inputValues)
    flags += " --input-value=" + spec;
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
    flags += " --quantize=" + quantizeKind + " --calibration-data=" +
             calibrationData + " --calibration=" + calibrationMethod;
  report.flags = flags;
  Progress::Mode mode;
  if (!parseProgressMode(progressMode, mode))
    return usageError("--progress is auto, always or never, not '" +
                      progressMode + "'");
  Progress progress(mode, std::chrono::milliseconds(progressAfterMs));

  auto finishReport = [&]() {
    progress.finish(report.output);
    if (reportFile.empty())
      return 0;
    std::string error;
    if (failed(report.write(reportFile, error))) {
      return reportError("tessel-compile", ErrorCode::OutputFile, error);
    }
    return 0;
  };

  // Phase 1: import (or parse).
  progress.begin(isMLIR ? "parse" : "import", inputFile);
  auto start = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> module;
  if (isMLIR) {
    llvm::SourceMgr sourceMgr;
    std::string errorMessage;
    auto file = openInputFile(inputFile, &errorMessage);
    if (!file) {
      return reportError(inputFile, ErrorCode::FileUnreadable, errorMessage);
    }
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    SourceMgrDiagnosticHandler sourceDiagnostics(sourceMgr, &context);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
  } else {
    ImportError importError;
    module = importOnnxFile(inputFile, &context, importOptions, importError);
    if (!module) {
      printImportError(llvm::errs(), inputFile, importError);
      return 1;
    }
  }
  // The importer checks every op it builds (NodeContext::build): an
  // imported module that does not verify is Tessel's fault, not the model's.
  diagnostics.setInternal(!isMLIR);
  if (failed(verify(*module)))
    return 1;
  diagnostics.setInternal(false);
  llvm::StringSet<> nodeNames;
  module->walk([&](Operation *op) {
    if (std::optional<NodeOrigin> origin = getNodeOrigin(op->getLoc()))
      if (origin->opType != "initializer")
        nodeNames.insert(origin->name);
  });
  size_t importedNodes = nodeNames.size();
  report.phases.push_back(
      {std::string(getPhaseName(from)), secondsSince(start)});

  // Post-training quantization: calibrate on a build of its own, whose
  // remarks stay out of the report.
  if (!quantizeKind.empty()) {
    progress.begin("calibration", calibrationData);
    start = std::chrono::steady_clock::now();
    PipelineOptions options = pipelineOptions;
    options.quantize = "instrument";
    options.debugOutputs = false;
    size_t count = 0;
    bool inspected = false;
    ErrorCode code;
    std::string message;
    FailureOr<TemporaryArtifact> shared = buildTemporaryArtifact(
        *module, registry, inputFile, options, **machine, target.optLevel,
        ArtifactInfo{version, flags + " (calibration build)"},
        [&](ModuleOp graph) {
          inspected = true;
          graph.walk([&](func::FuncOp func) {
            for (unsigned i = 0; i < func.getNumResults(); ++i)
              if (auto name =
                      func.getResultAttrOfType<StringAttr>(i, "tessel.name"))
                count += name.getValue().starts_with("calibration_");
          });
          return success(count > 0);
        },
        code, message);
    if (failed(shared)) {
      if (inspected && count == 0)
        return reportError(inputFile, ErrorCode::NothingToQuantize,
                           "--quantize=int8: the model has no convolution, "
                           "MatMul or Gemm with constant weights and an f32 "
                           "activation to quantize");
      return reportError(inputFile, code,
                         "the calibration build failed: " + message);
    }
    std::vector<ActivationRange> ranges;
    size_t samples = 0;
    CalibrationError failure;
    bool calibrated = mlir::tessel::calibrate(shared->getPath(), count,
                                              calibrationData, calibration,
                                              ranges, samples, failure);
    if (!calibrated)
      return reportError(failure.code == ErrorCode::CalibrationData
                             ? calibrationData.getValue()
                             : inputFile.getValue(),
                         failure.code, failure.message);
    pipelineOptions.quantize = "apply";
    report.calibrationMethod = calibrationMethod;
    report.calibrationSamples = static_cast<int64_t>(samples);
    for (const ActivationRange &r : ranges) {
      pipelineOptions.quantizeScales.push_back(r.scale);
      pipelineOptions.quantizeZeroPoints.push_back(r.zeroPoint);
      report.calibratedActivations.push_back(
          {r.low, r.high, r.scale, r.zeroPoint});
    }
    report.phases.push_back({"calibration", secondsSince(start)});
  }

  // Mixed precision by budget: a simulation build for the search, then the
  // choice checked on the real build.
  if (!accuracyBudget.empty()) {
    progress.begin("accuracy budget", accuracyBudget);
    start = std::chrono::steady_clock::now();
    std::string summary, message;
    ErrorCode code;
    if (!chooseKeptProducts(
            *module, registry, inputFile, budget,
            accuracyData.empty() ? calibrationData.getValue()
                                 : accuracyData.getValue(),
            **machine, target.optLevel, ArtifactInfo{version, flags},
            pipelineOptions, report.accuracyBudget, summary, code, message))
      return reportError(code == ErrorCode::CalibrationData
                             ? (accuracyData.empty() ? calibrationData.getValue()
                                                     : accuracyData.getValue())
                             : inputFile.getValue(),
                         code, message);
    llvm::errs() << summary;
    report.phases.push_back({"accuracy_budget", secondsSince(start)});
  }

  // Phases 2..4: one pass manager per phase, so each is timed on its own.
  for (Phase phase : {Phase::Graph, Phase::Linalg, Phase::LLVM}) {
    if (phase <= from || phase > to)
      continue;
    progress.begin(phase == Phase::LLVM ? "codegen" : getPhaseName(phase),
                   phase == Phase::LLVM
                       ? "tiling and vectorising " +
                             std::to_string(report.kernels.size()) +
                             " kernels"
                       : std::string());
    start = std::chrono::steady_clock::now();
    // The LLVM phase runs as two pass managers: the kernels are recorded
    // between code generation, which forms them, and lowering.
    auto run = [&](function_ref<void(OpPassManager &)> build,
                   bool last) -> std::optional<int> {
      PassManager pm(&context, ModuleOp::getOperationName());
      if (failed(applyPassManagerCLOptions(pm)))
        return 2;
      applyDefaultTimingPassManagerCLOptions(pm);
      build(pm);
      if (last)
        for (const auto &[at, pipeline] : insertions)
          if (at == phase && failed(parsePassPipeline(pipeline, pm)))
            return 2;
      if (failed(pm.run(*module))) {
        if (diagnostics.getErrorCount() == 0)
          reportError(inputFile, ErrorCode::Lowering,
                      "the " + getPhaseName(phase) + " phase failed");
        return 1;
      }
      return std::nullopt;
    };
    std::optional<int> failure;
    if (phase == Phase::LLVM) {
      failure = run(
          [&](OpPassManager &pm) {
            buildCodegenPipeline(pm, pipelineOptions);
          },
          /*last=*/false);
      if (!failure) {
        report.recordKernels(*module);
        progress.begin("llvm", "lowering to the LLVM dialect");
        failure = run(
            [&](OpPassManager &pm) {
              buildLoweringPipeline(pm, pipelineOptions);
            },
            /*last=*/true);
      }
    } else {
      failure = run(
          [&](OpPassManager &pm) {
            buildPipeline(pm, static_cast<Phase>(static_cast<int>(phase) - 1),
                          phase, pipelineOptions);
          },
          /*last=*/true);
    }
    if (failure)
      return *failure;
    report.phases.push_back(
        {std::string(getPhaseName(phase)), secondsSince(start)});
    if (phase == Phase::Linalg)
      report.recordKernels(*module);
  }

  if (checkOnly) {
    llvm::outs() << inputFile << ": supported: " << importedNodes
                 << " ONNX nodes import and lower\n";
    return 0;
  }

  if (stopAt) {
    std::string errorMessage;
    std::string path = outputFile.empty() ? "-" : outputFile.getValue();
    auto output = openOutputFile(path, &errorMessage);
    if (!output) {
      return reportError("tessel-compile", ErrorCode::OutputFile, errorMessage);
    }
    module->print(output->os());
    output->os() << "\n";
    output->keep();
    report.output = path;
    return finishReport();
  }

  // The artifact: LLVM IR, object, shared object.
  std::string extension = emitKind == "so"    ? "so"
                          : emitKind == "obj" ? "o"
                                              : "ll";
  ArtifactRequest request{
      emitKind,
      outputFile.empty() ? defaultOutput(inputFile, extension) : outputFile,
      inputFile,
      target.optLevel,
      weightsFileThreshold,
      ArtifactInfo{version, flags}};
  ArtifactFailure failure;
  if (failed(writeArtifact(*module, **machine, std::move(request), report,
                           progress, failure)))
    return failure.message.empty()
               ? 1
               : reportError(failure.where, failure.code, failure.message);
  return finishReport();
}
