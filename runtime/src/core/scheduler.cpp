//===- scheduler.cpp - The batching scheduler -----------------------------===//
//
// One batching thread per scheduler waits on a condition variable: it expires
// requests whose deadline passed, and forms a batch when enough requests are
// queued, the oldest has waited the window, or the scheduler is stopping.
// Batches run as tasks of the runtime's thread pool: gather the requests'
// rows into staging tensors, run the model, scatter the output rows back.
//
//===----------------------------------------------------------------------===//

#include "batching.h"
#include "model.h"
#include "session.h"
#include "shape.h"
#include "status.h"
#include "thread_pool.h"
#include "trace.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace tessel::runtime;
using namespace tessel::runtime::batching;

tessel_status BatchModel::takeStaging(std::unique_ptr<Staging> &out) {
  {
    std::lock_guard<std::mutex> lock(stagingMutex);
    if (!freeStaging.empty()) {
      out = std::move(freeStaging.back());
      freeStaging.pop_back();
      return nullptr;
    }
  }
  auto staging = std::make_unique<Staging>();
  auto allocate = [&](const tessel_tensor_desc *desc,
                      std::vector<tessel_tensor_view> &into) -> tessel_status {
    tessel_tensor_view view{};
    std::vector<int64_t> shape(desc->shape, desc->shape + desc->rank);
    if (dynamic)
      shape[0] = stagingRows; // the descriptions are batch 1's
    if (tessel_status status =
            tessel_tensor_alloc(desc->dtype, desc->rank, shape.data(), &view))
      return status;
    into.push_back(view);
    return nullptr;
  };
  for (size_t i = 0, e = tessel_model_num_inputs(model); i < e; ++i)
    if (tessel_status status =
            allocate(tessel_model_input(model, i), staging->inputs))
      return status;
  for (size_t i = 0, e = tessel_model_num_outputs(model); i < e; ++i)
    if (tessel_status status =
            allocate(tessel_model_output(model, i), staging->outputs))
      return status;
  out = std::move(staging);
  return nullptr;
}

void BatchModel::giveBack(std::unique_ptr<Staging> staging) {
  std::lock_guard<std::mutex> lock(stagingMutex);
  freeStaging.push_back(std::move(staging));
}

tessel_scheduler::~tessel_scheduler() {
  for (auto &model : models) {
    tessel_session_release(model->session); // NULL: none created
    tessel_model_release(model->model);
  }
}

RunBuffers tessel_scheduler::rowBuffers(const tessel_tensor_view *inputs,
                                        const tessel_tensor_view *outputs,
                                        std::vector<const void *> &inputData,
                                        std::vector<void *> &outputData) const {
  const std::vector<size_t> &inputRows = signature.inputRowBytes;
  const std::vector<size_t> &outputRows = signature.outputRowBytes;
  inputData.resize(inputRows.size());
  outputData.resize(outputRows.size());
  for (size_t i = 0; i < inputRows.size(); ++i)
    inputData[i] = inputs[i].data;
  for (size_t o = 0; o < outputRows.size(); ++o)
    outputData[o] = outputs[o].data;
  return RunBuffers{inputData.data(),  inputRows.data(),  inputRows.size(),
                    outputData.data(), outputRows.data(), outputRows.size()};
}

void tessel_scheduler::expire(Clock::time_point now) {
  for (auto it = queue.begin(); it != queue.end();) {
    const RequestPtr &request = *it;
    if (request->deadline > now) {
      ++it;
      continue;
    }
    auto waited = std::chrono::duration_cast<std::chrono::microseconds>(
                      now - request->submitted)
                      .count();
    request->complete(TESSEL_DEADLINE_EXCEEDED,
                      "the request's deadline passed after " +
                          std::to_string(waited) +
                          " us in the scheduler's queue, before a batch took "
                          "it");
    ++stats.deadline_exceeded;
    it = queue.erase(it);
  }
}

void tessel_scheduler::batchLoop() {
  try {
    trace::nameThread("scheduler batcher");
  } catch (...) {
  }
  const auto window = std::chrono::microseconds(options.window_us);
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    Clock::time_point now = Clock::now();
    expire(now);
    if (queue.empty()) {
      if (stopping)
        break;
      wakeBatcher.wait(lock);
      continue;
    }
    Clock::time_point earliestDeadline = Clock::time_point::max();
    Clock::time_point oldest = Clock::time_point::max();
    for (const RequestPtr &request : queue) {
      earliestDeadline = std::min(earliestDeadline, request->deadline);
      oldest = std::min(oldest, request->submitted);
    }
    if (inFlight >= options.max_concurrent_batches) {
      if (earliestDeadline == Clock::time_point::max())
        wakeBatcher.wait(lock);
      else
        wakeBatcher.wait_until(lock, earliestDeadline);
      continue;
    }
    // A queue at its limit is as full as it gets (max_batch may exceed it).
    bool full = queue.size() >= size_t(options.max_batch) ||
                queue.size() >= size_t(options.queue_limit);
    if (!full && !stopping) {
      // The window: fixed, or set by the latency target (the queue is in
      // priority order: a negative first priority is a queue of low
      // priority requests only).
      Clock::time_point windowEnd = oldest + window;
      bool formNow = now >= windowEnd;
      if (adaptive) {
        AdaptiveWindow::Decision decision = adaptive->decide(
            now, oldest, queue.size(), size_t(options.max_batch),
            (*queue.begin())->priority < 0, window);
        formNow = decision.now;
        windowEnd = decision.wakeAt;
      }
      if (!formNow) {
        wakeBatcher.wait_until(lock, std::min(windowEnd, earliestDeadline));
        continue;
      }
    }
    std::vector<RequestPtr> batch;
    while (!queue.empty() && batch.size() < size_t(options.max_batch)) {
      batch.push_back(*queue.begin());
      queue.erase(queue.begin());
    }
    ++inFlight;
    ++stats.batches;
    lock.unlock();
    auto shared = std::make_shared<std::vector<RequestPtr>>(std::move(batch));
    bool posted = ThreadPool::get().submit(
        [this, shared] { runBatch(std::move(*shared)); }, /*urgent=*/false);
    if (!posted)
      runBatch(std::move(*shared));
    lock.lock();
  }
}

