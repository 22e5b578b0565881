//===- result_cache.cpp - Outputs of earlier runs, by their inputs --------===//
//
// One mutex guards the recency list and the index. A lookup compares the
// candidate's stored inputs under it (a hash match is not trusted) and
// copies the outputs after releasing it: entries are immutable and shared,
// so an eviction meanwhile only drops the cache's reference.
//
//===----------------------------------------------------------------------===//

#include "result_cache.h"

#include "tessel/seal.h"

#include <cstring>
#include <new>
#include <vector>

namespace tessel::runtime {

/// A stored run: its input bytes, then its output bytes, in one block.
struct ResultCache::Entry {
  uint64_t key = 0;
  size_t numInputs = 0;
  std::vector<size_t> sizes; // inputs, then outputs
  std::unique_ptr<unsigned char[]> data;
  uint64_t cost = 0; // bytes of `data`, what the bound counts

  /// Whether `run` has the same inputs, byte for byte, and outputs of the
  /// same sizes.
  bool matches(const RunBuffers &run) const {
    if (numInputs != run.numInputs ||
        sizes.size() - numInputs != run.numOutputs)
      return false;
    const unsigned char *stored = data.get();
    for (size_t i = 0; i < run.numInputs; ++i) {
      if (sizes[i] != run.inputSizes[i] ||
          (sizes[i] && std::memcmp(stored, run.inputs[i], sizes[i]) != 0))
        return false;
      stored += sizes[i];
    }
    for (size_t o = 0; o < run.numOutputs; ++o)
      if (sizes[numInputs + o] != run.outputSizes[o])
        return false;
    return true;
  }

  void copyOutputs(const RunBuffers &run) const {
    const unsigned char *stored = data.get();
    for (size_t i = 0; i < numInputs; ++i)
      stored += sizes[i];
    for (size_t o = 0; o < run.numOutputs; ++o) {
      size_t size = sizes[numInputs + o];
      if (size)
        std::memcpy(run.outputs[o], stored, size);
      stored += size;
    }
  }
};

uint64_t ResultCache::key(const RunBuffers &run) {
  // Chained through the one XXH64 of tessel/seal.h: no allocation per run.
  uint64_t key = 0;
  for (size_t i = 0; i < run.numInputs; ++i) {
    size_t size = run.inputSizes[i];
    uint64_t words[3] = {key, uint64_t(size),
                         size ? tessel_xxh64(run.inputs[i], size) : 0};
    key = tessel_xxh64(words, sizeof(words));
  }
  return key;
}

bool ResultCache::lookup(uint64_t key, const RunBuffers &run) {
  EntryPtr found;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto range = byKey.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (!(*it->second)->matches(run))
        continue; // a collision
      recency.splice(recency.begin(), recency, it->second);
      found = *it->second;
      break;
    }
  }
  if (!found) {
    misses.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  found->copyOutputs(run);
  hits.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ResultCache::insert(uint64_t key, const RunBuffers &run) {
  uint64_t cost = 0;
  for (size_t i = 0; i < run.numInputs; ++i)
    cost += run.inputSizes[i];
  for (size_t o = 0; o < run.numOutputs; ++o)
    cost += run.outputSizes[o];
  if (cost > capacity)
    return;
  Recency dropped; // evicted entries, freed after the lock is released
  try {
    auto entry = std::make_shared<Entry>();
    entry->key = key;
    entry->numInputs = run.numInputs;
    entry->sizes.assign(run.inputSizes, run.inputSizes + run.numInputs);
    entry->sizes.insert(entry->sizes.end(), run.outputSizes,
                        run.outputSizes + run.numOutputs);
    entry->data.reset(new unsigned char[cost ? size_t(cost) : 1]);
    entry->cost = cost;
    unsigned char *stored = entry->data.get();
    for (size_t i = 0; i < run.numInputs; ++i) {
      if (run.inputSizes[i])
        std::memcpy(stored, run.inputs[i], run.inputSizes[i]);
      stored += run.inputSizes[i];
    }
    for (size_t o = 0; o < run.numOutputs; ++o) {
      if (run.outputSizes[o])
        std::memcpy(stored, run.outputs[o], run.outputSizes[o]);
      stored += run.outputSizes[o];
    }

    std::lock_guard<std::mutex> lock(mutex);
    auto range = byKey.equal_range(key);
    for (auto it = range.first; it != range.second; ++it)
      if ((*it->second)->matches(run))
        return; // a concurrent run with the same inputs stored it first
    recency.push_front(std::move(entry));
    try {
      byKey.emplace(key, recency.begin());
    } catch (...) {
      recency.pop_front();
      throw;
    }
    bytes += cost;
    while (bytes > capacity) {
      auto last = std::prev(recency.end());
      auto victims = byKey.equal_range((*last)->key);
      for (auto it = victims.first; it != victims.second; ++it) {
        if (it->second == last) {
          byKey.erase(it);
          break;
        }
      }
      bytes -= (*last)->cost;
      ++evictions;
      dropped.splice(dropped.end(), recency, last);
    }
  } catch (const std::bad_alloc &) {
    // Not cached; the run itself succeeded.
  }
}

tessel_cache_stats ResultCache::stats() const {
  tessel_cache_stats out{};
  out.struct_size = sizeof(tessel_cache_stats);
  out.hits = hits.load(std::memory_order_relaxed);
  out.misses = misses.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mutex);
  out.evictions = evictions;
  out.entries = recency.size();
  out.bytes = bytes;
  out.capacity_bytes = capacity;
  return out;
}

} // namespace tessel::runtime
