//===- ResultCacheTest.cpp - The result cache's class ---------------------===//
//
// The class behind sessions' and schedulers' result caches, compiled into
// this test (the library exports only the C API), so that entries of any
// size, and keys that collide, can be made at will. SessionCacheTest.cpp
// tests the cache through the C API.
//
//===----------------------------------------------------------------------===//

#include "core/result_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <random>
#include <vector>

using tessel::runtime::ResultCache;
using tessel::runtime::RunBuffers;

namespace {

/// One run's tensors: `inputs` and `outputs` hold the bytes.
struct StoredRun {
  std::vector<std::vector<unsigned char>> inputs, outputs;
  std::vector<const void *> inputData;
  std::vector<void *> outputData;
  std::vector<size_t> inputSizes, outputSizes;

  StoredRun(std::vector<std::vector<unsigned char>> in,
            std::vector<std::vector<unsigned char>> out)
      : inputs(std::move(in)), outputs(std::move(out)) {}
  RunBuffers buffers() {
    inputData.clear();
    outputData.clear();
    inputSizes.clear();
    outputSizes.clear();
    for (auto &input : inputs) {
      inputData.push_back(input.data());
      inputSizes.push_back(input.size());
    }
    for (auto &output : outputs) {
      outputData.push_back(output.data());
      outputSizes.push_back(output.size());
    }
    return {inputData.data(),  inputSizes.data(),  inputSizes.size(),
            outputData.data(), outputSizes.data(), outputSizes.size()};
  }
  uint64_t key() { return ResultCache::key(buffers()); }
};

std::vector<unsigned char> bytes(size_t size, unsigned char first) {
  std::vector<unsigned char> out(size);
  for (size_t i = 0; i < size; ++i)
    out[i] = static_cast<unsigned char>(first + i);
  return out;
}

TEST(ResultCache, AHitCopiesTheStoredOutputs) {
  ResultCache cache(1000);
  StoredRun stored({bytes(16, 1), bytes(8, 50)}, {bytes(12, 100)});
  cache.insert(stored.key(), stored.buffers());
  StoredRun asked({bytes(16, 1), bytes(8, 50)},
                  {std::vector<unsigned char>(12)});
  ASSERT_TRUE(cache.lookup(asked.key(), asked.buffers()));
  EXPECT_EQ(asked.outputs[0], stored.outputs[0]);
  // A copy: changing the caller's buffer leaves the entry as it was.
  asked.outputs[0].assign(12, 0);
  ASSERT_TRUE(cache.lookup(asked.key(), asked.buffers()));
  EXPECT_EQ(asked.outputs[0], stored.outputs[0]);
  tessel_cache_stats stats = cache.stats();
  EXPECT_EQ(stats.struct_size, sizeof(tessel_cache_stats));
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, 36u); // 16 + 8 input bytes, 12 output bytes
  EXPECT_EQ(stats.capacity_bytes, 1000u);
}

TEST(ResultCache, AnyChangedInputByteMisses) {
  ResultCache cache(1000);
  StoredRun stored({bytes(16, 1), bytes(8, 50)}, {bytes(12, 100)});
  cache.insert(stored.key(), stored.buffers());
  for (size_t input = 0; input < 2; ++input) {
    for (size_t at = 0; at < stored.inputs[input].size(); ++at) {
      StoredRun asked({bytes(16, 1), bytes(8, 50)}, {bytes(12, 0)});
      asked.inputs[input][at] ^= 1;
      EXPECT_FALSE(cache.lookup(asked.key(), asked.buffers()))
          << "input " << input << " byte " << at;
      EXPECT_EQ(asked.outputs[0], bytes(12, 0)); // untouched
    }
  }
  EXPECT_EQ(cache.stats().misses, 24u);
}

TEST(ResultCache, TheKeyCoversSizesAndEveryByte) {
  // The same bytes split differently between the inputs.
  StoredRun ab({bytes(2, 'a'), {}}, {});
  StoredRun aThenB({bytes(1, 'a'), bytes(1, 'b')}, {});
  EXPECT_NE(ab.key(), aThenB.key());
  StoredRun changed({bytes(2, 'a'), {}}, {});
  changed.inputs[0][1] = 'c';
  EXPECT_NE(ab.key(), changed.key());
  StoredRun same({bytes(2, 'a'), {}}, {});
  EXPECT_EQ(ab.key(), same.key());
}

TEST(ResultCache, ACollidingKeyNeverReturnsAnotherRunsOutputs) {
  ResultCache cache(1000);
  const uint64_t key = 42; // as if both runs' inputs hashed alike
  StoredRun first({bytes(8, 1)}, {bytes(4, 10)});
  StoredRun second({bytes(8, 2)}, {bytes(4, 20)});
  cache.insert(key, first.buffers());
  cache.insert(key, second.buffers());
  EXPECT_EQ(cache.stats().entries, 2u);
  for (StoredRun *stored : {&first, &second}) {
    StoredRun asked({stored->inputs[0]}, {bytes(4, 0)});
    ASSERT_TRUE(cache.lookup(key, asked.buffers()));
    EXPECT_EQ(asked.outputs[0], stored->outputs[0]);
  }
  StoredRun third({bytes(8, 3)}, {bytes(4, 0)});
  EXPECT_FALSE(cache.lookup(key, third.buffers()));
  EXPECT_EQ(third.outputs[0], bytes(4, 0));
}

TEST(ResultCache, OutputsOfAnotherSizeMiss) {
  ResultCache cache(1000);
  StoredRun stored({bytes(8, 1)}, {bytes(4, 10)});
  cache.insert(stored.key(), stored.buffers());
  StoredRun wider({bytes(8, 1)}, {bytes(6, 0)});
  EXPECT_FALSE(cache.lookup(wider.key(), wider.buffers()));
  StoredRun more({bytes(8, 1)}, {bytes(4, 0), bytes(4, 0)});
  EXPECT_FALSE(cache.lookup(more.key(), more.buffers()));
}

