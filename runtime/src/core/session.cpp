//===- session.cpp - Sessions: checking tensors and calling the entry -----===//

#include "session.h"

#include "model.h"
#include "parallel.h"
#include "trace.h"
#include "shape.h"
#include "status.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

using namespace tessel::runtime;

tessel_session::~tessel_session() {
  for (void *workspace : freeWorkspaces)
    std::free(workspace);
  tessel_model_release(model);
}

namespace {

/// A run's batch while its views are checked, for a model with a dynamic
/// batch: the range, and the batch of the first view checked.
struct BatchState {
  int64_t min = 0, max = 0;
  const char *name = "";
  int64_t batch = 0; // 0: no view checked yet
  const char *firstKind = "";
  const char *firstName = "";
};

/// A run's length while its views are checked, for a model with a padded
/// dimension: the range, and the length of the first input holding it.
struct LengthState {
  int64_t min = 0, max = 0;
  const char *name = "";
  const int32_t *inputDims = nullptr, *outputDims = nullptr;
  int64_t length = 0; // 0: no view checked yet
  const char *firstName = "";
};

/// `float32[N,S,2] (N in 1..16, S in 1..8)`: a tensor type with its batch
/// (with `dynamic`) and its padded dimension `dim` (with `padded`, unless
/// -1) named.
std::string namedType(const tessel_tensor_desc &desc, const BatchState *dynamic,
                      const LengthState *padded, int32_t dim) {
  std::string text = tessel_dtype_name(desc.dtype);
  text += '[';
  for (int32_t i = 0; i < desc.rank; ++i) {
    text += i ? "," : "";
    if (i == 0 && dynamic)
      text += dynamic->name;
    else if (i == dim)
      text += padded->name;
    else
      text += std::to_string(desc.shape[i]);
  }
  text += ']';
  std::string ranges;
  if (dynamic)
    ranges = std::string(dynamic->name) + " in " +
             std::to_string(dynamic->min) + ".." + std::to_string(dynamic->max);
  if (dim >= 0)
    ranges += (ranges.empty() ? "" : ", ") + std::string(padded->name) +
              " in " + std::to_string(padded->min) + ".." +
              std::to_string(padded->max);
  return ranges.empty() ? text : text + " (" + ranges + ")";
}

/// Checks that `length`, dimension `dim` of the view of `kind` `name`, is
/// in the model's range and equals that of the inputs checked before.
tessel_status checkLength(LengthState &state, int64_t length, int32_t dim,
                          const char *kind, const char *name) {
  auto fail = [&](const std::string &what) {
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string(kind) + " " + quoted(name) + ": dimension " +
                          std::to_string(dim) + " (" + quoted(state.name) +
                          ") is " + std::to_string(length) + ", " + what);
  };
  bool output = std::strcmp(kind, "output") == 0;
  if (state.length != 0 && length != state.length) {
    if (output)
      return fail("but the inputs' length is " + std::to_string(state.length));
    return fail("but input " + quoted(state.firstName) + " has length " +
                std::to_string(state.length) +
                ": every input holding it needs the same");
  }
  if (length < state.min || length > state.max)
    return fail("outside the artifact's range " + std::to_string(state.min) +
                ".." + std::to_string(state.max));
  if (state.length == 0) {
    state.length = length;
    state.firstName = name;
  }
  return nullptr;
}

