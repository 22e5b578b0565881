//===- tessel-bench.cpp - Time a compiled Tessel artifact -----------------===//
//
//   tessel-bench MODEL.so [--warmup N] [--iterations N] [--threads N]
//                [--batch B] [--length L] [--input NAME=FILE ...] [--seed S]
//                [--cold]
//                [--profile] [--json]
//
// Runs the artifact through the runtime's C API: `--warmup` untimed runs,
// then `--iterations` timed ones, each timed alone with a monotonic clock.
// Prints min, mean, p50, p95 and p99 in milliseconds, or with --json one
// object that also records the machine and the artifact. Inputs not given
// with --input are filled with seeded random values of the right shape and
// dtype (an input fixed at compile time with its fixed value). Exit codes: 0
// ok, 2 bad usage or a bad input file, 3 the artifact failed to load or run.
// --profile samples where the timed runs spend their time (KernelProfile.h).
// See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "build_info.h"
#include "tessel/runtime.hpp"
#include "tessel/tensor_io.hpp"

#include "BenchStats.h"
#include "ColdCaches.h"
#include "CommandLine.h"
#include "KernelProfile.h"
#include "MachineInfo.h"
#include "RandomInputs.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tessel;

namespace {

constexpr const char *kToolName = "tessel-bench";
enum ExitCode : int { kExitOk = 0, kExitUsage = 2, kExitRuntime = 3 };

const char *const kUsage =
    R"(usage: tessel-bench MODEL.so [options]

Times a compiled Tessel artifact: warm-up runs, then timed runs, each timed
alone. Prints min, mean, p50, p95 and p99 in milliseconds.

  --warmup N            untimed runs first (default 50)
  --iterations N        timed runs (default 200)
  --threads N           threads the session may use (default 1; 0 = all
                        cores)
  --batch B             the batch of an artifact with a dynamic batch
                        (tessel-compile --dim-range): dimension 0 of every
                        input and output, in its range (default 1); for a
                        static artifact only its own batch is accepted
  --length L            the length of an artifact's padded dimension
                        (tessel-compile --dim-range on a dimension other
                        than the batch), in its range (default: its max)
  --input NAME=FILE     an input tensor (.npy or ONNX TensorProto); inputs
                        not given get seeded random values: floats uniform
                        in [-1, 1), integers uniform in [0, 4), booleans 0/1
  --seed S              seed for the random inputs (default 0)
  --cold                before every run, read a buffer twice the largest
                        cache (64 MiB at least; not timed): each
                        run then starts with its weights, inputs and
                        workspace out of the caches, as the early layers of
                        a larger model find them
  --profile             sample, every 1 ms of the timed runs, where the
                        thread that calls the model is, and list where the
                        time goes: parallel kernels by the model nodes
                        they compute, the serial rest of the compiled code
                        as tessel_model_entry, code outside the artifact by
                        library (with --threads > 1, waiting for the other
                        threads shows as the runtime's or libc's)
  --json                print one JSON object instead of the table
  -h, --help            this text
  --version             the release, git revision and runtime
)";

struct Options {
  std::string model;
  long warmup = 50;
  long iterations = 200;
  long threads = 1;
  long batch = 0;  // 0: not given
  long length = 0; // 0: not given
  unsigned long seed = 0;
  bool json = false;
  bool cold = false;
  bool profile = false;
  std::map<std::string, std::string> inputFiles;
};

/// --profile's sampling interval. Measured on MobileNetV2 (7 ms a run) in
/// a VM: every 100 us slowed the runs by 25-30%; every 1 ms left them
/// within the host's noise (p50 6.9-7.3 ms with and without).
constexpr unsigned kProfileIntervalMicros = 1000;

/// Fewer samples than this, and the profile says to run longer.
constexpr uint64_t kProfileFewSamples = 200;

/// Entries below this share are summed on one line.
constexpr double kProfileMinShare = 0.005;

