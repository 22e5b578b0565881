//===- TesselCompileMain.cpp - The tessel-compile driver ------------------===//

#include "tessel/Driver/TesselCompileMain.h"

#include "AccuracyBudget.h"
#include "BatchConstants.h"
#include "BatchOptions.h"
#include "Calibration.h"
#include "ChooseKeptProducts.h"
#include "CompileOptions.h"
#include "DynamicBuilds.h"
#include "Progress.h"
#include "Report.h"
#include "TemporaryBuild.h"
#include "WriteArtifact.h"
#include "build_info.h"
#include "tessel/Codegen/CPU/Passes.h"
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
using namespace mlir::tessel::compile_options;

#ifndef TESSEL_VERSION
#define TESSEL_VERSION "0.0.0"
#endif

namespace {

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
  bool isMLIR = llvm::StringRef(inputFile).ends_with(".mlir") || startAt;
  BatchRequest batchRequest;
  PaddedRequest paddedRequest;
  {
    // A range names the batch when its symbol is dimension 0 of an input
    // (or of none: '?' in --input-shape), else a padded dimension.
    std::vector<std::vector<std::string>> symbols;
    if (!dimRange.empty() && !isMLIR)
      symbols = readInputSymbols(inputFile);
    auto isBatch = [&](llvm::StringRef name) {
      bool anywhere = false, first = false;
      for (const std::vector<std::string> &dims : symbols) {
        anywhere |= llvm::is_contained(dims, name);
        first |= !dims.empty() && dims.front() == name;
      }
      return first || !anywhere;
    };
    std::string error;
    if (failed(parseDimRanges(dimRange, specializeSizes, isBatch, batchRequest,
                              paddedRequest, error)))
      return usageError(error);
  }
  importOptions.batchName = batchRequest.name;
  importOptions.paddedName = paddedRequest.name;
  if (paddedRequest.enabled())
    pipelineOptions.paddedMinLength = paddedRequest.min;
  importOptions.preprocess = preprocess;
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
  if (batchRequest.enabled() || paddedRequest.enabled()) {
    const char *other = isMLIR                    ? "an .mlir input"
                        : stopAt                  ? "--compile-to"
                        : !quantizeKind.empty()   ? "--quantize"
                        : !accuracyBudget.empty() ? "--accuracy-budget"
                        : weightsFileThreshold.getNumOccurrences()
                            ? "--weights-file-threshold"
                            : nullptr;
    if (other)
      return usageError(std::string("--dim-range does not combine with ") +
                        other +
                        " yet: give the dimension a fixed size with "
                        "--input-shape");
  }
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
  std::string flags = describeFlags(batchRequest, paddedRequest);
  report.flags = flags;
  report.batchName = batchRequest.name;
  report.batchMin = batchRequest.min;
  report.batchMax = batchRequest.max;
  report.batchSizes = batchRequest.sizes;
  report.paddedName = paddedRequest.name;
  report.paddedMin = paddedRequest.min;
  report.paddedMax = paddedRequest.max;
  report.paddedLengths = paddedRequest.lengths;
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