/// Checks that `batch`, dimension 0 of the view of `kind` `name`, is in
/// the model's range and equals that of the views checked before.
tessel_status checkBatch(BatchState &state, int64_t batch, const char *kind,
                         const char *name) {
  auto fail = [&](const std::string &what) {
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string(kind) + " " + quoted(name) + ": " + what);
  };
  if (batch < state.min || batch > state.max)
    return fail("dimension 0 (batch " + quoted(state.name) + ") is " +
                std::to_string(batch) + ", outside the artifact's range " +
                std::to_string(state.min) + ".." + std::to_string(state.max));
  if (state.batch == 0) {
    state.batch = batch;
    state.firstKind = kind;
    state.firstName = name;
    return nullptr;
  }
  if (batch == state.batch)
    return nullptr;
  bool afterInputs = std::strcmp(kind, "output") == 0 &&
                     std::strcmp(state.firstKind, "input") == 0;
  return fail("batch " + std::to_string(batch) + " differs from " +
              (afterInputs
                   ? "the inputs' batch " + std::to_string(state.batch)
                   : "the batch " + std::to_string(state.batch) + " of " +
                         state.firstKind + " " + quoted(state.firstName)));
}

/// Checks one caller view against its description; `kind` is "input" or
/// "output". With `dynamic` (a model with a dynamic batch), dimension 0 is
/// the batch, checked by checkBatch; with `padded` (a model with a padded
/// dimension), dimension `dim` (unless -1) is its length, checked by
/// checkLength. Builds no strings unless the view is wrong: this runs on
/// every call.
tessel_status checkView(const tessel_tensor_view &view,
                        const tessel_tensor_desc &desc, const char *kind,
                        BatchState *dynamic, LengthState *padded, int32_t dim) {
  auto fail = [&](const std::string &what) {
    return makeStatus(TESSEL_INVALID_ARGUMENT, std::string(kind) + " " +
                                                   quoted(desc.name) + ": " +
                                                   what);
  };
  auto expected = [&] { return namedType(desc, dynamic, padded, dim); };
  bool sameType = view.dtype == desc.dtype && view.rank == desc.rank &&
                  (view.rank <= 0 || view.shape);
  for (int32_t i = dynamic ? 1 : 0; sameType && i < desc.rank; ++i)
    sameType = i == dim || view.shape[i] == desc.shape[i];
  if (!sameType)
    return fail("expected " + expected() + ", got " +
                formatTensorType(view.dtype, view.rank, view.shape));
  size_t bytes = 0;
  denseByteSize(desc.dtype, desc.rank, desc.shape, bytes);
  if (dynamic) {
    if (tessel_status status =
            checkBatch(*dynamic, view.shape[0], kind, desc.name))
      return status;
    // Fits: the descriptor's check sized every tensor at batch_max.
    bytes *= size_t(view.shape[0]);
  }
  if (dim >= 0) {
    if (tessel_status status =
            checkLength(*padded, view.shape[dim], dim, kind, desc.name))
      return status;
    // Fits: the descriptor's check sized every tensor at its longest.
    denseByteSize(desc.dtype, desc.rank, view.shape, bytes);
  }
  if (view.size_bytes != bytes)
    return fail("size_bytes is " + std::to_string(view.size_bytes) + ", but " +
                (dynamic || dim >= 0
                     ? formatTensorType(view.dtype, view.rank, view.shape)
                     : expected()) +
                " holds " + std::to_string(bytes));
  if (!view.data && bytes > 0)
    return fail("data is NULL");
  size_t elementSize = tessel_dtype_size(desc.dtype);
  if (reinterpret_cast<uintptr_t>(view.data) % elementSize != 0)
    return fail("data is not aligned to " + std::to_string(elementSize) +
                " bytes");
  return nullptr;
}

tessel_status checkViews(const tessel_tensor_view *views, size_t count,
                         const tessel_tensor_desc *descs, uint32_t expected,
                         const char *kind, BatchState *dynamic,
                         LengthState *padded, const int32_t *dims) {
  if (count != expected)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      "expected " + std::to_string(expected) + " " + kind +
                          (expected == 1 ? "" : "s") + ", got " +
                          std::to_string(count));
  if (count > 0 && !views)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string("the ") + kind + " array is NULL");
  for (size_t i = 0; i < count; ++i)
    if (tessel_status status = checkView(views[i], descs[i], kind, dynamic,
                                         padded, padded ? dims[i] : -1))
      return status;
  return nullptr;
}

