//===- scheduler_api.cpp - The batching scheduler's C API -----------------===//
//
// Creating a scheduler (checking its models and options, starting its
// batching thread), submitting and waiting for requests (a result cache hit
// completes at submission), releasing, and the stats. The batching itself is
// in scheduler.cpp.
//
//===----------------------------------------------------------------------===//

#include "batching.h"
#include "model.h"
#include "session.h"
#include "shape.h"
#include "status.h"
#include "thread_pool.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace tessel::runtime;
using namespace tessel::runtime::batching;

namespace {

/// 10^12 us, about 11.6 days.
constexpr int64_t kMaxWindowUs = 1'000'000'000'000;


size_t rowBytes(const tessel_tensor_desc &desc) {
  size_t bytes = tessel_dtype_size(desc.dtype);
  for (int32_t d = 1; d < desc.rank; ++d)
    bytes *= size_t(desc.shape[d]);
  return bytes;
}

std::string describeModel(tessel_model *model, size_t index) {
  const tessel_model_desc *desc = tessel_model_descriptor(model);
  return "model " + std::to_string(index) + " (" +
         quoted(desc && desc->model_name ? desc->model_name : "") + ")";
}

/// The batch sizes the adaptive window times: the models'; for one model
/// with a dynamic batch, the sizes of its batch entries it may run, with
/// its smallest and largest run (batch_min, and the staging rows).
std::vector<int64_t>
timedSizes(const std::vector<std::unique_ptr<BatchModel>> &models) {
  std::vector<int64_t> sizes;
  const BatchModel &first = *models.front();
  if (!first.dynamic) {
    for (auto &entry : models)
      sizes.push_back(entry->batch);
    return sizes;
  }
  sizes = {first.batchMin, first.stagingRows};
  const tessel_model_desc *desc = tessel_model_descriptor(first.model);
  for (uint32_t i = 0; i < desc->num_batch_entries; ++i) {
    int64_t batch = desc->batch_entries[i].batch;
    if (batch > first.batchMin && batch < first.stagingRows)
      sizes.push_back(batch);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string shapeText(const int64_t *shape, int32_t rank) {
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d)
    text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}

} // namespace

tessel_status tessel_scheduler::checkRequest(const tessel_tensor_view *inputs,
                                             size_t numInputs,
                                             const tessel_tensor_view *outputs,
                                             size_t numOutputs) const {
  tessel_model *model = models.front()->model;
  auto check =
      [&](const char *role, const tessel_tensor_view *views, size_t count,
          size_t expected,
          const tessel_tensor_desc *(*describe)(const tessel_model *, size_t),
          const std::vector<size_t> &rows) -> tessel_status {
    if (count != expected)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_submit: expected " +
                            std::to_string(expected) + " " + role + "s, got " +
                            std::to_string(count));
    if (count && !views)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        std::string("tessel_scheduler_submit: the ") + role +
                            " views are NULL");
    for (size_t i = 0; i < count; ++i) {
      const tessel_tensor_desc *desc = describe(model, i);
      const tessel_tensor_view &view = views[i];
      std::string what = std::string(role) + " " + quoted(desc->name);
      if (view.dtype != desc->dtype)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_submit: " + what + " has dtype " +
                              tessel_dtype_name(view.dtype) + ", expected " +
                              tessel_dtype_name(desc->dtype));
      bool shapeMatches =
          view.rank == desc->rank && view.shape && view.shape[0] == 1;
      for (int32_t d = 1; shapeMatches && d < desc->rank; ++d)
        shapeMatches = view.shape[d] == desc->shape[d];
      if (!shapeMatches) {
        std::vector<int64_t> expectedShape(desc->shape,
                                           desc->shape + desc->rank);
        expectedShape[0] = 1;
        return makeStatus(
            TESSEL_INVALID_ARGUMENT,
            "tessel_scheduler_submit: " + what + " has shape " +
                (view.shape || view.rank == 0 ? shapeText(view.shape, view.rank)
                                              : std::string("(NULL)")) +
                ", expected " + shapeText(expectedShape.data(), desc->rank) +
                " (one sample)");
      }
      if (view.size_bytes != rows[i])
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_submit: " + what + " has " +
                              std::to_string(view.size_bytes) +
                              " bytes, expected " + std::to_string(rows[i]));
      if (!view.data && rows[i])
        return makeStatus(TESSEL_INVALID_ARGUMENT, "tessel_scheduler_submit: " +
                                                       what + " has NULL data");
    }
    return nullptr;
  };
  if (tessel_status status =
          check("input", inputs, numInputs, tessel_model_num_inputs(model),
                tessel_model_input, signature.inputRowBytes))
    return status;
  return check("output", outputs, numOutputs, tessel_model_num_outputs(model),
               tessel_model_output, signature.outputRowBytes);
}