  // Phase 1: import (or parse), at `batch` samples of a dynamic batch and
  // `length` positions of a padded dimension (0: none).
  size_t importedNodes = 0;
  auto importModule = [&](OwningOpRef<ModuleOp> &module, int64_t batch,
                          int64_t length) -> std::optional<int> {
    std::string build =
        (batch ? " at batch " + std::to_string(batch) : std::string()) +
        (length
             ? (batch ? " and length " : " at length ") + std::to_string(length)
             : std::string());
    progress.begin(isMLIR ? "parse" : "import", inputFile + build);
    auto start = std::chrono::steady_clock::now();
    importOptions.batchSize = batch;
    importOptions.paddedSize = length;
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
        if (batch || length)
          llvm::errs() << "  (in the build" << build << ")\n";
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
    importedNodes = nodeNames.size();
    report.phases.push_back(
        {std::string(getPhaseName(from)), secondsSince(start)});
    return std::nullopt;
  };
  // Phases 2..4: one pass manager per phase, so each is timed on its own;
  // at `verifyBatch`, the samples' independence is checked on linalg.
  // A dynamic batch's builds record their constants after the graph phase
  // (`constants`, when given), to compare them; a padded dimension's, from
  // builds to linalg without its masks, after the linalg phase.
  auto lowerModule = [&](OwningOpRef<ModuleOp> &module, Phase to,
                         int64_t verifyBatch,
                         BatchConstants *constants) -> std::optional<int> {
    auto start = std::chrono::steady_clock::now();
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
      if (constants &&
          phase == (pipelineOptions.maskPaddedPositions ? Phase::Graph
                                                        : Phase::Linalg))
        *constants = collectBatchConstants(
            *module, /*skipShapes=*/!pipelineOptions.maskPaddedPositions);
      // A comparison build (no masks) is not in the artifact.
      bool inArtifact = pipelineOptions.maskPaddedPositions;
      if (phase == Phase::Linalg && inArtifact)
        report.recordKernels(*module);
      if (phase == Phase::Linalg && paddedRequest.enabled() && inArtifact &&
          failed(recordPaddedDims(*module, report)))
        return 1;
      if (phase == Phase::Linalg && verifyBatch) {
        PassManager pm(&context, ModuleOp::getOperationName());
        pm.addNestedPass<func::FuncOp>(
            createTesselVerifySampleIndependencePass({verifyBatch}));
        if (failed(pm.run(*module)))
          return 1;
      }
    }
    return std::nullopt;
  };
  OwningOpRef<ModuleOp> module;
  // A dynamic batch: the build that proves the samples are computed apart
  // comes first (a model that mixes them fails fast), with a graph-phase
  // build at another batch to compare constants; then batch 1 at the
  // shortest length, whose module is the artifact's primary one; then the
  // other builds (each batch size at each length).
  int64_t firstBatch = batchRequest.enabled() ? 1 : 0;
  int64_t firstLength =
      paddedRequest.enabled() ? paddedRequest.lengths.front() : 0;
  std::vector<DynamicBatch::Build> builds;
  std::vector<OwningOpRef<ModuleOp>> buildModules;
  BatchConstants checkConstants, otherConstants;
  auto start = std::chrono::steady_clock::now();
  if (batchRequest.enabled() && batchRequest.checkBatch) {
    bool built =
        llvm::is_contained(batchRequest.sizes, batchRequest.checkBatch) &&
        !checkOnly;
    OwningOpRef<ModuleOp> check;
    if (std::optional<int> failure =
            importModule(check, batchRequest.checkBatch, firstLength))
      return *failure;
    if (std::optional<int> failure =
            lowerModule(check, built ? to : Phase::Linalg,
                        batchRequest.checkBatch, &checkConstants))
      return *failure;
    if (built) {
      builds.push_back({batchRequest.checkBatch, firstLength, *check});
      buildModules.push_back(std::move(check));
    }
    // Another batch of 2 or more, to the graph phase: its constants must
    // be the check build's (at batch 1, a division by N folds away).
    int64_t other =
        batchRequest.checkBatch > 2 ? batchRequest.checkBatch - 1 : 3;
    OwningOpRef<ModuleOp> graph;
    if (std::optional<int> failure = importModule(graph, other, firstLength))
      return *failure;
    if (std::optional<int> failure =
            lowerModule(graph, Phase::Graph, 0, &otherConstants))
      return *failure;
    if (failed(compareBatchConstants(checkConstants, batchRequest.checkBatch,
                                     otherConstants, other, *graph)))
      return 1;
  }
  if (std::optional<int> failure =
          importModule(module, firstBatch, firstLength))
    return *failure;
  // The builds the driver runs (calibration, the accuracy budget) are the
  // target's where this host can run its code, else the host's.
  FailureOr<RunnableTarget> runnable = failure();
  if (!quantizeKind.empty() || !accuracyBudget.empty()) {
    runnable = selectRunnableTarget(**machine, pipelineOptions.target,
                                    target.optLevel, error);
    if (failed(runnable))
      return usageError(error);
    if (!runnable->lacking.empty())
      llvm::errs() << "tessel-compile: note: this host lacks the target's "
                   << runnable->lacking << ": calibration and the accuracy "
                   << "budget run builds for the host ("
                   << runnable->machine->getTargetCPU() << ")\n";
  }
  // Post-training quantization: calibrate on a build of its own, whose
  // remarks stay out of the report.
  if (!quantizeKind.empty()) {
    progress.begin("calibration", calibrationData);
    start = std::chrono::steady_clock::now();
    PipelineOptions options = pipelineOptions;
    options.target = runnable->info;
    options.quantize = "instrument";
    options.debugOutputs = false;
    size_t count = 0;
    bool inspected = false;
    ErrorCode code;
    std::string message;
    FailureOr<TemporaryArtifact> shared = buildTemporaryArtifact(
        *module, registry, inputFile, options, *runnable->machine,
        target.optLevel, ArtifactInfo{version, flags + " (calibration build)"},
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
    if (!chooseKeptProducts(*module, registry, inputFile, budget,
                            accuracyData.empty() ? calibrationData.getValue()
                                                 : accuracyData.getValue(),
                            *runnable, target.optLevel,
                            ArtifactInfo{version, flags}, pipelineOptions,
                            report.accuracyBudget, summary, code, message))
      return reportError(code == ErrorCode::CalibrationData
                             ? (accuracyData.empty() ? calibrationData.getValue()
                                                     : accuracyData.getValue())
                             : inputFile.getValue(),
                         code, message);
    llvm::errs() << summary;
    report.phases.push_back({"accuracy_budget", secondsSince(start)});
  }

  if (std::optional<int> failure = lowerModule(module, to, 0, nullptr))
    return *failure;
  if (std::optional<int> failure = buildVariants(
          batchRequest, paddedRequest, checkOnly,
          [&](OwningOpRef<ModuleOp> &build, int64_t batch, int64_t length,
              Phase upTo, BatchConstants *constants) -> std::optional<int> {
            if (std::optional<int> failure = importModule(build, batch, length))
              return failure;
            // A comparison build: to linalg, without the masks.
            pipelineOptions.maskPaddedPositions = !constants;
            std::optional<int> failure = lowerModule(build, upTo, 0, constants);
            pipelineOptions.maskPaddedPositions = true;
            return failure;
          },
          to, builds, buildModules))
    return *failure;

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
  request.codegenParts = codegenPartsOption;
  DynamicBatch dynamicBatch{batchRequest.name,
                            batchRequest.min,
                            batchRequest.max,
                            {paddedRequest.name, paddedRequest.min,
                             paddedRequest.max, toInt32(report.paddedInputDims),
                             toInt32(report.paddedOutputDims), firstLength},
                            builds};
  if (batchRequest.enabled() || paddedRequest.enabled())
    request.batch = &dynamicBatch;
  ArtifactFailure failure;
  if (failed(writeArtifact(*module, **machine, std::move(request), report,
                           progress, failure)))
    return failure.message.empty()
               ? 1
               : reportError(failure.where, failure.code, failure.message);
  return finishReport();
}