/// Up to 8 elements of a dense buffer, as `[1, 2, 3, ...]`.
std::string formatValues(int32_t dtype, const void *data, size_t count) {
  const size_t shown = count < 8 ? count : 8;
  std::string text = "[";
  auto bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < shown; ++i) {
    char buffer[48];
    auto read = [&](auto sample) {
      decltype(sample) value;
      std::memcpy(&value, bytes + i * sizeof(value), sizeof(value));
      return value;
    };
    switch (dtype) {
    case TESSEL_DTYPE_F32:
      std::snprintf(buffer, sizeof(buffer), "%g", double(read(float())));
      break;
    case TESSEL_DTYPE_F64:
      std::snprintf(buffer, sizeof(buffer), "%g", read(double()));
      break;
    case TESSEL_DTYPE_I8:
      std::snprintf(buffer, sizeof(buffer), "%d", int(read(int8_t())));
      break;
    case TESSEL_DTYPE_I16:
      std::snprintf(buffer, sizeof(buffer), "%d", int(read(int16_t())));
      break;
    case TESSEL_DTYPE_I32:
      std::snprintf(buffer, sizeof(buffer), "%d", int(read(int32_t())));
      break;
    case TESSEL_DTYPE_I64:
      std::snprintf(buffer, sizeof(buffer), "%lld",
                    static_cast<long long>(read(int64_t())));
      break;
    case TESSEL_DTYPE_U8:
    case TESSEL_DTYPE_BOOL:
      std::snprintf(buffer, sizeof(buffer), "%u", unsigned(read(uint8_t())));
      break;
    case TESSEL_DTYPE_U16:
      std::snprintf(buffer, sizeof(buffer), "%u", unsigned(read(uint16_t())));
      break;
    case TESSEL_DTYPE_U32:
      std::snprintf(buffer, sizeof(buffer), "%u", unsigned(read(uint32_t())));
      break;
    case TESSEL_DTYPE_U64:
      std::snprintf(buffer, sizeof(buffer), "%llu",
                    static_cast<unsigned long long>(read(uint64_t())));
      break;
    default: // f16, bf16: the bits
      std::snprintf(buffer, sizeof(buffer), "0x%04x",
                    unsigned(read(uint16_t())));
      break;
    }
    text += (i ? ", " : "") + std::string(buffer);
  }
  return text + (shown < count ? ", ...]" : "]");
}

/// Checks the inputs fixed at compile time (--input-value) against the
/// caller's values: the compiled code computed with the fixed ones. With a
/// dynamic batch the fixed value is one sample's, which each of the
/// `batch` samples must hold.
tessel_status checkFixedInputs(const tessel_model_desc *desc,
                               const tessel_tensor_view *views, int64_t batch) {
  for (uint32_t i = 0; i < desc->num_inputs; ++i) {
    const void *fixed = fixedInputValue(desc, i);
    if (!fixed)
      continue;
    const tessel_tensor_desc &input = desc->inputs[i];
    size_t bytes = 0;
    denseByteSize(input.dtype, input.rank, input.shape, bytes);
    for (int64_t sample = 0; bytes > 0 && sample < batch; ++sample) {
      const auto *given =
          static_cast<const unsigned char *>(views[i].data) + sample * bytes;
      if (std::memcmp(given, fixed, bytes) == 0)
        continue;
      size_t count = bytes / tessel_dtype_size(input.dtype);
      return makeStatus(
          TESSEL_INVALID_ARGUMENT,
          "input " + quoted(input.name) +
              ": the model was compiled for the fixed value " +
              formatValues(input.dtype, fixed, count) +
              " of this input (tessel-compile --input-value), got " +
              formatValues(input.dtype, given, count) +
              (batch > 1 ? " in sample " + std::to_string(sample) : "") +
              "; recompile with the value you need");
    }
  }
  return nullptr;
}

