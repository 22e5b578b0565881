//===- tessel-run.cpp - Run a compiled Tessel artifact on tensor files ----===//
//
//   tessel-run model.so --input [NAME=]FILE ... [--output-dir DIR]
//              [--expected [NAME=]FILE ... --rtol R --atol A] [--threads N]
//              [--quiet]
//
// Exit codes: 0 ok, 1 an output mismatches its expected tensor, 2 bad usage or
// a bad data file, 3 the artifact failed to load or run. See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "build_info.h"
#include "tessel/Support/ErrorCodes.h"
#include "tessel/runtime.hpp"
#include "tessel/tensor_io.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace tessel;

namespace {

enum ExitCode : int {
  kExitOk = 0,
  kExitMismatch = 1,
  kExitUsage = 2,
  kExitRuntime = 3,
};

constexpr const char *kToolName = "tessel-run";
constexpr size_t kValuesShown = 8;

const char *const kUsage =
    R"(usage: tessel-run MODEL.so --input [NAME=]FILE... [options]

Runs a compiled Tessel artifact on tensors read from files and prints its
outputs.

  --input [NAME=]FILE...     input tensors, as .npy or ONNX TensorProto (.pb)
                             files; without NAME=, files bind to the model's
                             inputs in order. Repeat the flag or list several
                             files after it. With a dynamic batch
                             (tessel-compile --dim-range), dimension 0 of
                             every input may be any batch in the range, the
                             same for all; the outputs have that batch.
                             With a padded dimension (--dim-range on
                             another dimension), the inputs holding it may
                             have any length in the range, the same for
                             all; the outputs have that length.
  --output-dir DIR           write each output to DIR/<name>.npy (created if
                             missing; characters outside [A-Za-z0-9_.-] in the
                             name become '_'; bfloat16 outputs are written as
                             DIR/<name>.pb)
  --expected [NAME=]FILE...  reference outputs to compare with; without NAME=,
                             files bind to the model's outputs in order
  --rtol R, --atol A         tolerances: an element matches when
                             |actual - expected| <= A + R * |expected|
                             (defaults: R = 1e-3, A = 1e-5)
  --threads N                the session's thread budget: the most threads a
                             parallel loop of the model may use (default 0:
                             all cores; capped at the runtime's pool,
                             TESSEL_NUM_THREADS or the cores)
  --quiet                    do not print output values
  --help                     print this help
  --version                  print the release, git revision and runtime

Exit status: 0 ok, 1 an output mismatches, 2 bad usage or a bad data file,
3 the model failed to load or run.
)";

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> expected;
  std::string outputDir;
  double rtol = 1e-3;
  double atol = 1e-5;
  int32_t threads = 0;
  bool quiet = false;
  bool help = false;
  bool version = false;
};

using ::tessel::ErrorCode;

/// Prints `<file>: error[E<code>]: <what>` and returns `exitCode`.
int report(const std::string &file, const std::string &what, int exitCode,
           ErrorCode code) {
  std::fprintf(stderr, "%s: %s: %s\n", file.c_str(),
               ::tessel::errorTag(code).c_str(), what.c_str());
  return exitCode;
}

int usageError(const std::string &what,
               ErrorCode code = ErrorCode::Usage) {
  report(kToolName, what, kExitUsage, code);
  std::fprintf(stderr, "Run 'tessel-run --help' for usage.\n");
  return kExitUsage;
}

/// The error code of a failure to load an artifact.
ErrorCode loadErrorCode(const Status &status) {
  switch (status.code()) {
  case TESSEL_NOT_FOUND:
  case TESSEL_IO_ERROR:
    return ErrorCode::FileUnreadable;
  case TESSEL_INCOMPATIBLE:
    return ErrorCode::IncompatibleArtifact;
  default:
    return ErrorCode::InvalidArtifact;
  }
}

