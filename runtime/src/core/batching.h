//===- batching.h - The batching scheduler's state --------------*- C++ -*-===//
//
// What scheduler.cpp (the batching thread and the batches) and
// scheduler_api.cpp (the C API: creation, submission, stats) share: a
// request, the models with their staging tensors, and the scheduler.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_BATCHING_H
#define TESSEL_RUNTIME_CORE_BATCHING_H

#include "tessel/scheduler.h"

#include "adaptive_window.h"
#include "result_cache.h"
#include "trace.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace tessel::runtime::batching {
using Clock = std::chrono::steady_clock;
} // namespace tessel::runtime::batching

/// The caller's handle shares the request with the scheduler.
struct tessel_request {
  struct State {
    using Clock = tessel::runtime::batching::Clock;
    std::vector<tessel_tensor_view> inputs, outputs; // shapes not kept
    int32_t priority = 0;
    uint64_t sequence = 0;
    Clock::time_point submitted;
    Clock::time_point deadline = Clock::time_point::max();
    uint64_t cacheKey = 0; // ResultCache::key of the rows, with a cache
    uint64_t traceId = 0;  // when traced from its submission

    std::mutex mutex;
    std::condition_variable completed;
    bool done = false;
    tessel_status_code code = TESSEL_OK;
    std::string message;

    void complete(tessel_status_code resultCode, std::string resultMessage) {
      if (traceId && tessel::runtime::trace::enabled()) {
        try {
          tessel::runtime::trace::asyncEnd(
              "scheduler", "request", traceId,
              "\"status\": " +
                  tessel::runtime::trace::quote(
                      tessel_status_code_name(resultCode)));
        } catch (...) { // out of memory: the span stays open
        }
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        code = resultCode;
        message = std::move(resultMessage);
        done = true;
      }
      completed.notify_all();
    }
  };
  std::shared_ptr<State> state;
};

namespace tessel::runtime::batching {

using RequestPtr = std::shared_ptr<tessel_request::State>;

/// Priority first (higher first), then submission order.
struct ServeOrder {
  bool operator()(const RequestPtr &a, const RequestPtr &b) const {
    if (a->priority != b->priority)
      return a->priority > b->priority;
    return a->sequence < b->sequence;
  }
};

/// The per-sample byte size of every input and output: the tensors' size
/// with the leading dimension dropped.
struct Signature {
  std::vector<size_t> inputRowBytes, outputRowBytes;
};

/// One model of the scheduler, with its session and the staging tensors of
/// batches not running (allocated on demand, kept for reuse). A model with
/// a dynamic batch (ABI 1.4, alone in its scheduler) runs any number of
/// rows from `batchMin` to `batch` (its batch_max) in one call.
struct BatchModel {
  tessel_model *model = nullptr;
  tessel_session *session = nullptr;
  int64_t batch = 0; // the rows of one run; with a dynamic batch, the most
  bool dynamic = false;
  int64_t batchMin = 0;    // with a dynamic batch: fewer rows are padded
  int64_t stagingRows = 0; // the rows of the staging tensors

  /// The rows a run of `rows` requests computes: the model's batch, or
  /// with a dynamic batch the requests' rows, at least `batchMin`.
  int64_t runRows(size_t rows) const {
    return dynamic ? std::max<int64_t>(int64_t(rows), batchMin) : batch;
  }

  struct Staging {
    std::vector<tessel_tensor_view> inputs, outputs;
    ~Staging() {
      for (tessel_tensor_view &view : inputs)
        tessel_tensor_free(&view);
      for (tessel_tensor_view &view : outputs)
        tessel_tensor_free(&view);
    }
  };
  std::mutex stagingMutex;
  std::vector<std::unique_ptr<Staging>> freeStaging;

  tessel_status takeStaging(std::unique_ptr<Staging> &out);
  void giveBack(std::unique_ptr<Staging> staging);
};

} // namespace tessel::runtime::batching

struct tessel_scheduler {
  using BatchModel = tessel::runtime::batching::BatchModel;
  using Clock = tessel::runtime::batching::Clock;
  using RequestPtr = tessel::runtime::batching::RequestPtr;
  using RunBuffers = tessel::runtime::RunBuffers;
  using ResultCache = tessel::runtime::ResultCache;

  tessel_scheduler_options options{};
  std::vector<std::unique_ptr<BatchModel>> models; // ascending batch
  tessel::runtime::batching::Signature signature;

  std::mutex mutex;
  std::condition_variable wakeBatcher; // queue, in-flight count or stop
  std::condition_variable batchDone;   // for release
  std::set<RequestPtr, tessel::runtime::batching::ServeOrder> queue;
  uint64_t nextSequence = 0;
  int32_t inFlight = 0;
  bool stopping = false;
  tessel_scheduler_stats stats{};
  std::thread batcher;
  /// Per-sample results (options.result_cache_bytes), NULL without.
  std::unique_ptr<ResultCache> cache;
  /// The window options.target_p99_us sets, NULL without a target; used
  /// under `mutex`.
  std::unique_ptr<tessel::runtime::batching::AdaptiveWindow> adaptive;
  /// The batch sizes `adaptive` times, ascending: the models', or for a
  /// model with a dynamic batch some of the row counts it runs (a run of
  /// other rows counts, scaled, as the largest of these below it).
  std::vector<int64_t> timedSizes;

  ~tessel_scheduler();
  tessel_status checkRequest(const tessel_tensor_view *inputs, size_t numInputs,
                             const tessel_tensor_view *outputs,
                             size_t numOutputs) const;
  /// The buffers of one request's rows, as the result cache sees them;
  /// `inputData` and `outputData` hold the pointers.
  RunBuffers rowBuffers(const tessel_tensor_view *inputs,
                        const tessel_tensor_view *outputs,
                        std::vector<const void *> &inputData,
                        std::vector<void *> &outputData) const;
  void batchLoop();
  /// Completes the queued requests whose deadline has passed; with `mutex`.
  void expire(Clock::time_point now);
  /// Runs `batch` (on a pool thread) and completes its requests.
  void runBatch(std::vector<RequestPtr> batch);
  /// Counts a run of `rows` rows that took `took` in `adaptive` (with
  /// `mutex`).
  void recordRun(int64_t rows, std::chrono::microseconds took);
  /// Runs `rows` requests of `batch` from `first` on `model`.
  void runChunk(BatchModel &model, const std::vector<RequestPtr> &batch,
                size_t first, size_t rows);
};

#endif // TESSEL_RUNTIME_CORE_BATCHING_H