TEST(ResultCache, EvictsTheLeastRecentlyUsed) {
  ResultCache cache(30); // three entries of 10 bytes
  std::vector<StoredRun> runs;
  for (unsigned char i = 0; i < 4; ++i)
    runs.emplace_back(std::vector<std::vector<unsigned char>>{bytes(6, i)},
                      std::vector<std::vector<unsigned char>>{bytes(4, i)});
  auto has = [&](size_t i) {
    StoredRun asked({runs[i].inputs[0]}, {bytes(4, 99)});
    return cache.lookup(asked.key(), asked.buffers());
  };
  for (size_t i = 0; i < 3; ++i)
    cache.insert(runs[i].key(), runs[i].buffers());
  // Recency, most recent first, after each step.
  EXPECT_TRUE(has(0)); // 0 2 1
  // 3 evicts 1: 3 0 2
  cache.insert(runs[3].key(), runs[3].buffers());
  EXPECT_FALSE(has(1));
  EXPECT_TRUE(has(2)); // 2 3 0
  EXPECT_TRUE(has(0)); // 0 2 3
  EXPECT_TRUE(has(3)); // 3 0 2
  // 1 evicts 2: 1 3 0
  cache.insert(runs[1].key(), runs[1].buffers());
  EXPECT_FALSE(has(2));
  EXPECT_TRUE(has(1) && has(3) && has(0));
  tessel_cache_stats stats = cache.stats();
  EXPECT_EQ(stats.evictions, 2u);
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.bytes, 30u);
}

TEST(ResultCache, AnEntryLargerThanTheBoundIsNotStored) {
  ResultCache cache(30);
  StoredRun small({bytes(6, 1)}, {bytes(4, 1)});
  cache.insert(small.key(), small.buffers());
  StoredRun big({bytes(27, 2)}, {bytes(4, 2)}); // 31 bytes
  cache.insert(big.key(), big.buffers());
  EXPECT_FALSE(cache.lookup(big.key(), big.buffers()));
  tessel_cache_stats stats = cache.stats();
  EXPECT_EQ(stats.entries, 1u); // and the small one was not evicted for it
  EXPECT_EQ(stats.evictions, 0u);
  StoredRun exact({bytes(26, 3)}, {bytes(4, 3)}); // 30 bytes: fits, alone
  cache.insert(exact.key(), exact.buffers());
  stats = cache.stats();
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, 30u);
  EXPECT_EQ(stats.evictions, 1u);
}

TEST(ResultCache, AnEqualEntryIsStoredOnce) {
  ResultCache cache(100);
  StoredRun run({bytes(6, 1)}, {bytes(4, 1)});
  cache.insert(run.key(), run.buffers());
  cache.insert(run.key(), run.buffers());
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.stats().bytes, 10u);
}

TEST(ResultCache, TheBoundHoldsAcrossManyInsertsOfVariousSizes) {
  // The cache against a reference LRU list, after every insert and lookup:
  // the same entries, bytes and evictions, and bytes never above the bound.
  const uint64_t capacity = 4096;
  ResultCache cache(capacity);
  std::mt19937 rng(7);
  struct Reference {
    int id;
    uint64_t cost;
  };
  std::list<Reference> reference; // most recently used first
  uint64_t referenceBytes = 0, referenceEvictions = 0;
  std::vector<StoredRun> runs;
  for (int id = 0; id < 3000; ++id) {
    bool lookup = !runs.empty() && rng() % 3 == 0;
    if (lookup) {
      int which = int(rng() % runs.size());
      StoredRun asked({runs[which].inputs[0]},
                      {bytes(runs[which].outputs[0].size(), 0)});
      bool hit = cache.lookup(asked.key(), asked.buffers());
      auto it = std::find_if(reference.begin(), reference.end(),
                             [&](const Reference &r) { return r.id == which; });
      ASSERT_EQ(hit, it != reference.end()) << "lookup of run " << which;
      if (hit) {
        EXPECT_EQ(asked.outputs[0], runs[which].outputs[0]);
        reference.splice(reference.begin(), reference, it);
      }
    } else {
      // Mostly small, some near the bound, some above it. Distinct: the
      // run's id leads its input.
      int runId = int(runs.size());
      size_t inputSize =
          sizeof(runId) + (rng() % 4 == 0 ? rng() % 5000 : rng() % 600);
      size_t outputSize = rng() % 200; // some empty outputs too
      std::vector<unsigned char> input = bytes(inputSize, (unsigned char)rng());
      std::memcpy(input.data(), &runId, sizeof(runId));
      runs.emplace_back(std::vector<std::vector<unsigned char>>{input},
                        std::vector<std::vector<unsigned char>>{
                            bytes(outputSize, (unsigned char)rng())});
      StoredRun &run = runs.back();
      cache.insert(run.key(), run.buffers());
      uint64_t cost = inputSize + outputSize;
      if (cost <= capacity) {
        reference.push_front({runId, cost});
        referenceBytes += cost;
        while (referenceBytes > capacity) {
          referenceBytes -= reference.back().cost;
          reference.pop_back();
          ++referenceEvictions;
        }
      }
    }
    tessel_cache_stats stats = cache.stats();
    ASSERT_LE(stats.bytes, capacity) << "step " << id;
    ASSERT_EQ(stats.bytes, referenceBytes) << "step " << id;
    ASSERT_EQ(stats.entries, reference.size()) << "step " << id;
    ASSERT_EQ(stats.evictions, referenceEvictions) << "step " << id;
  }
  EXPECT_GT(referenceEvictions, 100u);
}

} // namespace
