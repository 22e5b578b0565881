//===- BatchPlanTest.cpp - The chunks of a dynamic batch ------------------===//
//
// How a run of B samples uses entries compiled for batch 1, 4 and 8
// (runtime/src/core/batch_plan.h), on made-up run times.
//
//===----------------------------------------------------------------------===//

#include "core/batch_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

using tessel::runtime::BatchChunk;
using tessel::runtime::EntryTimes;
using tessel::runtime::planBatch;

namespace {

const tessel_batch_entry kEntries[] = {
    {1, nullptr, 0}, {4, nullptr, 0}, {8, nullptr, 0}};

/// The plan as (entry batch, rows) pairs.
std::vector<std::pair<int64_t, int64_t>> plan(const EntryTimes &times,
                                              int64_t batch) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const BatchChunk &chunk : planBatch(kEntries, times, batch))
    out.emplace_back(kEntries[chunk.entry].batch, chunk.rows);
  return out;
}

/// Each entry run twice (the first run does not count).
void measure(EntryTimes &times, uint32_t entry, uint64_t ns) {
  times.record(entry, 1000 * ns);
  times.record(entry, ns);
}

EntryTimes measured(uint64_t t1, uint64_t t4, uint64_t t8) {
  EntryTimes times(3);
  measure(times, 0, t1);
  measure(times, 1, t4);
  measure(times, 2, t8);
  return times;
}

using Chunks = std::vector<std::pair<int64_t, int64_t>>;

TEST(BatchPlan, NothingMeasuredRunsTheLargestEntriesThatFit) {
  EntryTimes times(3);
  EXPECT_EQ(plan(times, 13), (Chunks{{8, 8}, {4, 4}, {1, 1}}));
  EXPECT_EQ(plan(times, 3), (Chunks{{1, 1}, {1, 1}, {1, 1}}));
  EXPECT_EQ(plan(times, 8), (Chunks{{8, 8}}));
}

TEST(BatchPlan, WeightBoundEntriesArePadded) {
  // An MLP: batch 8 costs 1.5x batch 1 (its weights read once either way).
  EntryTimes times = measured(100, 120, 150);
  EXPECT_EQ(plan(times, 3), (Chunks{{4, 3}}));
  EXPECT_EQ(plan(times, 5), (Chunks{{8, 5}}));
  EXPECT_EQ(plan(times, 13), (Chunks{{8, 8}, {8, 5}}));
  EXPECT_EQ(plan(times, 1), (Chunks{{1, 1}}));
}

TEST(BatchPlan, ActivationBoundEntriesAreNotPadded) {
  // A CNN: time grows with the samples.
  EntryTimes times = measured(100, 390, 760);
  EXPECT_EQ(plan(times, 3), (Chunks{{1, 1}, {1, 1}, {1, 1}}));
  EXPECT_EQ(plan(times, 13), (Chunks{{8, 8}, {4, 4}, {1, 1}}));
  // Padding 3 rows of 8 costs less than 7 runs of one.
  EXPECT_EQ(plan(times, 7), (Chunks{{4, 4}, {1, 1}, {1, 1}, {1, 1}}));
}

TEST(BatchPlan, AnEntryNeverRunIsTriedOnce) {
  // Only batch 1 measured: the smallest entry that holds the samples is
  // tried (padded), then judged by its time.
  EntryTimes times(3);
  measure(times, 0, 100);
  EXPECT_EQ(plan(times, 3), (Chunks{{4, 3}}));
  // Its first run (faulting its weights in) does not count.
  times.record(1, 100000);
  EXPECT_EQ(plan(times, 3), (Chunks{{4, 3}}));
  times.record(1, 400);
  EXPECT_EQ(plan(times, 3), (Chunks{{1, 1}, {1, 1}, {1, 1}}));
  EXPECT_EQ(plan(times, 6), (Chunks{{8, 6}}));
}

TEST(BatchPlan, ALargeBatchRunsTheLargestEntryUpToItsTail) {
  EntryTimes times = measured(100, 120, 150);
  std::vector<BatchChunk> chunks = planBatch(kEntries, times, 100003);
  int64_t rows = 0;
  for (const BatchChunk &chunk : chunks) {
    EXPECT_LE(chunk.rows, kEntries[chunk.entry].batch);
    rows += chunk.rows;
  }
  EXPECT_EQ(rows, 100003);
  EXPECT_EQ(chunks.size(), 12501u); // 12500 of 8, the last 3 padded
  EXPECT_EQ(kEntries[chunks.back().entry].batch, 4);
}

TEST(BatchPlan, TimesAreAMovingAverageFromTheSecondRun) {
  EntryTimes times(1);
  times.record(0, 90000);
  EXPECT_EQ(times.get(0), 0u);
  times.record(0, 400);
  EXPECT_EQ(times.get(0), 400u);
  times.record(0, 800);
  EXPECT_EQ(times.get(0), 500u);
  // A run slowed by something else counts as twice the average at most.
  times.record(0, 100000);
  EXPECT_EQ(times.get(0), 625u);
}

} // namespace
