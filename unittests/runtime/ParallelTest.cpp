//===- ParallelTest.cpp - parallel_for and the thread pool ----------------===//
//
// Reaches the runtime's parallel_for through a real entry: the parallel
// fixture (fixtures/parallel_model.c) runs services->parallel_for and reports
// the chunks it got, the threads that ran them and how many ran at once.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sched.h>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace tessel;
using namespace tessel::test;

namespace {

constexpr int64_t kMaxRange = 4096;
constexpr int64_t kModeNested = 1;
constexpr int64_t kModeOverlap = 2;
constexpr int64_t kModeSlow = 4;

enum Info {
  kNumThreads,
  kNumChunks,
  kThreadsUsed,
  kMaxConcurrent,
  kCallerRan,
  kNestedBad,
  kOverlapTimeouts
};

const int64_t kParamsShape[] = {4};
const int64_t kVisitsShape[] = {kMaxRange};
const int64_t kChunksShape[] = {2 * kMaxRange};
const int64_t kInfoShape[] = {8};

/// The buffers of one run of the parallel fixture.
struct Probe {
  std::array<int64_t, 4> params{};
  std::vector<int32_t> visits = std::vector<int32_t>(kMaxRange, -1);
  std::vector<int64_t> chunks = std::vector<int64_t>(2 * kMaxRange, 0);
  std::array<int64_t, 8> info{};

  Probe(int64_t begin, int64_t end, int64_t grain, int64_t mode = 0)
      : params{begin, end, grain, mode} {}

  std::vector<tessel_tensor_view> inputs() {
    return {{params.data(), TESSEL_DTYPE_I64, 1, kParamsShape,
             sizeof(int64_t) * 4}};
  }
  std::vector<tessel_tensor_view> outputs() {
    return {
        {visits.data(), TESSEL_DTYPE_I32, 1, kVisitsShape,
         sizeof(int32_t) * kMaxRange},
        {chunks.data(), TESSEL_DTYPE_I64, 1, kChunksShape,
         sizeof(int64_t) * 2 * kMaxRange},
        {info.data(), TESSEL_DTYPE_I64, 1, kInfoShape, sizeof(int64_t) * 8}};
  }
};

/// Checks that the chunks cover [begin, end) exactly once, and that every
/// chunk but the last is at least `grain` long (the contract in abi.h).
::testing::AssertionResult coversOnce(const Probe &probe) {
  int64_t begin = probe.params[0], end = probe.params[1];
  int64_t grain = std::max<int64_t>(1, probe.params[2]);
  int64_t length = std::max<int64_t>(0, end - begin);
  for (int64_t i = 0; i < kMaxRange; ++i)
    if (probe.visits[i] != (i < length ? 1 : 0))
      return ::testing::AssertionFailure()
             << "index " << begin + i << " visited " << probe.visits[i]
             << " times";
  int64_t numChunks = probe.info[kNumChunks];
  if (length == 0)
    return numChunks == 0 ? ::testing::AssertionSuccess()
                          : ::testing::AssertionFailure()
                                << numChunks << " chunks of an empty range";
  std::vector<std::pair<int64_t, int64_t>> chunks;
  for (int64_t i = 0; i < numChunks; ++i)
    chunks.emplace_back(probe.chunks[2 * i], probe.chunks[2 * i + 1]);
  std::sort(chunks.begin(), chunks.end());
  int64_t next = begin;
  for (size_t i = 0; i < chunks.size(); ++i) {
    auto [chunkBegin, chunkEnd] = chunks[i];
    if (chunkBegin != next || chunkEnd <= chunkBegin)
      return ::testing::AssertionFailure()
             << "chunk [" << chunkBegin << ", " << chunkEnd
             << ") does not continue at " << next;
    if (i + 1 < chunks.size() && chunkEnd - chunkBegin < grain)
      return ::testing::AssertionFailure()
             << "chunk [" << chunkBegin << ", " << chunkEnd
             << ") is shorter than the grain " << grain;
    next = chunkEnd;
  }
  if (next != end)
    return ::testing::AssertionFailure() << "the chunks end at " << next;
  return ::testing::AssertionSuccess();
}

class ParallelForTest : public ::testing::Test {
protected:
  void SetUp() override {
    Status status = Model::load(TESSEL_FIXTURE_PARALLEL, model);
    ASSERT_TRUE(status.ok()) << status.message();
  }

  Session session(int32_t numThreads) {
    Session created;
    Status status = Session::create(model, created, numThreads);
    EXPECT_TRUE(status.ok()) << status.message();
    return created;
  }

  static void run(Session &session, Probe &probe) {
    Status status = session.run(probe.inputs(), probe.outputs());
    ASSERT_TRUE(status.ok()) << status.message();
  }

