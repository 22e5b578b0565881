//===- thread_pool.h - The runtime's one thread pool ------------*- C++ -*-===//
//
// Internal to the runtime library. One pool per process, created on first
// use and never destroyed (its threads may still be serving a stream the
// application forgot to release when the process exits; the library is
// linked with -z nodelete so it is never unloaded under them).
//
// Two queues feed the workers: urgent tasks (helpers of a parallel_for that
// is already running) are taken before normal ones (stream work), so an
// operator in flight gets idle threads before new operators start.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_THREAD_POOL_H
#define TESSEL_RUNTIME_CORE_THREAD_POOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessel::runtime {

class ThreadPool {
public:
  /// A unit of work. It must not throw (a task that does is stopped there;
  /// the worker survives).
  using Task = std::function<void()>;

  /// The process's pool, started on first call with configuredSize()
  /// workers. Thread-safe.
  static ThreadPool &get();

  /// The number of workers the pool has or will have: TESSEL_NUM_THREADS
  /// when it holds an integer in [1, kMaxThreads], else the cores this
  /// process may run on. Computed once. Thread-safe; starts nothing.
  static int32_t configuredSize();

  /// The number of workers actually running (fewer than configuredSize()
  /// only when the system refused to create threads).
  int32_t size() const { return int32_t(workers.size()); }

  /// Queues `task`. Returns false, with `task` not queued, when the pool has
  /// no workers or memory runs out. Never throws.
  bool submit(Task task, bool urgent) noexcept;

  static constexpr int32_t kMaxThreads = 1024;

  /// How long an idle worker polls for the next task before it sleeps: a
  /// model's parallel loops come kernel after kernel, microseconds apart,
  /// and waking a sleeping thread takes tens of microseconds, as long as a
  /// small kernel's whole loop (spinning as onnxruntime's and OpenMP's
  /// pools do).
  static constexpr int64_t kSpinMicroseconds = 200;

  /// Polls `done` (with a pause between polls) for up to
  /// kSpinMicroseconds; whether it became true.
  template <typename Done> static bool pollFor(Done done) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::microseconds(kSpinMicroseconds);
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (done())
          return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      }
      if (std::chrono::steady_clock::now() >= deadline)
        return false;
    }
  }

private:
  explicit ThreadPool(int32_t numWorkers);
  void workerLoop();

  /// Tasks in the queues (read without the lock while spinning).
  std::atomic<int64_t> queued{0};
  /// Workers polling for a task (seq_cst with `queued`: see submit()).
  std::atomic<int64_t> polling{0};
  std::mutex mutex;
  std::condition_variable wakeUp;
  std::deque<Task> urgentTasks;
  std::deque<Task> normalTasks;
  std::vector<std::thread> workers;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_THREAD_POOL_H