tessel_status allocateWorkspace(const tessel_session *session,
                                const tessel_model *model, void *&workspace) {
  if (posix_memalign(&workspace, session->workspaceAlignment,
                     session->workspaceBytes) == 0)
    return nullptr;
  workspace = nullptr;
  return makeStatus(TESSEL_OUT_OF_MEMORY,
                    "cannot allocate the " +
                        std::to_string(largestWorkspace(model->desc)) +
                        "-byte workspace of '" + model->path + "'");
}

/// Takes a free workspace or allocates one; NULL when the model has none.
tessel_status acquireWorkspace(tessel_session *session, void *&workspace) {
  workspace = nullptr;
  if (session->workspaceBytes == 0)
    return nullptr;
  {
    std::lock_guard<std::mutex> lock(session->workspaceMutex);
    if (!session->freeWorkspaces.empty()) {
      workspace = session->freeWorkspaces.back();
      session->freeWorkspaces.pop_back();
      return nullptr;
    }
  }
  return allocateWorkspace(session, session->model, workspace);
}

void releaseWorkspace(tessel_session *session, void *workspace) {
  if (!workspace)
    return;
  try {
    std::lock_guard<std::mutex> lock(session->workspaceMutex);
    session->freeWorkspaces.push_back(workspace);
    return;
  } catch (...) {
  }
  std::free(workspace); // could not keep it
}

/// Runs the `batch` samples of a model with a dynamic batch in the chunks
/// planBatch chooses, each through its entry with the pointers advanced
/// past the samples done; a padded chunk runs on copies of its samples
/// followed by zeros, and only its samples' results are copied out. Stops
/// at the first chunk that fails.
tessel_status runChunks(tessel_session *session,
                        const std::vector<void *> &pointers, int64_t batch,
                        void *workspace) {
  const tessel_model_desc *desc = session->model->desc;
  const tessel_batch_entry *entries = desc->batch_entries;
  EntryTimes &times = *session->entryTimes;
  std::vector<void *> moved(pointers.size());
  std::vector<std::unique_ptr<unsigned char[]>> padded;
  int64_t done = 0;
  for (const BatchChunk &chunk : planBatch(entries, times, batch)) {
    const tessel_batch_entry &chosen = entries[chunk.entry];
    for (size_t t = 0; t < pointers.size(); ++t)
      moved[t] = static_cast<unsigned char *>(pointers[t]) +
                 size_t(done) * session->sampleBytes[t];
    void *const *args = moved.data();
    std::vector<void *> scratch;
    if (chunk.rows < chosen.batch) {
      // Inputs: the chunk's samples, then zeros; outputs: scratch.
      for (size_t t = 0; t < pointers.size(); ++t) {
        size_t sample = session->sampleBytes[t];
        size_t bytes = sample * size_t(chosen.batch);
        // 64-byte aligned, as the runtime's own tensors.
        padded.emplace_back(new (std::nothrow) unsigned char[bytes + 64]);
        if (!padded.back())
          return makeStatus(TESSEL_OUT_OF_MEMORY,
                            "no memory to pad a chunk of the batch");
        auto *base = reinterpret_cast<unsigned char *>(
            (reinterpret_cast<uintptr_t>(padded.back().get()) + 63) &
            ~uintptr_t(63));
        if (t < desc->num_inputs) {
          size_t used = sample * size_t(chunk.rows);
          std::memcpy(base, moved[t], used);
          std::memset(base + used, 0, bytes - used);
        }
        scratch.push_back(base);
      }
      args = scratch.data();
    }
    auto start = std::chrono::steady_clock::now();
    int32_t result = chosen.entry(&session->services, args,
                                  args + desc->num_inputs, workspace);
    times.record(chunk.entry,
                 uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count()));
    if (result != 0)
      return makeStatus(TESSEL_RUNTIME_ERROR,
                        "'" + session->model->path + "': the entry for batch " +
                            std::to_string(chosen.batch) +
                            " failed with code " + std::to_string(result) +
                            " on samples " + std::to_string(done) + " to " +
                            std::to_string(done + chunk.rows - 1) + " of " +
                            std::to_string(batch));
    if (!scratch.empty())
      for (size_t t = desc->num_inputs; t < pointers.size(); ++t)
        std::memcpy(moved[t], scratch[t],
                    session->sampleBytes[t] * size_t(chunk.rows));
    done += chunk.rows;
  }
  return nullptr;
}

} // namespace