  Model model;
};

TEST_F(ParallelForTest, CoversTheRangeInChunksOfAtLeastTheGrain) {
  struct Case {
    int64_t begin, end, grain;
    int32_t threads;
  };
  const Case cases[] = {
      {0, 1000, 1, 4},  {0, 1000, 7, 2},    {3, 4000, 100, 3},
      {0, 4096, 1, 64}, {0, 10, 100, 4},    {0, 1, 1, 4},
      {7, 7, 1, 4},     {10, 5, 1, 4},      {0, 100, 0, 4},
      {0, 100, -5, 4},  {0, 4096, 1, 1},    {100, 4196, 4095, 4},
      {0, 17, 4, 2},    {0, 4096, 1000, 0},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("[" + std::to_string(c.begin) + ", " + std::to_string(c.end) +
                 ") grain " + std::to_string(c.grain) + ", " +
                 std::to_string(c.threads) + " threads");
    Session s = session(c.threads);
    Probe probe(c.begin, c.end, c.grain);
    run(s, probe);
    EXPECT_TRUE(coversOnce(probe));
    // At most 4 chunks per thread, never more than the grain allows.
    int64_t length = std::max<int64_t>(0, c.end - c.begin);
    int64_t grain = std::max<int64_t>(1, c.grain);
    EXPECT_LE(probe.info[kNumChunks], 4 * probe.info[kNumThreads]);
    EXPECT_LE(probe.info[kNumChunks], (length + grain - 1) / grain);
  }
}

// The chunks are as many as the threads and the grain allow and of
// near-equal length, so that the threads' shares differ by one iteration at
// most where the chunks can: 42 iterations on 2 threads are 8 chunks of 5
// or 6 (fixed chunks of 6 were 7, one thread running 4 of them), 10 are 8
// of 1 or 2, 17 with a grain of 4 are 4 of 4 or 5.
TEST_F(ParallelForTest, ChunksAreOfNearEqualLength) {
  struct Case {
    int64_t begin, end, grain;
    int32_t threads;
    int64_t chunks;
  };
  const Case cases[] = {
      {0, 42, 1, 2, 8}, {0, 10, 1, 2, 8},   {5, 54, 1, 2, 8},
      {0, 17, 4, 2, 4}, {0, 1000, 7, 2, 8}, {0, 3, 1, 2, 3},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("[" + std::to_string(c.begin) + ", " + std::to_string(c.end) +
                 ") grain " + std::to_string(c.grain) + ", " +
                 std::to_string(c.threads) + " threads");
    Session s = session(c.threads);
    if (s.numThreads() < c.threads)
      GTEST_SKIP() << "the pool has fewer threads";
    Probe probe(c.begin, c.end, c.grain);
    run(s, probe);
    ASSERT_TRUE(coversOnce(probe));
    EXPECT_EQ(probe.info[kNumChunks], c.chunks);
    int64_t shortest = c.end - c.begin, longest = 0;
    for (int64_t i = 0; i < probe.info[kNumChunks]; ++i) {
      int64_t length = probe.chunks[2 * i + 1] - probe.chunks[2 * i];
      shortest = std::min(shortest, length);
      longest = std::max(longest, length);
    }
    EXPECT_LE(longest - shortest, 1);
  }
}

TEST_F(ParallelForTest, ComputedCodeIsToldTheSessionsBudget) {
  int32_t poolSize = tessel_runtime_num_threads();
  ASSERT_GE(poolSize, 1);
  for (int32_t threads : {1, 2, 3, 0, 1000}) {
    Session s = session(threads);
    Probe probe(0, 10, 1);
    run(s, probe);
    int32_t budget = threads == 0 ? s.numThreads() : threads;
    EXPECT_EQ(probe.info[kNumThreads], std::min(budget, poolSize)) << threads;
  }
}

TEST_F(ParallelForTest, OneThreadRunsOneChunkOnTheCaller) {
  Session s = session(1);
  Probe probe(0, 4096, 1, kModeSlow);
  run(s, probe);
  EXPECT_TRUE(coversOnce(probe));
  EXPECT_EQ(probe.info[kNumChunks], 1);
  EXPECT_EQ(probe.info[kThreadsUsed], 1);
  EXPECT_EQ(probe.info[kCallerRan], 1);
}

TEST_F(ParallelForTest, ChunksRunInParallelWithTheCaller) {
  if (tessel_runtime_num_threads() < 2)
    GTEST_SKIP() << "the pool has one thread";
  Session s = session(2);
  Probe probe(0, 64, 1, kModeOverlap);
  run(s, probe);
  EXPECT_TRUE(coversOnce(probe));
  EXPECT_EQ(probe.info[kOverlapTimeouts], 0);
  EXPECT_GE(probe.info[kMaxConcurrent], 2);
  EXPECT_GE(probe.info[kThreadsUsed], 2);
  EXPECT_EQ(probe.info[kCallerRan], 1) << "the calling thread participates";
}

// After the pool's workers have stopped polling and sleep, a loop still
// wakes one to run beside the caller.
TEST_F(ParallelForTest, WakesASleepingWorker) {
  if (tessel_runtime_num_threads() < 2)
    GTEST_SKIP() << "the pool has one thread";
  Session s = session(2);
  for (int i = 0; i < 3; ++i) {
    // Past the workers' polling (200 us).
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Probe probe(0, 64, 1, kModeOverlap);
    run(s, probe);
    EXPECT_TRUE(coversOnce(probe));
    EXPECT_EQ(probe.info[kOverlapTimeouts], 0);
    EXPECT_GE(probe.info[kMaxConcurrent], 2);
  }
}

TEST_F(ParallelForTest, NeverExceedsTheSessionsBudget) {
  int32_t poolSize = tessel_runtime_num_threads();
  for (int32_t threads : {2, 3}) {
    if (threads > poolSize)
      continue;
    Session s = session(threads);
    Probe probe(0, 48, 1, kModeSlow);
    run(s, probe);
    EXPECT_TRUE(coversOnce(probe));
    EXPECT_LE(probe.info[kMaxConcurrent], threads);
    EXPECT_LE(probe.info[kThreadsUsed], threads);
  }
}

TEST_F(ParallelForTest, NestedCallsRunInlineAsOneChunk) {
  Session s = session(0);
  for (int64_t mode : {kModeNested, kModeNested | kModeSlow}) {
    Probe probe(0, 1000, 10, mode);
    run(s, probe);
    EXPECT_TRUE(coversOnce(probe)) << mode;
    EXPECT_EQ(probe.info[kNestedBad], 0) << mode;
  }
  if (tessel_runtime_num_threads() >= 2) {
    // Nested calls while chunks are certainly running on two threads.
    Session two = session(2);
    Probe probe(0, 64, 1, kModeNested | kModeOverlap);
    run(two, probe);
    EXPECT_TRUE(coversOnce(probe));
    EXPECT_EQ(probe.info[kNestedBad], 0);
    EXPECT_EQ(probe.info[kOverlapTimeouts], 0);
  }
}

TEST_F(ParallelForTest, ConcurrentCallersShareThePool) {
  Session s = session(0);
  std::vector<std::unique_ptr<Probe>> probes;
  for (int t = 0; t < 4; ++t)
    probes.push_back(std::make_unique<Probe>(t, 2000 + t, 16, kModeNested));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20 && errors[t].empty(); ++i) {
        Status status = s.run(probes[t]->inputs(), probes[t]->outputs());
        if (!status.ok())
          errors[t] = status.message();
        else if (!coversOnce(*probes[t]))
          errors[t] = coversOnce(*probes[t]).message();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(errors[t], "") << t;
}

TEST_F(ParallelForTest, RunsOnStreamsFanOutToo) {
  Session s = session(0);
  constexpr int kStreams = 3, kRuns = 10;
  std::vector<Stream> streams(kStreams);
  for (Stream &stream : streams)
    ASSERT_TRUE(Stream::create(stream).ok());
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < kStreams * kRuns; ++i)
    probes.push_back(
        std::make_unique<Probe>(i, 2048 + i, 8, i % 2 ? kModeNested : 0));
  for (int i = 0; i < kStreams * kRuns; ++i) {
    Status status = s.runAsync(streams[i % kStreams], probes[i]->inputs(),
                               probes[i]->outputs());
    ASSERT_TRUE(status.ok()) << status.message();
  }
  for (Stream &stream : streams) {
    Status status = stream.synchronize();
    ASSERT_TRUE(status.ok()) << status.message();
  }
  for (int i = 0; i < kStreams * kRuns; ++i) {
    EXPECT_TRUE(coversOnce(*probes[i])) << i;
    EXPECT_EQ(probes[i]->info[kNestedBad], 0) << i;
  }
}