bool parseTolerance(const std::string &flag, const std::string &text,
                    double &value, std::string &error) {
  char *end = nullptr;
  errno = 0;
  double parsed = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(parsed) || parsed < 0) {
    error = flag + " expects a non-negative number, got '" + text + "'";
    return false;
  }
  value = parsed;
  return true;
}

bool parseThreads(const std::string &text, int32_t &value, std::string &error) {
  char *end = nullptr;
  errno = 0;
  long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || parsed < 0 ||
      parsed > 65536) {
    error = "--threads expects a count from 0 (all cores) to 65536, got '" +
            text + "'";
    return false;
  }
  value = int32_t(parsed);
  return true;
}

/// Parses the command line. Returns false with `error` on bad usage.
bool parseArguments(int argc, char **argv, Options &options,
                    std::string &error) {
  enum class List { None, Inputs, Expected } list = List::None;
  bool listEmpty = false;
  const char *listFlag = "";
  auto closeList = [&]() {
    if (list != List::None && listEmpty) {
      error = std::string(listFlag) + " needs at least one file";
      return false;
    }
    list = List::None;
    return true;
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 1 && arg[0] == '-') {
      if (!closeList())
        return false;
      std::string flag = arg;
      std::optional<std::string> value;
      size_t equals = arg.find('=');
      if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
        flag = arg.substr(0, equals);
        value = arg.substr(equals + 1);
      }
      auto takeValue = [&](std::string &out) {
        if (value) {
          out = *value;
          return true;
        }
        if (i + 1 >= argc) {
          error = flag + " needs a value";
          return false;
        }
        out = argv[++i];
        return true;
      };
      auto noValue = [&]() {
        if (value)
          error = flag + " takes no value";
        return !value;
      };
      std::string text;
      if (flag == "--help" || flag == "-h") {
        if (!noValue())
          return false;
        options.help = true;
      } else if (flag == "--version") {
        if (!noValue())
          return false;
        options.version = true;
      } else if (flag == "--quiet" || flag == "-q") {
        if (!noValue())
          return false;
        options.quiet = true;
      } else if (flag == "--input" || flag == "--expected") {
        list = flag == "--input" ? List::Inputs : List::Expected;
        listFlag = flag == "--input" ? "--input" : "--expected";
        listEmpty = !value;
        if (value) {
          if (value->empty()) {
            error = flag + " needs a file";
            return false;
          }
          (list == List::Inputs ? options.inputs : options.expected)
              .push_back(*value);
        }
      } else if (flag == "--output-dir") {
        if (!takeValue(options.outputDir))
          return false;
        if (options.outputDir.empty()) {
          error = "--output-dir needs a directory";
          return false;
        }
      } else if (flag == "--rtol" || flag == "--atol") {
        if (!takeValue(text) ||
            !parseTolerance(flag, text,
                            flag == "--rtol" ? options.rtol : options.atol,
                            error))
          return false;
      } else if (flag == "--threads") {
        if (!takeValue(text) || !parseThreads(text, options.threads, error))
          return false;
      } else {
        error = "unknown option '" + arg + "'";
        return false;
      }
      continue;
    }
    if (list == List::Inputs) {
      options.inputs.push_back(arg);
      listEmpty = false;
    } else if (list == List::Expected) {
      options.expected.push_back(arg);
      listEmpty = false;
    } else if (options.model.empty()) {
      options.model = arg;
    } else {
      error = "unexpected argument '" + arg + "' (the model is already '" +
              options.model + "'; data files follow --input or --expected)";
      return false;
    }
  }
  if (!closeList())
    return false;
  if (options.help || options.version)
    return true;
  if (options.model.empty()) {
    error = "no model given";
    return false;
  }
  return true;
}

std::string quoted(const std::string &name) { return "'" + name + "'"; }

/// The model's dynamic batch (tessel-compile --dim-range): dimension 0 of
/// every input and output, in [min, max]; `max` 0 for a static model. And
/// its padded dimension: dimension `paddedDim(desc)` (-1: none) of some
/// tensors, in [lengthMin, lengthMax]; `lengthMax` 0 without one.
struct Batch {
  std::string name;
  int64_t min = 0, max = 0;
  std::string lengthName;
  int64_t lengthMin = 0, lengthMax = 0;
  std::map<const tessel_tensor_desc *, int32_t> paddedDims;

