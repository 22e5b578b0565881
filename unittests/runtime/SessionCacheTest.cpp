//===- SessionCacheTest.cpp - Result caches of sessions and schedulers ----===//
//
// Through the C API, on fixtures/batch_model.c built for batch 1 (x
// float32[1,3] -> y = 2x + 1, and batch int32[1,1]: an entry of 12 + 12 + 4
// = 28 bytes), whose log of the rows it ran tells whether a run reached the
// model; and on fixtures/add_model.c built with the descriptor flag
// TESSEL_MODEL_NONDETERMINISTIC, or as an ABI 1.1 artifact without it.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"
#include "tessel/scheduler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <random>
#include <thread>

using namespace tessel;
using namespace tessel::test;

namespace {

constexpr uint64_t kEntryBytes = 28;
const int64_t kXShape[] = {1, 3};
const int64_t kBatchShape[] = {1, 1};

/// One run of the batch-1 fixture, with its own buffers.
struct Sample {
  alignas(16) float x[3];
  alignas(16) float y[3] = {-7, -7, -7};
  int32_t batch[1] = {-7};

  explicit Sample(float value) : x{value, value / 3, -value} {}
  tessel_tensor_view input() {
    return {x, TESSEL_DTYPE_F32, 2, kXShape, sizeof(x)};
  }
  std::vector<tessel_tensor_view> outputs() {
    return {{y, TESSEL_DTYPE_F32, 2, kXShape, sizeof(y)},
            {batch, TESSEL_DTYPE_I32, 2, kBatchShape, sizeof(batch)}};
  }
  /// The outputs' bytes.
  std::vector<unsigned char> result() const {
    std::vector<unsigned char> out(sizeof(y) + sizeof(batch));
    std::memcpy(out.data(), y, sizeof(y));
    std::memcpy(out.data() + sizeof(y), batch, sizeof(batch));
    return out;
  }
  bool correct() const {
    for (int c = 0; c < 3; ++c)
      if (y[c] != 2 * x[c] + 1)
        return false;
    return batch[0] == 1;
  }
};

class SessionCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(Model::load(TESSEL_FIXTURE_BATCH1, model).ok());
    fixture = dlopen(TESSEL_FIXTURE_BATCH1, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(fixture, nullptr);
    logLength = reinterpret_cast<int (*)(float *, int)>(
        dlsym(fixture, "batch_fixture_log"));
    auto reset =
        reinterpret_cast<void (*)()>(dlsym(fixture, "batch_fixture_reset"));
    ASSERT_TRUE(logLength && reset);
    reset();
  }
  void TearDown() override {
    if (fixture)
      dlclose(fixture);
  }

  /// How many times the model's entry has run (one logged row per run).
  int entryRuns() { return logLength(nullptr, 0); }

  Status create(Session &session, uint64_t cacheBytes) {
    return Session::create(model, session, /*numThreads=*/1, cacheBytes);
  }
  static Status run(Session &session, Sample &sample) {
    tessel_tensor_view input = sample.input();
    std::vector<tessel_tensor_view> outputs = sample.outputs();
    return session.run(&input, 1, outputs.data(), outputs.size());
  }
  static tessel_cache_stats stats(const Session &session) {
    tessel_cache_stats out{};
    EXPECT_TRUE(session.cacheStats(out).ok());
    return out;
  }

  Model model;
  void *fixture = nullptr;
  int (*logLength)(float *, int) = nullptr;
};

TEST_F(SessionCacheTest, HitsEqualAFullRunBitForBit) {
  Session cached, plain;
  ASSERT_TRUE(create(cached, 1 << 20).ok());
  ASSERT_TRUE(create(plain, 0).ok());
  // 400 runs over 100 distinct inputs (random floats, so the bits of the
  // results vary): about 3 in 4 repeat.
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1000.0f);
  std::vector<float> values(100);
  for (float &value : values)
    value = normal(rng);
  int before = entryRuns();
  size_t repeats = 0;
  std::vector<bool> seen(values.size());
  for (int r = 0; r < 400; ++r) {
    size_t which = rng() % values.size();
    repeats += seen[which];
    seen[which] = true;
    Sample fromCache(values[which]), full(values[which]);
    ASSERT_TRUE(run(cached, fromCache).ok());
    ASSERT_TRUE(run(plain, full).ok());
    ASSERT_EQ(fromCache.result(), full.result()) << "run " << r;
    ASSERT_TRUE(fromCache.correct());
  }
  tessel_cache_stats s = stats(cached);
  EXPECT_EQ(s.hits, repeats);
  EXPECT_EQ(s.misses, 400 - repeats);
  EXPECT_GT(s.hits, 250u);
  // The plain session ran the model 400 times, the cached one per miss.
  EXPECT_EQ(entryRuns() - before, int(400 + s.misses));
  EXPECT_EQ(s.entries, 400 - repeats);
  EXPECT_EQ(s.bytes, s.entries * kEntryBytes);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(s.capacity_bytes, uint64_t(1) << 20);
}

