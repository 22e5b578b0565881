//===- parallel.h - The runtime's parallel_for service ----------*- C++ -*-===//
//
// Internal to the runtime library. Compiled code reaches this through
// tessel_runtime_services::parallel_for; chunks run on the calling thread and
// on the process's thread pool (thread_pool.h), the same workers that serve
// streams, so parallel loops and concurrent streams share the cores instead
// of oversubscribing them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_PARALLEL_H
#define TESSEL_RUNTIME_CORE_PARALLEL_H

#include "tessel/abi.h"

#include <cstdint>

namespace tessel::runtime {

struct CheckedLibrary;

/// What `tessel_runtime_services::runtime_ctx` points at: one per session,
/// immutable after the session is created.
struct ParallelContext {
  /// The most threads (the caller included) one parallel_for may occupy:
  /// the session's `num_threads`, capped at the pool's size. >= 1.
  int32_t numThreads = 1;
  /// The artifact whose code calls, to name its loops in a trace.
  CheckedLibrary *library = nullptr;
};

/// The tessel_parallel_for_fn the runtime lends to compiled code: runs
/// `body` over disjoint chunks covering [begin, end), each at least `grain`
/// long except the last, on the calling thread and on up to
/// `numThreads - 1` pool workers; returns when every chunk is done.
/// `runtimeCtx` is a ParallelContext (NULL: one thread). A call made from
/// inside a chunk runs inline, as one chunk, on the calling thread.
void parallelFor(void *runtimeCtx, int64_t begin, int64_t end, int64_t grain,
                 tessel_parallel_body body, void *bodyCtx) noexcept;

/// The number of threads parallelFor() may use for a session created with
/// `requestedThreads` (>= 1): what compiled code is told in
/// `services->num_threads`.
int32_t parallelForConcurrency(int32_t requestedThreads);

/// The number of cores this process may run on (>= 1).
int32_t availableCores();

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_PARALLEL_H