namespace tessel::runtime {

std::vector<void *> collectDataPointers(
    const tessel_tensor_view *inputs, size_t numInputs,
    const tessel_tensor_view *outputs, size_t numOutputs) {
  std::vector<void *> pointers;
  pointers.reserve(numInputs + numOutputs);
  for (size_t i = 0; i < numInputs; ++i)
    pointers.push_back(inputs[i].data);
  for (size_t i = 0; i < numOutputs; ++i)
    pointers.push_back(outputs[i].data);
  return pointers;
}


void retainSession(tessel_session *session) {
  session->refCount.fetch_add(1, std::memory_order_relaxed);
}

void releaseSession(tessel_session *session) {
  if (session->refCount.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete session;
}

tessel_status checkRunArguments(const tessel_session *session,
                                const tessel_tensor_view *inputs,
                                size_t numInputs,
                                const tessel_tensor_view *outputs,
                                size_t numOutputs, int64_t &batch,
                                int64_t &length) {
  const tessel_model_desc *desc = session->model->desc;
  BatchState state;
  BatchState *dynamic = nullptr;
  if (!session->sampleBytes.empty()) {
    state.min = desc->batch_min;
    state.max = desc->batch_max;
    state.name = desc->batch_name;
    dynamic = &state;
  }
  LengthState lengthState;
  LengthState *padded = nullptr;
  if (session->padded) {
    lengthState.min = desc->padded_min;
    lengthState.max = desc->padded_max;
    lengthState.name = desc->padded_name;
    padded = &lengthState;
  }
  if (tessel_status status =
          checkViews(inputs, numInputs, desc->inputs, desc->num_inputs, "input",
                     dynamic, padded, desc->padded_input_dims))
    return status;
  // (Without inputs there is no fixed one, nor a batch yet.)
  if (tessel_status status =
          checkFixedInputs(desc, inputs, dynamic ? state.batch : 1))
    return status;
  if (tessel_status status =
          checkViews(outputs, numOutputs, desc->outputs, desc->num_outputs,
                     "output", dynamic, padded, desc->padded_output_dims))
    return status;
  batch = dynamic ? state.batch : 1;
  length = padded ? lengthState.length : 0;
  return nullptr;
}

tessel_status runEntry(tessel_session *session,
                       const std::vector<void *> &pointers, int64_t batch,
                       int64_t length) {
  const tessel_model_desc *desc = session->model->desc;
  void *workspace = nullptr;
  if (tessel_status status = acquireWorkspace(session, workspace))
    return status;
  double start = trace::enabled() ? trace::now() : 0;
  int32_t result = 0;
  tessel_status failure = nullptr;
  if (session->padded)
    failure = runPadded(session, pointers, batch, length, workspace);
  else if (session->sampleBytes.empty())
    result = desc->entry(&session->services, pointers.data(),
                         pointers.data() + desc->num_inputs, workspace);
  else
    failure = runChunks(session, pointers, batch, workspace);
  if (trace::enabled())
    trace::complete(
        "run", desc->model_name ? desc->model_name : "run", start, trace::now(),
        "\"threads\": " + std::to_string(session->parallel.numThreads) +
            ", \"batch\": " + std::to_string(batch) +
            (session->padded ? ", \"length\": " + std::to_string(length)
                             : std::string()) +
            ", \"status\": " + std::to_string(failure ? 1 : result));
  releaseWorkspace(session, workspace);
  if (failure)
    return failure;
  if (result != 0)
    return makeStatus(
        TESSEL_RUNTIME_ERROR,
        "'" + session->model->path + "': entry " +
            quoted(desc->entry_name ? desc->entry_name : "(unnamed)") +
            " failed with code " + std::to_string(result));
  return nullptr;
}

tessel_status runModel(tessel_session *session,
                       const std::vector<void *> &pointers, int64_t batch,
                       int64_t length) {
  ResultCache *cache = session->cache.get();
  if (!cache)
    return runEntry(session, pointers, batch, length);
  size_t numInputs = session->inputBytes.size();
  // With a dynamic batch the sizes are one sample's: scale them; with a
  // padded dimension they are the run's length's.
  std::vector<size_t> inputBytes, outputBytes;
  const size_t *inputSizes = session->inputBytes.data();
  const size_t *outputSizes = session->outputBytes.data();
  if (const PaddedLayout *layout = session->padded.get()) {
    for (size_t t = 0; t < pointers.size(); ++t)
      (t < numInputs ? inputBytes : outputBytes)
          .push_back(layout->sampleBytes(t, length) * size_t(batch));
    inputSizes = inputBytes.data();
    outputSizes = outputBytes.data();
  } else if (batch != 1) {
    for (size_t bytes : session->inputBytes)
      inputBytes.push_back(bytes * size_t(batch));
    for (size_t bytes : session->outputBytes)
      outputBytes.push_back(bytes * size_t(batch));
    inputSizes = inputBytes.data();
    outputSizes = outputBytes.data();
  }
  RunBuffers run{pointers.data(), inputSizes,
                 numInputs,       pointers.data() + numInputs,
                 outputSizes,     session->outputBytes.size()};
  uint64_t key = ResultCache::key(run);
  double start = trace::enabled() ? trace::now() : 0;
  if (cache->lookup(key, run)) {
    if (trace::enabled())
      trace::complete("run", "result cache hit", start, trace::now());
    return nullptr;
  }
  if (tessel_status status = runEntry(session, pointers, batch, length))
    return status;
  cache->insert(key, run);
  return nullptr;
}

} // namespace tessel::runtime

namespace {

/// The dense byte size of every tensor of `descs`.
std::vector<size_t> denseSizes(const tessel_tensor_desc *descs,
                               uint32_t count) {
  std::vector<size_t> sizes(count);
  for (uint32_t i = 0; i < count; ++i)
    denseByteSize(descs[i].dtype, descs[i].rank, descs[i].shape, sizes[i]);
  return sizes;
}

} // namespace

extern "C" {

tessel_status tessel_session_create(tessel_model *model,
                                    const tessel_session_options *options,
                                    tessel_session **out_session) {
  return guard([&]() -> tessel_status {
    if (!model)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: model is NULL");
    if (!out_session)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: out_session is NULL");
    int32_t numThreads = 0;
    uint64_t cacheBytes = 0;
    if (options) {
      constexpr size_t kOptionsSizeV1 =
          offsetof(tessel_session_options, num_threads) + sizeof(int32_t);
      if (options->struct_size < kOptionsSizeV1)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_session_create: options->struct_size is " +
                              std::to_string(options->struct_size) +
                              "; set it to sizeof(tessel_session_options)");
      numThreads = options->num_threads;
      constexpr size_t kOptionsSizeV2 =
          offsetof(tessel_session_options, result_cache_bytes) +
          sizeof(uint64_t);
      if (options->struct_size >= kOptionsSizeV2)
        cacheBytes = options->result_cache_bytes;
    }
    if (numThreads < 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_create: num_threads is " +
                            std::to_string(numThreads) +
                            "; use 0 for all cores or a positive count");

    const tessel_model_desc *desc = model->desc;
    auto session = std::make_unique<tessel_session>();
    session->numThreads = numThreads == 0 ? availableCores() : numThreads;
    // One workspace serves every batch and padded entry: the largest they
    // need.
    uint64_t workspaceSize = largestWorkspace(desc);
    if (workspaceSize > 0) {
      session->workspaceAlignment = desc->workspace_alignment > kBufferAlignment
                                        ? size_t(desc->workspace_alignment)
                                        : kBufferAlignment;
      size_t alignment = session->workspaceAlignment;
      session->workspaceBytes =
          (size_t(workspaceSize) + alignment - 1) / alignment * alignment;
      // One workspace up front, so that a session that cannot hold one
      // fails here rather than at its first run.
      session->freeWorkspaces.reserve(1);
      void *workspace = nullptr;
      if (tessel_status status =
              allocateWorkspace(session.get(), model, workspace))
        return status;
      session->freeWorkspaces.push_back(workspace);
    }
    if (hasDynamicBatch(desc)) {
      // The descriptions are those of batch 1: one sample each.
      std::vector<size_t> &sizes = session->sampleBytes;
      sizes = denseSizes(desc->inputs, desc->num_inputs);
      std::vector<size_t> outputs =
          denseSizes(desc->outputs, desc->num_outputs);
      sizes.insert(sizes.end(), outputs.begin(), outputs.end());
      session->entryTimes =
          std::make_unique<EntryTimes>(desc->num_batch_entries);
    }
    if (hasPaddedDim(desc))
      session->padded = std::make_unique<PaddedLayout>(desc);
    // Outputs that may differ between runs on the same inputs are never
    // served from a cache.
    if (cacheBytes > 0 && !(modelFlags(desc) & TESSEL_MODEL_NONDETERMINISTIC)) {
      session->cache = std::make_unique<ResultCache>(cacheBytes);
      session->inputBytes = denseSizes(desc->inputs, desc->num_inputs);
      session->outputBytes = denseSizes(desc->outputs, desc->num_outputs);
    }
    session->services.struct_size = sizeof(tessel_runtime_services);
    session->parallel.numThreads = parallelForConcurrency(session->numThreads);
    session->services.num_threads = session->parallel.numThreads;
    session->services.runtime_ctx = &session->parallel;
    session->parallel.library = model->library.get();
    session->services.parallel_for = parallelFor;
    tessel_model_retain(model);
    session->model = model;
    *out_session = session.release();
    return nullptr;
  });
}

void tessel_session_release(tessel_session *session) {
  if (session)
    releaseSession(session);
}

int32_t tessel_session_num_threads(const tessel_session *session) {
  return session ? session->numThreads : 0;
}

tessel_status tessel_session_run(tessel_session *session,
                                 const tessel_tensor_view *inputs,
                                 size_t num_inputs,
                                 const tessel_tensor_view *outputs,
                                 size_t num_outputs) {
  return guard([&]() -> tessel_status {
    if (!session)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_run: session is NULL");
    int64_t batch = 1, length = 0;
    if (tessel_status status = checkRunArguments(
            session, inputs, num_inputs, outputs, num_outputs, batch, length))
      return status;
    std::vector<void *> pointers =
        collectDataPointers(inputs, num_inputs, outputs, num_outputs);
    return runModel(session, pointers, batch, length);
  });
}

tessel_status tessel_session_get_cache_stats(const tessel_session *session,
                                             tessel_cache_stats *out_stats) {
  return guard([&]() -> tessel_status {
    if (!session || !out_stats)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_get_cache_stats: a NULL argument");
    if (out_stats->struct_size <
        offsetof(tessel_cache_stats, hits) + sizeof(uint64_t))
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_session_get_cache_stats: struct_size is " +
                            std::to_string(out_stats->struct_size) +
                            "; set it to sizeof(tessel_cache_stats)");
    tessel_cache_stats stats{};
    stats.struct_size = sizeof(stats);
    if (session->cache)
      stats = session->cache->stats();
    uint32_t size = out_stats->struct_size;
    std::memcpy(out_stats, &stats,
                std::min<size_t>(size, sizeof(tessel_cache_stats)));
    out_stats->struct_size = size;
    return nullptr;
  });
}

} // extern "C"
