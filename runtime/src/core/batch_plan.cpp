//===- batch_plan.cpp - Chunks of a dynamic batch -------------------------===//

#include "batch_plan.h"

#include <algorithm>
#include <limits>

using namespace tessel::runtime;

void EntryTimes::record(uint32_t entry, uint64_t ns) {
  // An entry's first run pays for faulting in its code and weights: it
  // does not count.
  if (runs[entry].fetch_add(1, std::memory_order_relaxed) == 0)
    return;
  uint64_t old = nanos[entry].load(std::memory_order_relaxed);
  // A quarter of each new run, a slower one counting as at most twice the
  // average: the average follows the machine's load within a few runs, and
  // one run slowed by something else does not price the entry out of the
  // plans (which would then never run it again to correct it).
  uint64_t average =
      old == 0 ? ns : (old * 3 + std::min<uint64_t>(ns, 2 * old)) / 4;
  nanos[entry].store(std::max<uint64_t>(average, 1),
                     std::memory_order_relaxed);
}

namespace {

/// Past this many samples at the end the plan stops weighing every split:
/// the largest entry runs the samples before them.
constexpr int64_t kPlannedTail = 4096;

} // namespace

std::vector<BatchChunk>
tessel::runtime::planBatch(const tessel_batch_entry *entries,
                           const EntryTimes &times, int64_t batch) {
  uint32_t count = times.size();
  // Each entry's cost: measured, else assumed.
  std::vector<double> cost(count);
  bool measured = false;
  for (uint32_t e = 0; e < count; ++e)
    measured |= times.get(e) != 0;
  double known = 0;
  for (uint32_t e = 0; e < count; ++e) {
    if (!measured)
      cost[e] = double(entries[e].batch);
    else if (uint64_t ns = times.get(e))
      known = cost[e] = double(ns);
    else // a nanosecond per sample: the smaller of two such is tried first
      cost[e] = known + double(entries[e].batch);
  }
  // The last entry's chunks for the samples before the tail, then the
  // cheapest cover of the tail: best[r] covers r samples, the chunk that
  // covers the first of them possibly padded.
  int64_t largest = entries[count - 1].batch;
  int64_t tail = std::min<int64_t>(batch, largest + kPlannedTail / 2);
  std::vector<BatchChunk> plan;
  for (int64_t done = 0; batch - done > tail; done += largest)
    plan.push_back({count - 1, largest});
  tail = batch - int64_t(plan.size()) * largest;
  std::vector<double> best(tail + 1, std::numeric_limits<double>::infinity());
  std::vector<uint32_t> choice(tail + 1, 0);
  best[0] = 0;
  // Larger entries first: of equal costs, the fewer calls.
  for (int64_t r = 1; r <= tail; ++r)
    for (uint32_t e = count; e-- > 0;) {
      int64_t rest = std::max<int64_t>(0, r - entries[e].batch);
      double total = cost[e] + best[rest];
      if (total < best[r]) {
        best[r] = total;
        choice[r] = e;
      }
    }
  for (int64_t r = tail; r > 0;) {
    uint32_t e = choice[r];
    int64_t rows = std::min<int64_t>(r, entries[e].batch);
    plan.push_back({e, rows});
    r -= rows;
  }
  return plan;
}
