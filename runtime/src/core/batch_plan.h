//===- batch_plan.h - Chunks of a dynamic batch -----------------*- C++ -*-===//
//
// How a run of B samples of a dynamic-batch artifact (abi.h, ABI 1.4) uses
// the entries compiled for its batch sizes: a sequence of chunks, each one
// entry's call on the next samples, the last possibly padded (an entry of
// batch 8 running 3 samples and 5 rows of zeros, whose results are
// dropped). The plan is the cheapest by the entries' measured run times.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_BATCH_PLAN_H
#define TESSEL_RUNTIME_CORE_BATCH_PLAN_H

#include "tessel/abi.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessel::runtime {

/// One call: entry `entry` on `rows` samples (fewer than its batch: the
/// rest is padding).
struct BatchChunk {
  uint32_t entry = 0;
  int64_t rows = 0;
};

/// The run time of each entry, as measured on one session's runs: a
/// moving average in nanoseconds from its second run on (0 before).
/// Concurrent runs update it without a lock (a lost update only delays
/// the average).
class EntryTimes {
public:
  explicit EntryTimes(uint32_t count)
      : count(count), nanos(new std::atomic<uint64_t>[count]),
        runs(new std::atomic<uint64_t>[count]) {
    for (uint32_t i = 0; i < count; ++i) {
      nanos[i].store(0, std::memory_order_relaxed);
      runs[i].store(0, std::memory_order_relaxed);
    }
  }
  uint64_t get(uint32_t entry) const {
    return nanos[entry].load(std::memory_order_relaxed);
  }
  void record(uint32_t entry, uint64_t ns);
  uint32_t size() const { return count; }

private:
  uint32_t count;
  std::unique_ptr<std::atomic<uint64_t>[]> nanos, runs;
};

/// The cheapest chunks for `batch` samples over `entries` (ascending, the
/// first of batch 1). An entry's cost is its measured time; one never run
/// is assumed to cost what the largest smaller entry measured, plus a
/// nanosecond a sample (so that a run of it, padded if need be, is tried
/// once, the smallest such first, then judged by its time); with nothing
/// measured, the costs are the batch sizes (chunks of the largest entry
/// that fits, no padding). Of equal costs, the fewer calls.
std::vector<BatchChunk> planBatch(const tessel_batch_entry *entries,
                                  const EntryTimes &times, int64_t batch);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_BATCH_PLAN_H
