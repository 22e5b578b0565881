//===- thread_pool.cpp - The runtime's one thread pool --------------------===//

#include "thread_pool.h"

#include "trace.h"

#include "parallel.h"

#include <cerrno>
#include <cstdlib>
#include <new>
#include <system_error>

namespace tessel::runtime {

int32_t ThreadPool::configuredSize() {
  static const int32_t size = [] {
    if (const char *text = std::getenv("TESSEL_NUM_THREADS")) {
      char *end = nullptr;
      errno = 0;
      long parsed = std::strtol(text, &end, 10);
      if (*text != '\0' && *end == '\0' && errno == 0 && parsed >= 1 &&
          parsed <= kMaxThreads)
        return int32_t(parsed);
    }
    return availableCores();
  }();
  return size;
}

ThreadPool &ThreadPool::get() {
  // Never destroyed: see the file comment in thread_pool.h.
  static ThreadPool *pool = new ThreadPool(configuredSize());
  return *pool;
}

ThreadPool::ThreadPool(int32_t numWorkers) {
  try {
    workers.reserve(size_t(numWorkers));
    for (int32_t i = 0; i < numWorkers; ++i)
      workers.emplace_back([this, i] {
        try {
          trace::nameThread("pool worker " + std::to_string(i));
        } catch (...) {
        }
        workerLoop();
      });
  } catch (const std::system_error &) {
    // Keep the workers that started; callers check size().
  } catch (const std::bad_alloc &) {
  }
  // The workers run for the life of the process.
  for (std::thread &worker : workers)
    worker.detach();
}

bool ThreadPool::submit(Task task, bool urgent) noexcept {
  if (workers.empty())
    return false;
  try {
    std::lock_guard<std::mutex> lock(mutex);
    (urgent ? urgentTasks : normalTasks).push_back(std::move(task));
    queued.fetch_add(1, std::memory_order_release);
  } catch (...) {
    return false;
  }
  wakeUp.notify_one();
  return true;
}

void ThreadPool::workerLoop() {
  for (;;) {
    Task task;
    // Idle: poll for the next task before sleeping on the queue.
    pollFor([&] { return queued.load(std::memory_order_acquire) > 0; });
    {
      std::unique_lock<std::mutex> lock(mutex);
      wakeUp.wait(lock,
                  [&] { return !urgentTasks.empty() || !normalTasks.empty(); });
      std::deque<Task> &queue = urgentTasks.empty() ? normalTasks : urgentTasks;
      task = std::move(queue.front());
      queue.pop_front();
      queued.fetch_sub(1, std::memory_order_relaxed);
    }
    try {
      task();
    } catch (...) {
      // Tasks report their own errors; nothing escapes a worker.
    }
  }
}

} // namespace tessel::runtime
