//===- tessel/scheduler.hpp - C++17 wrapper over the scheduler C API ------===//
//
// Header-only RAII wrappers over tessel/scheduler.h, in the style of
// tessel/runtime.hpp: nothing throws, every fallible call returns a
// tessel::Status.
//
//   std::vector<tessel::Model> models(3);  // batch 1, 4 and 8
//   ...
//   tessel::Scheduler scheduler;
//   tessel::Scheduler::Options options;  // max batch, window, queue limit
//   options.window_us = 1000;
//   tessel::Scheduler::create(models, options, scheduler);
//   tessel::Request request;
//   scheduler.submit(inputs, outputs, request, /*priority=*/0,
//                    /*deadline_us=*/5000);
//   tessel::Status s = request.wait();  // DEADLINE_EXCEEDED, or a run error
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_SCHEDULER_HPP
#define TESSEL_SCHEDULER_HPP

#include "tessel/runtime.hpp"
#include "tessel/scheduler.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tessel {

/// Owns a tessel_request.
class Request {
public:
  Request() = default;
  Request(Request &&other) noexcept
      : request(std::exchange(other.request, nullptr)) {}
  Request &operator=(Request &&other) noexcept {
    if (this != &other) {
      tessel_request_release(request);
      request = std::exchange(other.request, nullptr);
    }
    return *this;
  }
  Request(const Request &) = delete;
  Request &operator=(const Request &) = delete;
  ~Request() { tessel_request_release(request); }

  bool valid() const { return request != nullptr; }
  tessel_request *get() const { return request; }

  /// Blocks until the request completed; its outcome.
  Status wait() const { return Status(tessel_request_wait(request)); }
  /// Whether it has completed; never blocks.
  Status query(bool &done) const {
    int32_t flag = 0;
    Status status(tessel_request_query(request, &flag));
    if (status.ok())
      done = flag != 0;
    return status;
  }

private:
  friend class Scheduler;
  tessel_request *request = nullptr;
};

/// Owns a tessel_scheduler; its destructor drains the queue.
class Scheduler {
public:
  /// The knobs of tessel_scheduler_options; 0 takes the default.
  struct Options {
    int32_t max_batch = 0;
    int64_t window_us = 0;
    int32_t queue_limit = 0;
    int32_t max_concurrent_batches = 0;
    int32_t num_threads = 0;
    uint64_t result_cache_bytes = 0;
    int64_t target_p99_us = 0;
  };

  Scheduler() = default;
  Scheduler(Scheduler &&other) noexcept
      : scheduler(std::exchange(other.scheduler, nullptr)) {}
  Scheduler &operator=(Scheduler &&other) noexcept {
    if (this != &other) {
      tessel_scheduler_release(scheduler);
      scheduler = std::exchange(other.scheduler, nullptr);
    }
    return *this;
  }
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;
  ~Scheduler() { tessel_scheduler_release(scheduler); }

  /// Creates a scheduler over `models` (one per batch size) into `out`.
  static Status create(const std::vector<const Model *> &models,
                       const Options &options, Scheduler &out) {
    std::vector<tessel_model *> handles;
    handles.reserve(models.size());
    for (const Model *model : models)
      handles.push_back(model ? model->get() : nullptr);
    tessel_scheduler_options c{};
    c.struct_size = sizeof(c);
    c.max_batch = options.max_batch;
    c.window_us = options.window_us;
    c.queue_limit = options.queue_limit;
    c.max_concurrent_batches = options.max_concurrent_batches;
    c.num_threads = options.num_threads;
    c.result_cache_bytes = options.result_cache_bytes;
    c.target_p99_us = options.target_p99_us;
    tessel_scheduler *created = nullptr;
    Status status(
        tessel_scheduler_create(handles.data(), handles.size(), &c, &created));
    if (status.ok()) {
      out = Scheduler();
      out.scheduler = created;
    }
    return status;
  }

  bool valid() const { return scheduler != nullptr; }
  tessel_scheduler *get() const { return scheduler; }

  size_t numModels() const { return tessel_scheduler_num_models(scheduler); }
  int64_t batchSize(size_t index) const {
    return tessel_scheduler_batch_size(scheduler, index);
  }

  /// Queues one request (one sample) into `out`; the buffers must live until
  /// it completes (see tessel_scheduler_submit).
  Status submit(const std::vector<tessel_tensor_view> &inputs,
                const std::vector<tessel_tensor_view> &outputs, Request &out,
                int32_t priority = 0, int64_t deadlineUs = 0) {
    tessel_request_options options{sizeof(tessel_request_options), priority,
                                   deadlineUs};
    tessel_request *created = nullptr;
    Status status(tessel_scheduler_submit(scheduler, inputs.data(),
                                          inputs.size(), outputs.data(),
                                          outputs.size(), &options, &created));
    if (status.ok()) {
      out = Request();
      out.request = created;
    }
    return status;
  }

  Status stats(tessel_scheduler_stats &out) const {
    out = tessel_scheduler_stats{};
    out.struct_size = sizeof(out);
    return Status(tessel_scheduler_get_stats(scheduler, &out));
  }

private:
  tessel_scheduler *scheduler = nullptr;
};

} // namespace tessel

#endif // TESSEL_SCHEDULER_HPP