void printProfile(const bench::Profile &profile, double meanMs) {
  std::printf("  profile: %llu samples of the calling thread, every %u us "
              "of the timed runs\n",
              static_cast<unsigned long long>(profile.samples),
              kProfileIntervalMicros);
  if (profile.samples < kProfileFewSamples)
    std::printf("  (few samples: more --iterations give a steadier "
                "profile)\n");
  if (profile.samples == 0)
    return;
  std::printf("    share  ms/run  where\n");
  uint64_t restSamples = 0;
  size_t restCount = 0;
  for (const bench::ProfileEntry &item : profile.items) {
    double share = double(item.samples) / double(profile.samples);
    if (share < kProfileMinShare) {
      restSamples += item.samples;
      ++restCount;
      continue;
    }
    std::printf("   %5.1f%%  %6.3f  %s\n", 100 * share, share * meanMs,
                item.name.c_str());
  }
  if (restCount)
    std::printf("   %5.1f%%  %6.3f  (%zu more, each below %.1f%%)\n",
                100.0 * double(restSamples) / double(profile.samples),
                double(restSamples) / double(profile.samples) * meanMs,
                restCount, 100 * kProfileMinShare);
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n(see %s --help)\n", kToolName,
               message.c_str(), kToolName);
  return kExitUsage;
}

/// Parses the command line; returns -1 to go on, else an exit code.
int parseArgs(int argc, char **argv, Options &opts) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc)
        return nullptr;
      (void)flag;
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (arg == "--version") {
      std::fputs(tessel::build::versionText("tessel-bench", tessel_runtime_version(),
                                            tessel_runtime_revision())
                     .c_str(),
                 stdout);
      return kExitOk;
    }
    if (arg == "--json") {
      opts.json = true;
    } else if (arg == "--cold") {
      opts.cold = true;
    } else if (arg == "--profile") {
      opts.profile = true;
    } else if (arg == "--warmup" || arg == "--iterations" ||
               arg == "--threads" || arg == "--seed" || arg == "--batch" ||
               arg == "--length") {
      const char *text = value(arg.c_str());
      long minimum =
          arg == "--iterations" || arg == "--batch" || arg == "--length" ? 1
                                                                         : 0;
      long parsed = 0;
      if (!text || !bench::parseLong(text, minimum, parsed))
        return usageError(arg +
                          " needs an integer >= " + std::to_string(minimum));
      if (arg == "--warmup")
        opts.warmup = parsed;
      else if (arg == "--iterations")
        opts.iterations = parsed;
      else if (arg == "--threads")
        opts.threads = parsed;
      else if (arg == "--batch")
        opts.batch = parsed;
      else if (arg == "--length")
        opts.length = parsed;
      else
        opts.seed = static_cast<unsigned long>(parsed);
    } else if (arg == "--input") {
      const char *text = value("--input");
      const char *eq = text ? std::strchr(text, '=') : nullptr;
      if (!eq || eq == text || eq[1] == '\0')
        return usageError("--input needs NAME=FILE");
      opts.inputFiles[std::string(text, eq)] = eq + 1;
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (opts.model.empty()) {
      opts.model = arg;
    } else {
      return usageError("more than one model given ('" + opts.model +
                        "' and '" + arg + "')");
    }
  }
  if (opts.model.empty())
    return usageError("no model given");
  return -1;
}

std::string jsonEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out;
}

std::string jsonString(const char *text) {
  return "\"" + jsonEscape(text ? text : "") + "\"";
}

/// The batch to run: --batch (default 1) within a dynamic batch's range;
/// for a static model its leading dimension (input 0's, 1 without one),
/// which --batch may only repeat. Returns false with `error` otherwise.
bool resolveBatch(const Model &model, const std::string &path, long given,
                  int64_t &batch, std::string &error) {
  int64_t min = 0, max = 0;
  if (model.batchRange(min, max)) {
    batch = given ? given : 1;
    if (batch >= min && batch <= max)
      return true;
    error = "--batch " + std::to_string(batch) + " is outside the range " +
            model.descriptor()->batch_name + "=" + std::to_string(min) + ".." +
            std::to_string(max) + " of '" + path + "'";
    return false;
  }
  const tessel_tensor_desc *first = model.input(0);
  batch = first && first->rank > 0 ? first->shape[0] : 1;
  if (!given || given == batch)
    return true;
  error = "'" + path + "' has a static batch of " + std::to_string(batch) +
          " (dimension 0 of its first input); --batch " +
          std::to_string(given) +
          " needs an artifact compiled with a dynamic batch "
          "(tessel-compile --dim-range)";
  return false;
}

