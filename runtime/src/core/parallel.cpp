//===- parallel.cpp - The runtime's parallel_for service ------------------===//
//
// The serial executor: one chunk, the whole range, on the calling thread.
// This satisfies the contract in abi.h (disjoint chunks covering the range,
// each at least `grain` long except the last).
//
//===----------------------------------------------------------------------===//

#include "parallel.h"

#include <sched.h>
#include <thread>

namespace tessel::runtime {

void parallelFor(void *runtimeCtx, int64_t begin, int64_t end, int64_t grain,
                 tessel_parallel_body body, void *bodyCtx) {
  (void)runtimeCtx;
  (void)grain;
  if (!body || begin >= end)
    return;
  body(bodyCtx, begin, end);
}

int32_t parallelForConcurrency(int32_t requestedThreads) {
  (void)requestedThreads;
  return 1;
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