TEST_F(SessionCacheTest, AChangedInputMisses) {
  Session session;
  ASSERT_TRUE(create(session, 1024).ok());
  Sample first(1.5f);
  ASSERT_TRUE(run(session, first).ok());
  Sample changed(1.5f);
  changed.x[2] = std::nextafter(changed.x[2], 0.0f); // one ulp
  int before = entryRuns();
  ASSERT_TRUE(run(session, changed).ok());
  EXPECT_EQ(entryRuns(), before + 1);
  EXPECT_TRUE(changed.correct());
  EXPECT_NE(changed.result(), first.result());
  Sample again(1.5f);
  ASSERT_TRUE(run(session, again).ok());
  EXPECT_EQ(entryRuns(), before + 1); // a hit
  EXPECT_EQ(again.result(), first.result());
  tessel_cache_stats s = stats(session);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
}

TEST_F(SessionCacheTest, EvictsTheLeastRecentlyUsed) {
  Session session;
  ASSERT_TRUE(create(session, 2 * kEntryBytes).ok()); // two entries
  auto hits = [&] { return stats(session).hits; };
  auto runValue = [&](float value) {
    Sample sample(value);
    EXPECT_TRUE(run(session, sample).ok());
    EXPECT_TRUE(sample.correct()) << value;
  };
  runValue(1); // A: [A]
  runValue(2); // B: [B A]
  runValue(1); // A hits: [A B]
  EXPECT_EQ(hits(), 1u);
  runValue(3); // C evicts B: [C A]
  runValue(1); // A hits: [A C]
  EXPECT_EQ(hits(), 2u);
  runValue(2); // B misses, evicts C: [B A]
  EXPECT_EQ(hits(), 2u);
  runValue(3); // C misses, evicts A: [C B]
  EXPECT_EQ(hits(), 2u);
  runValue(2); // B hits
  EXPECT_EQ(hits(), 3u);
  tessel_cache_stats s = stats(session);
  EXPECT_EQ(s.misses, 5u);
  EXPECT_EQ(s.evictions, 3u);
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.bytes, 2 * kEntryBytes);
}

TEST_F(SessionCacheTest, TheByteBoundHolds) {
  Session session;
  const uint64_t bound = 100; // three entries of 28 bytes
  ASSERT_TRUE(create(session, bound).ok());
  std::mt19937 rng(11);
  for (int r = 0; r < 300; ++r) {
    Sample sample(float(rng() % 10));
    ASSERT_TRUE(run(session, sample).ok());
    ASSERT_TRUE(sample.correct());
    tessel_cache_stats s = stats(session);
    ASSERT_LE(s.bytes, bound) << "run " << r;
    ASSERT_LE(s.entries, 3u);
    ASSERT_EQ(s.bytes, s.entries * kEntryBytes);
    ASSERT_EQ(s.hits + s.misses, uint64_t(r + 1));
    // Every miss stores an entry; what is not held was evicted.
    ASSERT_EQ(s.evictions, s.misses - s.entries);
  }
  EXPECT_GT(stats(session).evictions, 50u);
}

TEST_F(SessionCacheTest, AnEntryLargerThanTheBoundIsNotStored) {
  Session tooSmall, exact;
  ASSERT_TRUE(create(tooSmall, kEntryBytes - 1).ok());
  ASSERT_TRUE(create(exact, kEntryBytes).ok());
  int before = entryRuns();
  for (int r = 0; r < 3; ++r) {
    Sample sample(4.0f);
    ASSERT_TRUE(run(tooSmall, sample).ok());
    EXPECT_TRUE(sample.correct());
  }
  EXPECT_EQ(entryRuns(), before + 3);
  tessel_cache_stats s = stats(tooSmall);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.capacity_bytes, kEntryBytes - 1);
  for (int r = 0; r < 3; ++r) {
    Sample sample(4.0f);
    ASSERT_TRUE(run(exact, sample).ok());
    EXPECT_TRUE(sample.correct());
  }
  EXPECT_EQ(entryRuns(), before + 4);
  EXPECT_EQ(stats(exact).hits, 2u);
}