/// The pool's size, computed here independently of the runtime: the value
/// of TESSEL_NUM_THREADS when it is an integer in [1, 1024], else the cores
/// in this process's affinity mask. ctest runs this test with several
/// values of the variable (see CMakeLists.txt).
TEST(PoolSize, FollowsTesselNumThreadsOrTheCores) {
  int32_t expected = 0;
  if (const char *text = std::getenv("TESSEL_NUM_THREADS")) {
    char *end = nullptr;
    errno = 0;
    long value = std::strtol(text, &end, 10);
    if (*text && !*end && errno == 0 && value >= 1 && value <= 1024)
      expected = int32_t(value);
  }
  if (expected == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
    expected = CPU_COUNT(&set);
  }
  EXPECT_EQ(tessel_runtime_num_threads(), expected);

  // Streams work whatever the size, even with one worker.
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_PARALLEL, model).ok());
  Session session;
  ASSERT_TRUE(Session::create(model, session).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(stream).ok());
  Probe probe(0, 1000, 1, kModeNested);
  ASSERT_TRUE(session.runAsync(stream, probe.inputs(), probe.outputs()).ok());
  Status status = stream.synchronize();
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(coversOnce(probe));
  EXPECT_EQ(probe.info[kNumThreads],
            std::min(session.numThreads(), tessel_runtime_num_threads()));
}

} // namespace