  explicit Batch(const Model &model) {
    const tessel_model_desc *desc = model.descriptor();
    if (model.batchRange(min, max))
      name = desc->batch_name;
    if (model.paddedRange(lengthMin, lengthMax)) {
      lengthName = desc->padded_name;
      for (size_t i = 0; i < model.numInputs(); ++i)
        paddedDims[model.input(i)] = desc->padded_input_dims[i];
      for (size_t i = 0; i < model.numOutputs(); ++i)
        paddedDims[model.output(i)] = desc->padded_output_dims[i];
    }
  }
  bool dynamic() const { return max != 0; }
  int32_t paddedDim(const tessel_tensor_desc &desc) const {
    auto found = paddedDims.find(&desc);
    return found == paddedDims.end() ? -1 : found->second;
  }
};

/// `float32[2,3]`; with a dynamic batch `float32[N=1..64,3]`, or with
/// `samples` > 0 that batch: `float32[5,3]`; with a padded dimension
/// likewise `float32[1,S=1..128]`, or with `length` > 0 that length.
std::string describe(const tessel_tensor_desc &desc, const Batch &batch,
                     int64_t samples = 0, int64_t length = 0) {
  int32_t padded = batch.paddedDim(desc);
  std::string text = std::string(tessel_dtype_name(desc.dtype)) + "[";
  for (int32_t d = 0; d < desc.rank; ++d) {
    text += d ? "," : "";
    if (d == 0 && batch.dynamic())
      text += samples > 0 ? std::to_string(samples)
                          : batch.name + "=" + std::to_string(batch.min) +
                                ".." + std::to_string(batch.max);
    else if (d == padded)
      text += length > 0
                  ? std::to_string(length)
                  : batch.lengthName + "=" + std::to_string(batch.lengthMin) +
                        ".." + std::to_string(batch.lengthMax);
    else
      text += std::to_string(desc.shape[d]);
  }
  return text + "]";
}

std::string listNames(const std::vector<const tessel_tensor_desc *> &descs,
                      const Batch &batch) {
  std::string text;
  for (const tessel_tensor_desc *desc : descs)
    text += (text.empty() ? "" : ", ") + quoted(desc->name) + " " +
            describe(*desc, batch);
  return text.empty() ? "(none)" : text;
}

bool fileExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// Binds `[NAME=]FILE` arguments to tensors (the model's inputs or outputs,
/// per `kind`). Named ones bind by name; the others fill the unnamed tensors
/// in order. Returns one optional file per tensor; with `requireAll`, fails
/// when a tensor has none.
bool bindFiles(const std::vector<std::string> &args,
               const std::vector<const tessel_tensor_desc *> &descs,
               const Batch &batch, const char *kind, bool requireAll,
               std::vector<std::optional<std::string>> &bound,
               std::string &error) {
  bound.assign(descs.size(), std::nullopt);
  std::map<std::string, size_t> indexOf;
  for (size_t i = 0; i < descs.size(); ++i)
    indexOf.emplace(descs[i]->name, i);

  std::vector<std::string> positional;
  for (const std::string &arg : args) {
    // NAME=FILE, where NAME may itself contain '=': try each split.
    std::optional<size_t> named;
    std::string file;
    for (size_t equals = arg.find('='); equals != std::string::npos;
         equals = arg.find('=', equals + 1)) {
      auto it = indexOf.find(arg.substr(0, equals));
      if (it != indexOf.end()) {
        named = it->second;
        file = arg.substr(equals + 1);
        break;
      }
    }
    if (!named) {
      size_t equals = arg.find('=');
      if (equals != std::string::npos && !fileExists(arg)) {
        error = quoted(arg.substr(0, equals)) + " is not an " + kind +
                " of the model; its " + kind +
                "s are: " + listNames(descs, batch);
        return false;
      }
      positional.push_back(arg);
      continue;
    }
    if (file.empty()) {
      error = "no file given for " + std::string(kind) + " " +
              quoted(descs[*named]->name);
      return false;
    }
    if (bound[*named]) {
      error = std::string(kind) + " " + quoted(descs[*named]->name) +
              " is given twice";
      return false;
    }
    bound[*named] = file;
  }

  size_t next = 0;
  for (const std::string &file : positional) {
    while (next < bound.size() && bound[next])
      ++next;
    if (next == bound.size()) {
      error = "too many " + std::string(kind) + " files: the model has " +
              std::to_string(descs.size()) + " " + kind +
              (descs.size() == 1 ? "" : "s") + ": " + listNames(descs, batch);
      return false;
    }
    bound[next++] = file;
  }

  if (requireAll) {
    std::vector<const tessel_tensor_desc *> missing;
    for (size_t i = 0; i < bound.size(); ++i)
      if (!bound[i])
        missing.push_back(descs[i]);
    if (!missing.empty()) {
      error = std::string("missing ") + kind +
              (missing.size() == 1 ? " " : "s ") + listNames(missing, batch) +
              "; give each a file, e.g. --input NAME=FILE";
      return false;
    }
  }
  return true;
}

