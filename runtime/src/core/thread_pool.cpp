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
  // A polling worker takes the task without being woken. Waking a sleeping
  // one anyway put a thread that found nothing to do on a core the loop's
  // threads were using, and off it again: two context switches per
  // parallel loop (ResNet-50 at 2 threads on 2 cores, whose pool has a
  // worker more than a session's loop helpers). No task is left unseen: a
  // worker stops counting itself as polling before it checks the queues
  // under the lock and sleeps, so either this load sees it gone (and wakes
  // a worker) or its check comes after the push.
  if (queued.load() > polling.load())
    wakeUp.notify_one();
  return true;
}

void ThreadPool::workerLoop() {
  for (;;) {
    Task task;
    // Idle: poll for the next task before sleeping on the queue.
    polling.fetch_add(1);
    pollFor([&] { return queued.load(std::memory_order_acquire) > 0; });
    polling.fetch_sub(1);
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