extern "C" {

tessel_status tessel_scheduler_create(tessel_model *const *models,
                                      size_t num_models,
                                      const tessel_scheduler_options *options,
                                      tessel_scheduler **out_scheduler) {
  return guard([&]() -> tessel_status {
    if (!out_scheduler)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_create: out_scheduler is NULL");
    *out_scheduler = nullptr;
    if (!models || num_models == 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_create: no models");
    tessel_scheduler_options resolved{};
    resolved.struct_size = sizeof(resolved);
    if (options) {
      if (options->struct_size <
          offsetof(tessel_scheduler_options, max_batch) + sizeof(int32_t))
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_create: options.struct_size is "
                          "too small");
      std::memcpy(&resolved, options,
                  std::min<size_t>(options->struct_size, sizeof(resolved)));
      resolved.struct_size = sizeof(resolved);
    }
    if (resolved.max_batch < 0 || resolved.queue_limit < 0 ||
        resolved.max_concurrent_batches < 0 || resolved.num_threads < 0 ||
        resolved.target_p99_us < 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_create: max_batch, queue_limit, "
                        "max_concurrent_batches, num_threads and "
                        "target_p99_us must not be negative");
    // Past the window cap a target is none that any wait could break.
    resolved.target_p99_us =
        std::min<int64_t>(resolved.target_p99_us, kMaxWindowUs);
    if (resolved.window_us == 0)
      resolved.window_us = 2000;
    else if (resolved.window_us < 0)
      resolved.window_us = 0;
    // Longer windows than this wait for full batches only; the cap keeps
    // `oldest + window` inside the clock's range.
    resolved.window_us = std::min<int64_t>(resolved.window_us, kMaxWindowUs);
    if (resolved.queue_limit == 0)
      resolved.queue_limit = 1024;
    if (resolved.max_concurrent_batches == 0)
      resolved.max_concurrent_batches = 1;

    auto scheduler = std::make_unique<tessel_scheduler>();
    // Validate and collect the models, each with its batch size.
    for (size_t m = 0; m < num_models; ++m) {
      tessel_model *model = models[m];
      if (!model)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_create: model " +
                              std::to_string(m) + " is NULL");
      int64_t batch = -1;
      std::string what = describeModel(model, m);
      auto collect = [&](const tessel_tensor_desc *desc,
                         const char *role) -> tessel_status {
        if (desc->rank < 1)
          return makeStatus(TESSEL_INVALID_ARGUMENT,
                            "tessel_scheduler_create: " + what + "'s " + role +
                                " " + quoted(desc->name) +
                                " is a scalar: it has no batch dimension");
        if (batch < 0)
          batch = desc->shape[0];
        if (desc->shape[0] != batch || batch < 1)
          return makeStatus(
              TESSEL_INVALID_ARGUMENT,
              "tessel_scheduler_create: " + what + "'s " + role + " " +
                  quoted(desc->name) + " has leading dimension " +
                  std::to_string(desc->shape[0]) + ", but its first input " +
                  "has " + std::to_string(batch) +
                  ": every input and output needs the batch (>= 1) first");
        return nullptr;
      };
      for (size_t i = 0, e = tessel_model_num_inputs(model); i < e; ++i)
        if (tessel_status status =
                collect(tessel_model_input(model, i), "input"))
          return status;
      for (size_t i = 0, e = tessel_model_num_outputs(model); i < e; ++i)
        if (tessel_status status =
                collect(tessel_model_output(model, i), "output"))
          return status;
      if (batch < 0)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_create: " + what +
                              " has no inputs or outputs");
      int64_t lengthMin = 0, lengthMax = 0;
      if (tessel_model_padded_range(model, &lengthMin, &lengthMax))
        // Its requests may differ in length, which no batch may mix: the
        // scheduler does not sort them by length (yet).
        return makeStatus(
            TESSEL_INVALID_ARGUMENT,
            "tessel_scheduler_create: " + what + " has a padded dimension (" +
                tessel_model_descriptor(model)->padded_name + "=" +
                std::to_string(lengthMin) + ".." + std::to_string(lengthMax) +
                "), which the scheduler does not batch: run it on a "
                "session");
      auto entry = std::make_unique<BatchModel>();
      int64_t batchMin = 0, batchMax = 0;
      if (tessel_model_batch_range(model, &batchMin, &batchMax)) {
        // It runs every batch size itself: another model has no place.
        if (num_models > 1)
          return makeStatus(
              TESSEL_INVALID_ARGUMENT,
              "tessel_scheduler_create: " + what + " has a dynamic batch (" +
                  tessel_model_descriptor(model)->batch_name + "=" +
                  std::to_string(batchMin) + ".." + std::to_string(batchMax) +
                  "), which runs every batch size itself: give it alone, "
                  "without other models");
        entry->dynamic = true;
        entry->batchMin = batchMin;
        batch = batchMax; // the descriptions are batch 1's
      }
      tessel_model_retain(model); // released by the destructor
      entry->model = model;
      entry->batch = batch;
      entry->stagingRows = batch;
      scheduler->models.push_back(std::move(entry));
    }
    std::stable_sort(
        scheduler->models.begin(), scheduler->models.end(),
        [](const auto &a, const auto &b) { return a->batch < b->batch; });
    // The models must agree on everything but the batch.
    tessel_model *first = scheduler->models.front()->model;
    auto sameSignature = [&](const BatchModel &entry) -> tessel_status {
      tessel_model *other = entry.model;
      auto mismatch = [&](const std::string &why) {
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_create: the models of batch " +
                              std::to_string(scheduler->models.front()->batch) +
                              " and " + std::to_string(entry.batch) +
                              " differ: " + why);
      };
      if (tessel_model_num_inputs(other) != tessel_model_num_inputs(first) ||
          tessel_model_num_outputs(other) != tessel_model_num_outputs(first))
        return mismatch("they have different numbers of inputs or outputs");
      auto compare = [&](const tessel_tensor_desc *a,
                         const tessel_tensor_desc *b,
                         const char *role) -> tessel_status {
        bool same = std::strcmp(a->name, b->name) == 0 &&
                    a->dtype == b->dtype && a->rank == b->rank;
        for (int32_t d = 1; same && d < a->rank; ++d)
          same = a->shape[d] == b->shape[d];
        if (!same)
          return mismatch(std::string(role) + " " + quoted(a->name) + " " +
                          formatTensorType(a->dtype, a->rank, a->shape) +
                          " against " + quoted(b->name) + " " +
                          formatTensorType(b->dtype, b->rank, b->shape));
        return nullptr;
      };
      for (size_t i = 0, e = tessel_model_num_inputs(first); i < e; ++i)
        if (tessel_status status =
                compare(tessel_model_input(first, i),
                        tessel_model_input(other, i), "input"))
          return status;
      for (size_t i = 0, e = tessel_model_num_outputs(first); i < e; ++i)
        if (tessel_status status =
                compare(tessel_model_output(first, i),
                        tessel_model_output(other, i), "output"))
          return status;
      return nullptr;
    };
    for (size_t m = 1; m < scheduler->models.size(); ++m) {
      if (scheduler->models[m]->batch == scheduler->models[m - 1]->batch)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_create: two models have batch " +
                              std::to_string(scheduler->models[m]->batch));
      if (tessel_status status = sameSignature(*scheduler->models[m]))
        return status;
    }
    for (size_t i = 0, e = tessel_model_num_inputs(first); i < e; ++i)
      scheduler->signature.inputRowBytes.push_back(
          rowBytes(*tessel_model_input(first, i)));
    for (size_t i = 0, e = tessel_model_num_outputs(first); i < e; ++i)
      scheduler->signature.outputRowBytes.push_back(
          rowBytes(*tessel_model_output(first, i)));
    if (resolved.max_batch == 0)
      resolved.max_batch = int32_t(std::min<int64_t>(
          scheduler->models.back()->batch, resolved.queue_limit));
    BatchModel &largest = *scheduler->models.back();
    if (largest.dynamic)
      largest.stagingRows = std::max<int64_t>(
          largest.batchMin,
          std::min<int64_t>(largest.batch, resolved.max_batch));
    scheduler->timedSizes = timedSizes(scheduler->models);
    if (resolved.target_p99_us > 0)
      scheduler->adaptive = std::make_unique<AdaptiveWindow>(
          std::chrono::microseconds(resolved.target_p99_us),
          scheduler->timedSizes);

    // The destructor releases the sessions created so far. They cache
    // nothing: batches are not requests (the scheduler caches rows).
    tessel_session_options sessionOptions{sizeof(tessel_session_options),
                                          resolved.num_threads,
                                          /*result_cache_bytes=*/0};
    for (auto &entry : scheduler->models)
      if (tessel_status status = tessel_session_create(
              entry->model, &sessionOptions, &entry->session))
        return status;
    // Outputs that may differ between runs on the same inputs are never
    // served from a cache.
    bool deterministic = true;
    for (auto &entry : scheduler->models)
      if (modelFlags(tessel_model_descriptor(entry->model)) &
          TESSEL_MODEL_NONDETERMINISTIC)
        deterministic = false;
    if (resolved.result_cache_bytes > 0 && deterministic)
      scheduler->cache =
          std::make_unique<ResultCache>(resolved.result_cache_bytes);
    scheduler->options = resolved;
    scheduler->stats.struct_size = sizeof(tessel_scheduler_stats);
    try {
      tessel_scheduler *raw = scheduler.get();
      scheduler->batcher = std::thread([raw] { raw->batchLoop(); });
    } catch (const std::system_error &e) {
      return makeStatus(TESSEL_RUNTIME_ERROR,
                        std::string("tessel_scheduler_create: could not start "
                                    "the batching thread: ") +
                            e.what());
    }
    *out_scheduler = scheduler.release();
    return nullptr;
  });
}