/// Whether `tensor` has `desc`'s type with any batch in the range at
/// dimension 0 (with a dynamic batch) and any length in the range at its
/// padded dimension.
bool fitsBatch(const io::HostTensor &tensor, const tessel_tensor_desc &desc,
               const Batch &batch) {
  if (tensor.dtype != desc.dtype || tensor.shape.size() != size_t(desc.rank))
    return false;
  int32_t padded = batch.paddedDim(desc);
  for (int32_t d = 0; d < desc.rank; ++d) {
    int64_t extent = tensor.shape[d];
    if (d == 0 && batch.dynamic()) {
      if (extent < batch.min || extent > batch.max)
        return false;
    } else if (d == padded) {
      if (extent < batch.lengthMin || extent > batch.lengthMax)
        return false;
    } else if (extent != desc.shape[d]) {
      return false;
    }
  }
  return true;
}

/// Reads `file` and checks it against `desc`: with a dynamic batch, of
/// `samples` samples, and with a padded dimension of `length`; or when
/// `samples` is 0 of any batch and length in the ranges. Returns an exit
/// code.
int readChecked(const std::string &file, const tessel_tensor_desc &desc,
                const Batch &batch, const char *kind, io::HostTensor &tensor,
                int64_t samples = 0, int64_t length = 0) {
  std::string error;
  if (!io::readTensorFile(file, tensor, error))
    return report(file, error, kExitUsage, ErrorCode::TensorFile);
  std::string expected = describe(desc, batch, samples, length);
  std::string got = io::formatTensorType(tensor.dtype, tensor.shape);
  bool ranges = batch.dynamic() || batch.lengthMax != 0;
  bool matches = ranges && samples == 0 && length == 0
                     ? fitsBatch(tensor, desc, batch)
                     : expected == got;
  if (!matches)
    return report(file,
                  std::string(kind) + " " + quoted(desc.name) + " expects " +
                      expected + ", got " + got,
                  kExitUsage, ErrorCode::TensorMismatch);
  return kExitOk;
}

std::string sanitizedFileName(const std::string &name) {
  std::string result = name;
  for (char &c : result) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!keep)
      c = '_';
  }
  return result.empty() ? "_" : result;
}

/// Creates `dir` and its parents where missing. Returns an exit code.
int createOutputDir(const std::string &dir) {
  std::error_code code;
  std::filesystem::create_directories(dir, code);
  if (code || !std::filesystem::is_directory(dir, code))
    return report(dir,
                  "cannot create the output directory" +
                      (code ? ": " + code.message() : std::string()),
                  kExitUsage, ErrorCode::OutputFile);
  return kExitOk;
}