TEST_F(SessionCacheTest, AFailedRunIsNotCached) {
  Model fails;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_FAILS, fails).ok());
  Session session;
  ASSERT_TRUE(Session::create(fails, session, 1, 4096).ok());
  const int64_t shape[] = {2, 3};
  alignas(64) float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {}, y[6] = {};
  tessel_tensor_view inputs[] = {{a, TESSEL_DTYPE_F32, 2, shape, sizeof(a)},
                                 {b, TESSEL_DTYPE_F32, 2, shape, sizeof(b)}};
  tessel_tensor_view output = {y, TESSEL_DTYPE_F32, 2, shape, sizeof(y)};
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(session.run(inputs, 2, &output, 1).code(), TESSEL_RUNTIME_ERROR);
  tessel_cache_stats s = stats(session);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.entries, 0u);
}

TEST_F(SessionCacheTest, ArgumentsAreCheckedBeforeTheCache) {
  Session session;
  ASSERT_TRUE(create(session, 4096).ok());
  Sample sample(2.0f);
  ASSERT_TRUE(run(session, sample).ok());
  tessel_tensor_view input = sample.input();
  std::vector<tessel_tensor_view> outputs = sample.outputs();
  outputs[1].dtype = TESSEL_DTYPE_F32; // wrong: a hit must not hide it
  Status status = session.run(&input, 1, outputs.data(), outputs.size());
  EXPECT_EQ(status.code(), TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(stats(session).hits, 0u);
}

TEST_F(SessionCacheTest, ConcurrentRunsShareTheCache) {
  Session session;
  const uint64_t bound = 6 * kEntryBytes; // fewer entries than inputs
  ASSERT_TRUE(create(session, bound).ok());
  const int kThreads = 4, kRuns = 300;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads), failed(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int r = 0; r < kRuns; ++r) {
        Sample sample(float(rng() % 8));
        if (!run(session, sample).ok())
          ++failed[t];
        else if (!sample.correct())
          ++wrong[t];
      }
    });
  }
  // Meanwhile, runs on two streams.
  Stream streams[2];
  std::vector<std::unique_ptr<Sample>> queued;
  for (Stream &stream : streams)
    ASSERT_TRUE(Stream::create(stream).ok());
  for (int r = 0; r < 100; ++r) {
    queued.push_back(std::make_unique<Sample>(float(r % 8)));
    tessel_tensor_view input = queued.back()->input();
    std::vector<tessel_tensor_view> outputs = queued.back()->outputs();
    ASSERT_TRUE(
        session
            .runAsync(streams[r % 2], &input, 1, outputs.data(), outputs.size())
            .ok());
  }
  for (std::thread &thread : threads)
    thread.join();
  for (Stream &stream : streams)
    ASSERT_TRUE(stream.synchronize().ok());
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t;
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
  for (const auto &sample : queued)
    EXPECT_TRUE(sample->correct());
  tessel_cache_stats s = stats(session);
  EXPECT_EQ(s.hits + s.misses, uint64_t(kThreads * kRuns + 100));
  EXPECT_GT(s.hits, 0u);
  EXPECT_LE(s.bytes, bound);
  EXPECT_EQ(s.bytes, s.entries * kEntryBytes);
}

TEST_F(SessionCacheTest, StreamRunsUseTheCache) {
  Session session;
  ASSERT_TRUE(create(session, 4096).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(stream).ok());
  Sample first(5.0f), second(5.0f);
  int before = entryRuns();
  for (Sample *sample : {&first, &second}) {
    tessel_tensor_view input = sample->input();
    std::vector<tessel_tensor_view> outputs = sample->outputs();
    ASSERT_TRUE(
        session.runAsync(stream, &input, 1, outputs.data(), outputs.size())
            .ok());
  }
  ASSERT_TRUE(stream.synchronize().ok());
  EXPECT_EQ(entryRuns(), before + 1);
  EXPECT_TRUE(second.correct());
  EXPECT_EQ(second.result(), first.result());
  EXPECT_EQ(stats(session).hits, 1u);
}