/// The length to run: --length (default the max) within a padded
/// dimension's range, 0 for a model without one, which takes no
/// --length. Returns false with `error` otherwise.
bool resolveLength(const Model &model, const std::string &path, long given,
                   int64_t &length, std::string &error) {
  int64_t min = 0, max = 0;
  if (!model.paddedRange(min, max)) {
    length = 0;
    if (!given)
      return true;
    error = "'" + path + "' has no padded dimension; --length " +
            std::to_string(given) +
            " needs an artifact compiled with one (tessel-compile "
            "--dim-range on a dimension other than the batch)";
    return false;
  }
  length = given ? given : max;
  if (length >= min && length <= max)
    return true;
  error = "--length " + std::to_string(length) + " is outside the range " +
          model.descriptor()->padded_name + "=" + std::to_string(min) + ".." +
          std::to_string(max) + " of '" + path + "'";
  return false;
}

/// `shape` with dimension 0 set to `batch` when `dynamic`, and dimension
/// `dim` (unless -1) to `length`.
std::vector<int64_t> shapeAt(const tessel_tensor_desc &desc, bool dynamic,
                             int64_t batch, int32_t dim = -1,
                             int64_t length = 0) {
  std::vector<int64_t> shape(desc.shape, desc.shape + desc.rank);
  if (dynamic)
    shape[0] = batch;
  if (dim >= 0)
    shape[size_t(dim)] = length;
  return shape;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (int rc = parseArgs(argc, argv, opts); rc >= 0)
    return rc;

  // Machine state first, before this process adds to the load.
  bench::MachineInfo machine = bench::readMachineInfo();

  Model model;
  if (Status status = Model::load(opts.model, model); !status.ok()) {
    std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
    return kExitRuntime;
  }
  Session session;
  if (Status status =
          Session::create(model, session, static_cast<int32_t>(opts.threads));
      !status.ok()) {
    std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
    return kExitRuntime;
  }

  int64_t batch = 1;
  std::string batchError;
  if (!resolveBatch(model, opts.model, opts.batch, batch, batchError))
    return usageError(batchError);
  int64_t batchMin = 0, batchMax = 0;
  bool dynamic = model.batchRange(batchMin, batchMax);
  int64_t length = 0, lengthMin = 0, lengthMax = 0;
  if (!resolveLength(model, opts.model, opts.length, length, batchError))
    return usageError(batchError);
  bool padded = model.paddedRange(lengthMin, lengthMax);
  // Where input or output `i` holds the padded dimension, or -1.
  auto inputDim = [&](size_t i) {
    return padded ? model.descriptor()->padded_input_dims[i] : -1;
  };
  auto outputDim = [&](size_t i) {
    return padded ? model.descriptor()->padded_output_dims[i] : -1;
  };

  // Inputs: from files where given, random otherwise.
  std::mt19937_64 rng(opts.seed);
  std::vector<io::HostTensor> inputs(model.numInputs());
  std::map<std::string, std::string> unused = opts.inputFiles;
  for (size_t i = 0; i < model.numInputs(); ++i) {
    const tessel_tensor_desc &desc = *model.input(i);
    io::HostTensor &tensor = inputs[i];
    auto file = opts.inputFiles.find(desc.name);
    if (file != opts.inputFiles.end()) {
      unused.erase(desc.name);
      std::string error;
      if (!io::readTensorFile(file->second, tensor, error)) {
        std::fprintf(stderr, "%s: %s\n", kToolName, error.c_str());
        return kExitUsage;
      }
      std::vector<int64_t> shape =
          shapeAt(desc, dynamic, batch, inputDim(i), length);
      if (tensor.dtype != desc.dtype || tensor.shape != shape) {
        std::fprintf(stderr, "%s: %s: input '%s' expects %s, got %s\n",
                     kToolName, file->second.c_str(), desc.name,
                     io::formatTensorType(desc.dtype, shape).c_str(),
                     io::formatTensorType(tensor.dtype, tensor.shape).c_str());
        return kExitUsage;
      }
      continue;
    }
    tensor.dtype = desc.dtype;
    tensor.shape = shapeAt(desc, dynamic, batch, inputDim(i), length);
    tensor.bytes.resize(static_cast<size_t>(tensor.numElements()) *
                        tessel_dtype_size(desc.dtype));
    // An input fixed at compile time takes its one valid value (one
    // sample's, with a dynamic batch).
    if (const void *fixed = model.inputFixedValue(i)) {
      size_t sample = tensor.bytes.size() / size_t(dynamic ? batch : 1);
      for (size_t at = 0; at < tensor.bytes.size(); at += sample)
        std::memcpy(tensor.bytes.data() + at, fixed, sample);
    } else
      bench::fillRandom(tensor, rng);
  }
  if (!unused.empty())
    return usageError("the model has no input named '" + unused.begin()->first +
                      "'");

  std::vector<tessel_tensor_view> inputViews;
  for (io::HostTensor &tensor : inputs)
    inputViews.push_back(tensor.view());
  std::vector<Tensor> outputs(model.numOutputs());
  std::vector<tessel_tensor_view> outputViews;
  for (size_t i = 0; i < model.numOutputs(); ++i) {
    const tessel_tensor_desc &desc = *model.output(i);
    if (Status status = Tensor::alloc(
            desc.dtype, shapeAt(desc, dynamic, batch, outputDim(i), length),
            outputs[i]);
        !status.ok()) {
      std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
      return kExitRuntime;
    }
    outputViews.push_back(outputs[i].view());
  }

  auto runOnce = [&]() -> bool {
    Status status = session.run(inputViews, outputViews);
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", kToolName, status.message());
      return false;
    }
    return true;
  };
  std::optional<bench::CacheFlusher> flusher;
  if (opts.cold)
    flusher.emplace(bench::coldCacheBytes());
  for (long i = 0; i < opts.warmup; ++i) {
    if (flusher)
      flusher->flush();
    if (!runOnce())
      return kExitRuntime;
  }
  bench::KernelProfiler profiler;
  if (opts.profile) {
    std::string error;
    if (!profiler.start(kProfileIntervalMicros, error)) {
      std::fprintf(stderr, "%s: --profile: %s\n", kToolName, error.c_str());
      return kExitRuntime;
    }
  }
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(opts.iterations));
  for (long i = 0; i < opts.iterations; ++i) {
    if (flusher)
      flusher->flush();
    auto start = std::chrono::steady_clock::now();
    if (opts.profile)
      profiler.begin();
    bool ran = runOnce();
    if (opts.profile)
      profiler.end();
    if (!ran)
      return kExitRuntime;
    auto end = std::chrono::steady_clock::now();
    samples.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  profiler.stop();
  bench::Summary summary = bench::summarize(samples);
  bench::Profile profile;
  if (opts.profile)
    profile = profiler.attribute(opts.model);
  const tessel_model_desc *desc = model.descriptor();
  int threads = session.numThreads();

  if (!opts.json) {
    std::string batchText = "batch " + std::to_string(batch);
    if (dynamic)
      batchText += " (" + std::string(desc->batch_name) + "=" +
                   std::to_string(batchMin) + ".." + std::to_string(batchMax) +
                   ")";
    if (padded)
      batchText += ", length " + std::to_string(length) + " (" +
                   desc->padded_name + "=" + std::to_string(lengthMin) + ".." +
                   std::to_string(lengthMax) + ")";
    std::printf("%s (%s, %s): %ld iterations after %ld warm-up, %d "
                "thread(s)%s, %s\n",
                opts.model.c_str(), desc->model_name, desc->target_cpu,
                opts.iterations, opts.warmup, threads,
                flusher ? ", cold caches" : "", batchText.c_str());
    std::printf("  min %.3f ms  mean %.3f ms  p50 %.3f ms  p95 %.3f ms  "
                "p99 %.3f ms\n",
                summary.min, summary.mean, summary.p50, summary.p95,
                summary.p99);
    if (opts.profile)
      printProfile(profile, summary.mean);
    return kExitOk;
  }

  std::string flags;
  for (const std::string &flag : machine.flags)
    flags += (flags.empty() ? "\"" : ", \"") + jsonEscape(flag) + "\"";
  std::printf("{\n");
  std::printf("  \"p50_ms\": %.6f,\n  \"p95_ms\": %.6f,\n  \"p99_ms\": %.6f,\n",
              summary.p50, summary.p95, summary.p99);
  std::printf(
      "  \"mean_ms\": %.6f,\n  \"min_ms\": %.6f,\n  \"max_ms\": %.6f,\n",
      summary.mean, summary.min, summary.max);
  std::printf(
      "  \"threads\": %d,\n  \"iterations\": %ld,\n  \"warmup\": %ld,\n",
      threads, opts.iterations, opts.warmup);
  std::printf("  \"batch\": %lld, \"batch_range\": ", (long long)batch);
  if (dynamic)
    std::printf("[%lld, %lld],\n", (long long)batchMin, (long long)batchMax);
  else
    std::printf("null,\n");
  std::printf("  \"length\": %lld, \"length_range\": ", (long long)length);
  if (padded)
    std::printf("[%lld, %lld],\n", (long long)lengthMin, (long long)lengthMax);
  else
    std::printf("null,\n");
  std::printf("  \"cold\": %s, \"flush_bytes\": %zu,\n",
              flusher ? "true" : "false", flusher ? flusher->bytes() : 0);
  std::printf("  \"machine\": {\"cpu\": %s, \"cores\": %d, \"flags\": [%s], "
              "\"load_average\": %.2f},\n",
              jsonString(machine.cpuModel.c_str()).c_str(), machine.cores,
              flags.c_str(), machine.loadAverage);
  std::printf("  \"tessel_version\": %s, \"tessel_revision\": %s,\n",
              jsonString(tessel_runtime_version()).c_str(),
              jsonString(tessel_runtime_revision()).c_str());
  std::printf("  \"artifact\": {\"path\": %s, \"name\": %s, \"target\": %s, "
              "\"target_cpu\": %s, \"target_features\": %s, "
              "\"compile_flags\": %s, \"compiler_version\": %s}",
              jsonString(opts.model.c_str()).c_str(),
              jsonString(desc->model_name).c_str(),
              jsonString(desc->target).c_str(),
              jsonString(desc->target_cpu).c_str(),
              jsonString(desc->target_features).c_str(),
              jsonString(desc->compile_flags).c_str(),
              jsonString(desc->compiler_version).c_str());
  if (opts.profile) {
    std::printf(",\n  \"profile\": {\"interval_us\": %u, \"samples\": "
                "%llu, \"items\": [",
                kProfileIntervalMicros,
                static_cast<unsigned long long>(profile.samples));
    for (size_t i = 0; i < profile.items.size(); ++i) {
      const bench::ProfileEntry &item = profile.items[i];
      std::printf("%s\n    {\"name\": %s, \"symbol\": %s, \"samples\": %llu, "
                  "\"share\": %.6f}",
                  i ? "," : "", jsonString(item.name.c_str()).c_str(),
                  jsonString(item.symbol.c_str()).c_str(),
                  static_cast<unsigned long long>(item.samples),
                  double(item.samples) / double(profile.samples));
    }
    std::printf("]}");
  }
  std::printf("\n}\n");
  return kExitOk;
}