/// Writes every output under `dir`. Returns an exit code.
int writeOutputs(const std::string &dir,
                 const std::vector<const tessel_tensor_desc *> &descs,
                 const std::vector<Tensor> &outputs) {
  std::set<std::string> used;
  for (size_t i = 0; i < descs.size(); ++i) {
    bool npy = descs[i]->dtype != TESSEL_DTYPE_BF16;
    std::string stem = sanitizedFileName(descs[i]->name);
    std::string fileName = stem + (npy ? ".npy" : ".pb");
    // Distinct names can sanitize to the same file name.
    for (int suffix = 1; used.count(fileName); ++suffix)
      fileName = stem + "_" + std::to_string(suffix) + (npy ? ".npy" : ".pb");
    used.insert(fileName);
    std::string path = (std::filesystem::path(dir) / fileName).string();
    std::string error;
    bool ok = npy ? io::writeNpy(path, outputs[i].view(), error)
                  : io::writeTensorProto(path, outputs[i].view(),
                                         descs[i]->name, error);
    if (!ok)
      return report(path, error, kExitUsage, ErrorCode::OutputFile);
  }
  return kExitOk;
}

int run(const Options &options) {
  Model model;
  if (Status status = Model::load(options.model, model); !status.ok())
    return report(options.model, status.message(), kExitRuntime,
                  loadErrorCode(status));

  std::vector<const tessel_tensor_desc *> inputDescs, outputDescs;
  for (size_t i = 0; i < model.numInputs(); ++i)
    inputDescs.push_back(model.input(i));
  for (size_t i = 0; i < model.numOutputs(); ++i)
    outputDescs.push_back(model.output(i));

  Batch batch(model);
  std::string error;
  std::vector<std::optional<std::string>> inputFiles, expectedFiles;
  if (!bindFiles(options.inputs, inputDescs, batch, "input",
                 /*requireAll=*/true, inputFiles, error) ||
      !bindFiles(options.expected, outputDescs, batch, "output",
                 /*requireAll=*/false, expectedFiles, error))
    return usageError(error, ErrorCode::TensorMismatch);

  std::vector<io::HostTensor> inputs(inputDescs.size());
  for (size_t i = 0; i < inputDescs.size(); ++i)
    if (int code = readChecked(*inputFiles[i], *inputDescs[i], batch, "input",
                               inputs[i]))
      return code;
  // With a dynamic batch: the inputs' (the same for all), which sizes the
  // outputs.
  int64_t samples = 0;
  if (batch.dynamic()) {
    samples = inputs.empty() ? batch.min : inputs[0].shape[0];
    for (size_t i = 1; i < inputs.size(); ++i)
      if (inputs[i].shape[0] != samples)
        return report(*inputFiles[i],
                      "input " + quoted(inputDescs[i]->name) + " has batch " +
                          std::to_string(inputs[i].shape[0]) + ", but input " +
                          quoted(inputDescs[0]->name) + " has batch " +
                          std::to_string(samples) + " (dimension 0, " + "'" +
                          batch.name + "'" + ", is the same for every input)",
                      kExitUsage, ErrorCode::TensorMismatch);
  }
  // With a padded dimension: the length of the inputs holding it (the
  // same for all), which sizes the outputs holding it.
  int64_t length = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    int32_t dim = batch.paddedDim(*inputDescs[i]);
    if (dim < 0)
      continue;
    if (length == 0) {
      length = inputs[i].shape[size_t(dim)];
      continue;
    }
    if (inputs[i].shape[size_t(dim)] != length)
      return report(*inputFiles[i],
                    "input " + quoted(inputDescs[i]->name) + " has length " +
                        std::to_string(inputs[i].shape[size_t(dim)]) +
                        " in dimension " + std::to_string(dim) + " ('" +
                        batch.lengthName + "'), but an input before it has " +
                        std::to_string(length) + " (the same for every input)",
                    kExitUsage, ErrorCode::TensorMismatch);
  }
  std::vector<std::optional<io::HostTensor>> expected(outputDescs.size());
  for (size_t i = 0; i < outputDescs.size(); ++i) {
    if (!expectedFiles[i])
      continue;
    expected[i].emplace();
    if (int code = readChecked(*expectedFiles[i], *outputDescs[i], batch,
                               "output", *expected[i], samples, length))
      return code;
  }

  if (!options.outputDir.empty())
    if (int code = createOutputDir(options.outputDir))
      return code;

  Session session;
  if (Status status = Session::create(model, session, options.threads);
      !status.ok())
    return report(options.model, status.message(), kExitRuntime,
                  ErrorCode::RunFailed);
  std::vector<Tensor> outputs(outputDescs.size());
  std::vector<tessel_tensor_view> inputViews, outputViews;
  for (io::HostTensor &input : inputs)
    inputViews.push_back(input.view());
  for (size_t i = 0; i < outputDescs.size(); ++i) {
    const tessel_tensor_desc &desc = *outputDescs[i];
    std::vector<int64_t> shape(desc.shape, desc.shape + desc.rank);
    if (batch.dynamic())
      shape[0] = samples;
    if (int32_t dim = batch.paddedDim(desc); dim >= 0)
      shape[size_t(dim)] = length;
    if (Status status = Tensor::alloc(desc.dtype, shape, outputs[i]);
        !status.ok())
      return report(options.model, status.message(), kExitRuntime,
                    ErrorCode::RunFailed);
    outputViews.push_back(outputs[i].view());
  }
  if (Status status = session.run(inputViews, outputViews); !status.ok())
    return report(options.model, status.message(), kExitRuntime,
                  ErrorCode::RunFailed);

  if (!options.quiet)
    for (size_t i = 0; i < outputDescs.size(); ++i)
      std::printf("%s: %s = %s\n", outputDescs[i]->name,
                  io::formatTensorType(outputs[i].view()).c_str(),
                  io::formatValues(outputs[i].view(), kValuesShown).c_str());

  if (!options.outputDir.empty())
    if (int code = writeOutputs(options.outputDir, outputDescs, outputs))
      return code;

  int result = kExitOk;
  for (size_t i = 0; i < outputDescs.size(); ++i) {
    if (!expected[i])
      continue;
    io::Comparison comparison;
    if (!io::compareTensors(outputs[i].view(), expected[i]->view(),
                            options.rtol, options.atol, comparison, error))
      return report(*expectedFiles[i], error, kExitUsage,
                    ErrorCode::TensorMismatch);
    std::printf("%s: max_abs_err=%.3g max_rel_err=%.3g mismatches=%lld/%lld "
                "(rtol=%g, atol=%g) %s\n",
                outputDescs[i]->name, comparison.maxAbsError,
                comparison.maxRelError, (long long)comparison.mismatches,
                (long long)comparison.count, options.rtol, options.atol,
                comparison.ok() ? "OK" : "MISMATCH");
    if (!comparison.ok())
      result = kExitMismatch;
  }
  return result;
}

} // namespace

int main(int argc, char **argv) {
  try {
    Options options;
    std::string error;
    if (argc <= 1) {
      std::fputs(kUsage, stderr);
      return kExitUsage;
    }
    if (!parseArguments(argc, argv, options, error))
      return usageError(error);
    if (options.help) {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (options.version) {
      std::fputs(tessel::build::versionText("tessel-run",
                                            tessel_runtime_version(),
                                            tessel_runtime_revision())
                     .c_str(),
                 stdout);
      return kExitOk;
    }
    int code = run(options);
    std::fflush(stdout);
    return code;
  } catch (const std::bad_alloc &) {
    return report(kToolName, "out of memory", kExitRuntime,
                  ErrorCode::RunFailed);
  } catch (const std::exception &e) {
    return report(kToolName, std::string("internal error: ") + e.what(),
                  kExitRuntime, ErrorCode::Internal);
  }
}