void tessel_scheduler::runChunk(BatchModel &model,
                                const std::vector<RequestPtr> &batch,
                                size_t first, size_t rows) {
  // The rows run: the model's batch, or the requests' with a dynamic
  // batch (at least its batch_min).
  const int64_t runRows = model.runRows(rows);
  // Counted before the requests complete, so that a caller who waited for
  // them sees them in the statistics.
  Clock::time_point started = Clock::now();
  auto account = [&](bool ran) {
    Clock::time_point finished = Clock::now();
    std::lock_guard<std::mutex> lock(mutex);
    stats.completed += rows;
    if (ran) {
      stats.model_runs += 1;
      stats.padded_rows += size_t(runRows) - rows;
    }
    if (adaptive) {
      if (ran)
        recordRun(runRows,
                  std::chrono::duration_cast<std::chrono::microseconds>(
                      finished - started));
      auto target = std::chrono::microseconds(options.target_p99_us);
      for (size_t r = 0; r < rows; ++r)
        if (finished - batch[first + r]->submitted > target)
          ++stats.target_misses;
    }
  };
  auto fail = [&](tessel_status status, bool ran) {
    std::string message = tessel_status_get_message(status);
    tessel_status_code code = tessel_status_get_code(status);
    tessel_status_free(status);
    account(ran);
    for (size_t r = 0; r < rows; ++r)
      batch[first + r]->complete(code, message);
  };
  trace::Span span("scheduler", trace::enabled() ? "batch" : "",
                   trace::enabled()
                       ? "\"rows\": " + std::to_string(rows) + ", \"batch\": " +
                             std::to_string(runRows) + ", \"padded\": " +
                             std::to_string(size_t(runRows) - rows)
                       : std::string());
  std::unique_ptr<BatchModel::Staging> staging;
  if (tessel_status status = model.takeStaging(staging))
    return fail(status, /*ran=*/false);
  for (size_t i = 0; i < staging->inputs.size(); ++i) {
    auto *base = static_cast<unsigned char *>(staging->inputs[i].data);
    size_t row = signature.inputRowBytes[i];
    for (size_t r = 0; r < rows; ++r)
      std::memcpy(base + r * row, batch[first + r]->inputs[i].data, row);
    std::memset(base + rows * row, 0, (size_t(runRows) - rows) * row);
  }
  std::vector<void *> pointers;
  for (const tessel_tensor_view &view : staging->inputs)
    pointers.push_back(view.data);
  for (const tessel_tensor_view &view : staging->outputs)
    pointers.push_back(view.data);
  if (tessel_status status =
          runEntry(model.session, pointers, model.dynamic ? runRows : 1,
                   /*length=*/0)) {
    model.giveBack(std::move(staging));
    return fail(status, /*ran=*/true);
  }
  account(/*ran=*/true);
  std::vector<const void *> inputData;
  std::vector<void *> outputData;
  for (size_t r = 0; r < rows; ++r) {
    const RequestPtr &request = batch[first + r];
    for (size_t o = 0; o < staging->outputs.size(); ++o) {
      size_t row = signature.outputRowBytes[o];
      std::memcpy(request->outputs[o].data,
                  static_cast<unsigned char *>(staging->outputs[o].data) +
                      r * row,
                  row);
    }
    // Before it completes: then the caller may reuse the buffers.
    if (cache)
      cache->insert(request->cacheKey,
                    rowBuffers(request->inputs.data(), request->outputs.data(),
                               inputData, outputData));
    request->complete(TESSEL_OK, "");
  }
  model.giveBack(std::move(staging));
}

void tessel_scheduler::recordRun(int64_t rows, std::chrono::microseconds took) {
  // The largest timed size <= rows (the first is the smallest run), its
  // time scaled down from `rows`: the window's estimates go by sizes.
  auto above = std::upper_bound(timedSizes.begin(), timedSizes.end(), rows);
  int64_t size =
      above == timedSizes.begin() ? timedSizes.front() : *std::prev(above);
  if (size != rows)
    took = std::chrono::microseconds(took.count() * size / rows);
  adaptive->recordRun(size, took);
}

void tessel_scheduler::runBatch(std::vector<RequestPtr> batch) {
  try {
    for (size_t first = 0; first < batch.size();) {
      size_t remaining = batch.size() - first;
      // The largest batch size that fits; the smallest when none does.
      BatchModel *chosen = models.front().get();
      for (auto &model : models)
        if (size_t(model->batch) <= remaining)
          chosen = model.get();
      size_t rows = std::min(remaining, size_t(chosen->batch));
      runChunk(*chosen, batch, first, rows);
      first += rows;
    }
  } catch (...) {
    // Only memory can run out here (a vector of pointers); fail the rest.
    for (const RequestPtr &request : batch) {
      {
        std::lock_guard<std::mutex> lock(request->mutex);
        if (request->done)
          continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++stats.completed;
      }
      request->complete(TESSEL_OUT_OF_MEMORY, "out of memory");
    }
  }
  // Notified under the lock: once it is released, tessel_scheduler_release
  // may destroy the scheduler.
  std::lock_guard<std::mutex> lock(mutex);
  --inFlight;
  wakeBatcher.notify_all();
  batchDone.notify_all();
}