TEST_F(SessionCacheTest, NoCacheUnlessAsked) {
  Session session;
  ASSERT_TRUE(create(session, 0).ok());
  for (int r = 0; r < 2; ++r) {
    Sample sample(1.0f);
    ASSERT_TRUE(run(session, sample).ok());
  }
  tessel_cache_stats s = stats(session);
  EXPECT_EQ(s.struct_size, sizeof(tessel_cache_stats));
  EXPECT_EQ(s.hits + s.misses + s.entries + s.capacity_bytes, 0u);

  // Options written before result_cache_bytes existed: the field is not
  // read, whatever follows num_threads in memory.
  tessel_session_options old{};
  old.struct_size = offsetof(tessel_session_options, num_threads) + 4;
  old.num_threads = 1;
  old.result_cache_bytes = 4096;
  tessel_session *raw = nullptr;
  StatusResult result = take(tessel_session_create(model.get(), &old, &raw));
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  tessel_cache_stats rawStats{};
  rawStats.struct_size = sizeof(rawStats);
  ASSERT_EQ(take(tessel_session_get_cache_stats(raw, &rawStats)).code,
            TESSEL_OK);
  EXPECT_EQ(rawStats.capacity_bytes, 0u);
  tessel_session_release(raw);
}

TEST_F(SessionCacheTest, TheStatsCallChecksItsArguments) {
  Session session;
  ASSERT_TRUE(create(session, 4096).ok());
  tessel_cache_stats s{};
  s.struct_size = sizeof(s);
  EXPECT_EQ(take(tessel_session_get_cache_stats(nullptr, &s)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_session_get_cache_stats(session.get(), nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  s.struct_size = 4;
  StatusResult result = take(tessel_session_get_cache_stats(session.get(), &s));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "tessel_session_get_cache_stats: struct_size is "
                            "4; set it to sizeof(tessel_cache_stats)");
  // A shorter struct from an older caller gets the fields it has.
  struct {
    tessel_cache_stats stats;
    uint64_t guard;
  } shorter{};
  shorter.stats.struct_size = offsetof(tessel_cache_stats, misses) + 8;
  shorter.stats.capacity_bytes = 77;
  shorter.guard = 99;
  ASSERT_EQ(
      take(tessel_session_get_cache_stats(session.get(), &shorter.stats)).code,
      TESSEL_OK);
  EXPECT_EQ(shorter.stats.struct_size,
            offsetof(tessel_cache_stats, misses) + 8);
  EXPECT_EQ(shorter.stats.capacity_bytes, 77u); // not written
  EXPECT_EQ(shorter.guard, 99u);
}

/// Runs the add fixture twice on the same inputs in a session asking for a
/// cache; returns its cache stats.
tessel_cache_stats twoRunsOfAdd(const char *path) {
  Model model;
  EXPECT_TRUE(Model::load(path, model).ok()) << path;
  Session session;
  EXPECT_TRUE(Session::create(model, session, 1, 1 << 20).ok());
  const int64_t shape[] = {2, 3};
  alignas(64) float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {6, 5, 4, 3, 2, 1};
  tessel_tensor_view inputs[] = {{a, TESSEL_DTYPE_F32, 2, shape, sizeof(a)},
                                 {b, TESSEL_DTYPE_F32, 2, shape, sizeof(b)}};
  for (int r = 0; r < 2; ++r) {
    alignas(64) float y[6] = {};
    tessel_tensor_view output = {y, TESSEL_DTYPE_F32, 2, shape, sizeof(y)};
    EXPECT_TRUE(session.run(inputs, 2, &output, 1).ok());
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(y[i], 7.0f);
  }
  tessel_cache_stats s{};
  EXPECT_TRUE(session.cacheStats(s).ok());
  return s;
}

TEST(SessionCacheFlags, ANonDeterministicModelGetsNoCache) {
  tessel_cache_stats s = twoRunsOfAdd(TESSEL_FIXTURE_NONDETERMINISTIC);
  EXPECT_EQ(s.capacity_bytes, 0u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.entries, 0u);
}

TEST(SessionCacheFlags, AnABI11ArtifactHasNoFlags) {
  // Its descriptor holds TESSEL_MODEL_NONDETERMINISTIC past its
  // struct_size, where the runtime must not look.
  tessel_cache_stats s = twoRunsOfAdd(TESSEL_FIXTURE_ABI1_1);
  EXPECT_EQ(s.capacity_bytes, uint64_t(1) << 20);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  // The same model as an ABI 1.2 artifact without the flag.
  s = twoRunsOfAdd(TESSEL_FIXTURE_ADD);
  EXPECT_EQ(s.hits, 1u);
}

//===----------------------------------------------------------------------===//
// The scheduler's cache: per sample, at submission
//===----------------------------------------------------------------------===//

struct RequestResult {
  Status status;
  bool doneAtOnce = false;
};

RequestResult submit(Scheduler &scheduler, Sample &sample) {
  std::vector<tessel_tensor_view> inputs = {sample.input()};
  std::vector<tessel_tensor_view> outputs = sample.outputs();
  Request request;
  RequestResult result;
  result.status = scheduler.submit(inputs, outputs, request);
  if (!result.status.ok())
    return result;
  EXPECT_TRUE(request.query(result.doneAtOnce).ok());
  result.status = request.wait();
  return result;
}

TEST_F(SessionCacheTest, SchedulerHitsCompleteAtSubmission) {
  Scheduler scheduler;
  Scheduler::Options options;
  options.window_us = -1; // batch at once
  options.result_cache_bytes = 1 << 20;
  ASSERT_TRUE(Scheduler::create({&model}, options, scheduler).ok());
  Sample first(8.0f), second(8.0f), other(9.0f);
  int before = entryRuns();
  RequestResult result = submit(scheduler, first);
  ASSERT_TRUE(result.status.ok()) << result.status.message();
  result = submit(scheduler, second);
  ASSERT_TRUE(result.status.ok()) << result.status.message();
  EXPECT_TRUE(result.doneAtOnce);
  EXPECT_EQ(second.result(), first.result());
  EXPECT_TRUE(second.correct());
  ASSERT_TRUE(submit(scheduler, other).status.ok());
  EXPECT_TRUE(other.correct());
  EXPECT_EQ(entryRuns(), before + 2);
  tessel_scheduler_stats s{};
  ASSERT_TRUE(scheduler.stats(s).ok());
  EXPECT_EQ(s.submitted, 3u);
  EXPECT_EQ(s.completed, 3u);
  EXPECT_EQ(s.batches, 2u);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.cache_misses, 2u);
  EXPECT_EQ(s.cache_evictions, 0u);
}

TEST_F(SessionCacheTest, SchedulerEvictsBeyondItsBound) {
  Scheduler scheduler;
  Scheduler::Options options;
  options.window_us = -1;
  options.result_cache_bytes = kEntryBytes; // one sample
  ASSERT_TRUE(Scheduler::create({&model}, options, scheduler).ok());
  for (float value : {1.0f, 2.0f, 1.0f, 1.0f}) {
    Sample sample(value);
    ASSERT_TRUE(submit(scheduler, sample).status.ok());
    EXPECT_TRUE(sample.correct());
  }
  tessel_scheduler_stats s{};
  ASSERT_TRUE(scheduler.stats(s).ok());
  EXPECT_EQ(s.cache_hits, 1u); // the last
  EXPECT_EQ(s.cache_misses, 3u);
  EXPECT_EQ(s.cache_evictions, 2u);
}

TEST(SchedulerCacheFlags, ANonDeterministicModelGetsNoCache) {
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_BATCH1_NONDETERMINISTIC, model).ok());
  Scheduler scheduler;
  Scheduler::Options options;
  options.window_us = -1;
  options.result_cache_bytes = 1 << 20;
  ASSERT_TRUE(Scheduler::create({&model}, options, scheduler).ok());
  for (int r = 0; r < 2; ++r) {
    Sample sample(3.0f);
    RequestResult result = submit(scheduler, sample);
    ASSERT_TRUE(result.status.ok());
    EXPECT_TRUE(sample.correct());
  }
  tessel_scheduler_stats s{};
  ASSERT_TRUE(scheduler.stats(s).ok());
  EXPECT_EQ(s.cache_hits + s.cache_misses, 0u);
  EXPECT_EQ(s.batches, 2u);
}

} // namespace
