//===- result_cache.h - Outputs of earlier runs, by inputs -----*- C++ -*-===//
//
// Internal to the runtime library. A session's (or a scheduler's) result
// cache: the outputs of successful runs, keyed by XXH64 of their inputs and
// found only when the inputs are equal byte for byte, so that a hash
// collision can never return another run's outputs. Entries count their
// stored inputs and outputs against a byte bound and are evicted least
// recently used first. Self-contained (unittests compile it in).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_RESULT_CACHE_H
#define TESSEL_RUNTIME_CORE_RESULT_CACHE_H

#include "tessel/runtime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace tessel::runtime {

/// The tensors of one run, as the cache sees them: the data pointers and
/// byte sizes of its inputs and of its outputs.
struct RunBuffers {
  const void *const *inputs;
  const size_t *inputSizes;
  size_t numInputs;
  void *const *outputs;
  const size_t *outputSizes;
  size_t numOutputs;
};

class ResultCache {
public:
  /// A cache that holds at most `capacityBytes` of stored tensors.
  explicit ResultCache(uint64_t capacityBytes) : capacity(capacityBytes) {}
  ResultCache(const ResultCache &) = delete;
  ResultCache &operator=(const ResultCache &) = delete;

  /// XXH64 over each input's bytes, then over the (size, hash) pairs.
  static uint64_t key(const RunBuffers &run);

  /// Copies the outputs of the entry whose inputs equal `run`'s (with the
  /// same sizes) into `run.outputs` and returns true, counting a hit and
  /// making it the most recently used; counts a miss otherwise. `key` is
  /// key(run). Thread-safe.
  bool lookup(uint64_t key, const RunBuffers &run);

  /// Stores a copy of `run`'s inputs and outputs (a successful run), then
  /// evicts least recently used entries until the bound holds. Stores
  /// nothing when the entry alone exceeds the bound, when an equal entry is
  /// already held (a concurrent run stored it), or when memory runs out.
  /// Thread-safe.
  void insert(uint64_t key, const RunBuffers &run);

  /// The counts; `struct_size` is sizeof(tessel_cache_stats). Thread-safe.
  tessel_cache_stats stats() const;

private:
  struct Entry;
  using EntryPtr = std::shared_ptr<const Entry>;
  using Recency = std::list<EntryPtr>; // front: most recently used

  const uint64_t capacity;
  mutable std::mutex mutex;
  Recency recency;
  std::unordered_multimap<uint64_t, Recency::iterator> byKey;
  uint64_t bytes = 0;
  uint64_t evictions = 0;
  std::atomic<uint64_t> hits{0}, misses{0};
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_RESULT_CACHE_H