void tessel_scheduler_release(tessel_scheduler *scheduler) {
  if (!scheduler)
    return;
  {
    std::lock_guard<std::mutex> lock(scheduler->mutex);
    scheduler->stopping = true;
  }
  scheduler->wakeBatcher.notify_all();
  if (scheduler->batcher.joinable())
    scheduler->batcher.join();
  {
    std::unique_lock<std::mutex> lock(scheduler->mutex);
    scheduler->batchDone.wait(lock, [&] { return scheduler->inFlight == 0; });
  }
  delete scheduler;
}

size_t tessel_scheduler_num_models(const tessel_scheduler *scheduler) {
  return scheduler ? scheduler->models.size() : 0;
}

int64_t tessel_scheduler_batch_size(const tessel_scheduler *scheduler,
                                    size_t index) {
  if (!scheduler || index >= scheduler->models.size())
    return 0;
  return scheduler->models[index]->batch;
}

tessel_status tessel_scheduler_submit(
    tessel_scheduler *scheduler, const tessel_tensor_view *inputs,
    size_t num_inputs, const tessel_tensor_view *outputs, size_t num_outputs,
    const tessel_request_options *options, tessel_request **out_request) {
  return guard([&]() -> tessel_status {
    if (!out_request)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_submit: out_request is NULL");
    *out_request = nullptr;
    if (!scheduler)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_submit: scheduler is NULL");
    tessel_request_options resolved{sizeof(tessel_request_options), 0, 0};
    if (options) {
      if (options->struct_size <
          offsetof(tessel_request_options, priority) + sizeof(int32_t))
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_submit: options.struct_size is "
                          "too small");
      std::memcpy(&resolved, options,
                  std::min<size_t>(options->struct_size, sizeof(resolved)));
    }
    if (resolved.deadline_us < 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_scheduler_submit: deadline_us is negative");
    if (tessel_status status =
            scheduler->checkRequest(inputs, num_inputs, outputs, num_outputs))
      return status;
    auto state = std::make_shared<tessel_request::State>();
    state->inputs.assign(inputs, inputs + num_inputs);
    state->outputs.assign(outputs, outputs + num_outputs);
    for (auto *views : {&state->inputs, &state->outputs})
      for (tessel_tensor_view &view : *views)
        view.shape = nullptr; // borrowed for the call only
    state->priority = resolved.priority;
    state->submitted = Clock::now();
    if (trace::enabled()) {
      state->traceId = trace::nextId();
      trace::asyncBegin("scheduler", "request", state->traceId,
                        "\"priority\": " + std::to_string(state->priority));
    }
    // A deadline past the clock's range is no deadline (adding it would
    // overflow).
    int64_t reachable = std::chrono::duration_cast<std::chrono::microseconds>(
                            Clock::time_point::max() - state->submitted)
                            .count();
    if (resolved.deadline_us > 0 && resolved.deadline_us < reachable)
      state->deadline =
          state->submitted + std::chrono::microseconds(resolved.deadline_us);
    auto handle = std::make_unique<tessel_request>();
    handle->state = state;
    if (scheduler->cache) {
      std::vector<const void *> inputData;
      std::vector<void *> outputData;
      RunBuffers rows =
          scheduler->rowBuffers(inputs, outputs, inputData, outputData);
      state->cacheKey = ResultCache::key(rows);
      if (scheduler->cache->lookup(state->cacheKey, rows)) {
        state->done = true; // not shared yet: no lock needed
        {
          std::lock_guard<std::mutex> lock(scheduler->mutex);
          ++scheduler->stats.submitted;
          ++scheduler->stats.completed;
        }
        *out_request = handle.release();
        return nullptr;
      }
    }
    {
      std::lock_guard<std::mutex> lock(scheduler->mutex);
      if (scheduler->stopping)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_scheduler_submit: the scheduler is being "
                          "released");
      if (scheduler->queue.size() >= size_t(scheduler->options.queue_limit)) {
        ++scheduler->stats.rejected;
        return makeStatus(TESSEL_RESOURCE_EXHAUSTED,
                          "tessel_scheduler_submit: the queue is full (" +
                              std::to_string(scheduler->options.queue_limit) +
                              " requests, the scheduler's queue_limit)");
      }
      state->sequence = scheduler->nextSequence++;
      scheduler->queue.insert(state);
      ++scheduler->stats.submitted;
      if (scheduler->adaptive)
        scheduler->adaptive->recordArrival(state->submitted);
    }
    scheduler->wakeBatcher.notify_all();
    *out_request = handle.release();
    return nullptr;
  });
}

