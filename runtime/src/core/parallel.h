//===- parallel.h - The runtime's parallel_for service ----------*- C++ -*-===//
//
// Internal to the runtime library. Compiled code reaches this through
// tessel_runtime_services::parallel_for. Everything that decides how work is
// spread over threads lives behind these two functions, so a thread pool can
// replace the serial executor without touching sessions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_PARALLEL_H
#define TESSEL_RUNTIME_CORE_PARALLEL_H

#include "tessel/abi.h"

#include <cstdint>

namespace tessel::runtime {

/// The tessel_parallel_for_fn the runtime lends to compiled code: runs
/// `body` over chunks covering [begin, end). `runtimeCtx` is the session's.
void parallelFor(void *runtimeCtx, int64_t begin, int64_t end, int64_t grain,
                 tessel_parallel_body body, void *bodyCtx);

/// The number of threads parallelFor() actually uses for a session created
/// with `requestedThreads` (>= 1). This is what compiled code is told.
int32_t parallelForConcurrency(int32_t requestedThreads);

/// The number of cores this process may run on (>= 1).
int32_t availableCores();

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_PARALLEL_H
