//===- parallel.cpp - The runtime's parallel_for service ------------------===//
//
// A parallel_for splits [begin, end) into at most kChunksPerThread chunks per
// thread it may use (never shorter than `grain`; their lengths differ by at
// most one iteration), posts `numThreads - 1`
// helper tasks to the pool's urgent queue, and works through the chunks
// itself, starting with the first. Threads claim chunks from one atomic
// counter, so a helper that starts late (its worker was busy with other
// streams) finds less or nothing left to do, and the caller never waits for
// a helper that has not started: it only waits for chunks already claimed,
// which are running. That is why a worker that runs stream work may call
// parallelFor without risk of deadlock, and why nested calls (from inside a
// chunk) simply run inline.
//
//===----------------------------------------------------------------------===//

#include "parallel.h"

#include "library.h"
#include "thread_pool.h"
#include "trace.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sched.h>
#include <thread>

namespace tessel::runtime {

namespace {

/// More chunks than threads balance the load when some threads start late
/// or run slower.
constexpr uint64_t kChunksPerThread = 4;

/// How deep this thread is inside parallel_for chunks.
thread_local int chunkDepth = 0;

void runInline(tessel_parallel_body body, void *bodyCtx, int64_t begin,
               int64_t end) {
  ++chunkDepth;
  body(bodyCtx, begin, end);
  --chunkDepth;
}

/// One parallel_for in flight, shared by its caller and its helper tasks.
struct ForJob {
  int64_t begin = 0;
  int64_t end = 0;
  /// Chunks of near-equal length: `numChunks` of `chunkLength` iterations,
  /// the first `longer` of them one more.
  uint64_t chunkLength = 1;
  uint64_t longer = 0;
  uint64_t numChunks = 0;
  tessel_parallel_body body = nullptr;
  void *bodyCtx = nullptr;
  std::string traceName; // set when tracing: helpers record their share

  std::atomic<uint64_t> nextChunk{1}; // chunk 0 is the caller's
  std::atomic<uint64_t> unfinished{0};
  std::mutex mutex;
  std::condition_variable finished;
  bool allDone = false; // guarded by `mutex`

  void runChunk(uint64_t index) {
    uint64_t offset = index * chunkLength + std::min(index, longer);
    int64_t chunkBegin = int64_t(uint64_t(begin) + offset);
    int64_t chunkEnd = index + 1 == numChunks
                           ? end
                           : int64_t(uint64_t(chunkBegin) + chunkLength +
                                     (index < longer ? 1 : 0));
    runInline(body, bodyCtx, chunkBegin, chunkEnd);
    if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex);
      allDone = true;
      finished.notify_all();
    }
  }

  /// Claims and runs chunks until none are left; returns how many it ran.
  uint64_t work() {
    for (uint64_t ran = 0;; ++ran) {
      uint64_t index = nextChunk.fetch_add(1, std::memory_order_relaxed);
      if (index >= numChunks)
        return ran;
      runChunk(index);
    }
  }

  /// A helper task: work(), recorded on this thread's track when tracing.
  void help() {
    if (traceName.empty()) {
      work();
      return;
    }
    double start = trace::now();
    if (uint64_t ran = work()) {
      try {
        trace::complete("kernel", traceName, start, trace::now(),
                        "\"chunks\": " + std::to_string(ran));
      } catch (...) { // out of memory: this span is lost
      }
    }
  }

  void waitUntilDone() {
    // The chunks still running are short (a kernel's share): poll a while
    // before sleeping, as the pool's idle workers do.
    if (ThreadPool::pollFor(
            [&] { return unfinished.load(std::memory_order_acquire) == 0; }))
      return;
    std::unique_lock<std::mutex> lock(mutex);
    finished.wait(lock, [&] { return allDone; });
  }
};

/// A top-level parallel loop on its caller's track, when tracing.
struct LoopTrace {
  std::string name;
  double start = 0;
  int64_t length = 0;
  uint64_t chunks = 1;
  int32_t threads = 1;

  LoopTrace(const ParallelContext *context, tessel_parallel_body body,
            int64_t begin, int64_t end) {
    if (!trace::enabled() || chunkDepth > 0)
      return;
    try {
      name = context && context->library
                 ? context->library->loopName(reinterpret_cast<void *>(body))
                 : "parallel loop";
    } catch (...) {
      name.clear(); // out of memory: not traced
      return;
    }
    start = trace::now();
    length = end - begin;
  }
  ~LoopTrace() {
    if (name.empty())
      return;
    try {
      trace::complete("kernel", name, start, trace::now(),
                      "\"iterations\": " + std::to_string(length) +
                          ", \"chunks\": " + std::to_string(chunks) +
                          ", \"threads\": " + std::to_string(threads));
    } catch (...) {
    }
  }
};

} // namespace

void parallelFor(void *runtimeCtx, int64_t begin, int64_t end, int64_t grain,
                 tessel_parallel_body body, void *bodyCtx) noexcept {
  if (!body || begin >= end)
    return;
  auto *context = static_cast<const ParallelContext *>(runtimeCtx);
  int32_t numThreads = context ? context->numThreads : 1;
  LoopTrace loopTrace(context, body, begin, end);
  uint64_t length = uint64_t(end) - uint64_t(begin);
  uint64_t minChunk = grain < 1 ? 1 : uint64_t(grain);
  if (chunkDepth > 0 || numThreads <= 1 || length <= minChunk) {
    runInline(body, bodyCtx, begin, end);
    return;
  }

  // As many chunks as the threads and the grain allow, of near-equal
  // length: fixed-size chunks left a short last one (42 iterations on 2
  // threads: 7 chunks of 6, 4 against 3; by such counts, ResNet-50's loops
  // of 10, 42 and 49 iterations left a core idle for about 4 of its 70 ms
  // at 2 threads, Zen 3).
  uint64_t maxChunks = uint64_t(numThreads) * kChunksPerThread;
  uint64_t numChunks = std::min(maxChunks, length / minChunk);
  if (numChunks <= 1) {
    runInline(body, bodyCtx, begin, end);
    return;
  }

  std::shared_ptr<ForJob> job;
  try {
    job = std::make_shared<ForJob>();
  } catch (...) {
    runInline(body, bodyCtx, begin, end);
    return;
  }
  job->begin = begin;
  job->end = end;
  job->chunkLength = length / numChunks;
  job->longer = length % numChunks;
  job->numChunks = numChunks;
  job->body = body;
  job->bodyCtx = bodyCtx;
  job->unfinished.store(numChunks, std::memory_order_relaxed);
  if (!loopTrace.name.empty()) {
    try {
      job->traceName = loopTrace.name;
    } catch (...) {
    }
    loopTrace.chunks = numChunks;
  }

  uint64_t helpers =
      std::min<uint64_t>(uint64_t(numThreads) - 1, numChunks - 1);
  loopTrace.threads = int32_t(helpers + 1);
  try {
    ThreadPool &pool = ThreadPool::get();
    for (uint64_t i = 0; i < helpers; ++i)
      if (!pool.submit([job] { job->help(); }, /*urgent=*/true))
        break;
  } catch (...) {
    // Out of memory: the helpers that were queued help; the caller does the
    // rest.
  }
  job->runChunk(0);
  job->work();
  job->waitUntilDone();
}

int32_t parallelForConcurrency(int32_t requestedThreads) {
  int32_t poolSize = ThreadPool::configuredSize();
  return std::max(1, std::min(requestedThreads, poolSize));
}

int32_t availableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return count;
  }
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware > 0 ? int32_t(hardware) : 1;
}

} // namespace tessel::runtime