tessel_status tessel_request_wait(tessel_request *request) {
  return guard([&]() -> tessel_status {
    if (!request)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_request_wait: request is NULL");
    auto &state = *request->state;
    std::unique_lock<std::mutex> lock(state.mutex);
    state.completed.wait(lock, [&] { return state.done; });
    if (state.code == TESSEL_OK)
      return nullptr;
    return makeStatus(state.code, state.message);
  });
}

tessel_status tessel_request_query(tessel_request *request, int32_t *out_done) {
  if (!request || !out_done)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      "tessel_request_query: request or out_done is NULL");
  std::lock_guard<std::mutex> lock(request->state->mutex);
  *out_done = request->state->done ? 1 : 0;
  return nullptr;
}

void tessel_request_release(tessel_request *request) { delete request; }

tessel_status tessel_scheduler_get_stats(const tessel_scheduler *scheduler,
                                         tessel_scheduler_stats *out_stats) {
  if (!scheduler || !out_stats)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      "tessel_scheduler_get_stats: a NULL argument");
  if (out_stats->struct_size <
      offsetof(tessel_scheduler_stats, submitted) + sizeof(uint64_t))
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      "tessel_scheduler_get_stats: struct_size is too small");
  auto *mutableScheduler = const_cast<tessel_scheduler *>(scheduler);
  tessel_scheduler_stats stats{};
  {
    std::lock_guard<std::mutex> lock(mutableScheduler->mutex);
    stats = scheduler->stats;
  }
  if (scheduler->cache) {
    tessel_cache_stats cache = scheduler->cache->stats();
    stats.cache_hits = cache.hits;
    stats.cache_misses = cache.misses;
    stats.cache_evictions = cache.evictions;
  }
  uint32_t size = out_stats->struct_size;
  std::memcpy(out_stats, &stats,
              std::min<size_t>(size, sizeof(tessel_scheduler_stats)));
  out_stats->struct_size = size;
  return nullptr;
}

} // extern "C"
