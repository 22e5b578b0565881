//===- StreamTest.cpp - Streams, events and asynchronous runs -------------===//
//
// Most tests drive the block fixture (fixtures/block_model.c), whose entry
// logs its start and end and waits on a gate the test opens and closes
// through hooks the fixture exports. Every wait in the fixture has a
// deadline, so a runtime that fails to run things concurrently fails these
// tests instead of hanging them.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <dlfcn.h>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

using namespace tessel;
using namespace tessel::test;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

/// How long the fixture's entries wait for the gate or for each other
/// before giving up (and failing the run with code 3).
constexpr int kTimeoutMs = 10000;

/// The block fixture's hooks, from the same file the runtime loads (so the
/// same state).
class BlockHooks {
public:
  BlockHooks() {
    handle = dlopen(TESSEL_FIXTURE_BLOCK, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    bind(reset, "block_fixture_reset");
    bind(setGate, "block_fixture_set_gate");
    bind(setSleepUs, "block_fixture_set_sleep_us");
    bind(waitStarted, "block_fixture_wait_started");
    bind(readLog, "block_fixture_log");
    bind(maxRunning, "block_fixture_max_running");
  }
  ~BlockHooks() {
    if (handle)
      dlclose(handle);
  }
  BlockHooks(const BlockHooks &) = delete;
  BlockHooks &operator=(const BlockHooks &) = delete;

  bool valid() const {
    return reset && setGate && setSleepUs && waitStarted && readLog &&
           maxRunning;
  }
  std::vector<int> log() const {
    std::vector<int> entries(8192);
    int length = readLog(entries.data(), int(entries.size()));
    entries.resize(size_t(std::min<int>(length, 8192)));
    return entries;
  }

  void (*reset)(int needed, int timeoutMs) = nullptr;
  void (*setGate)(int open) = nullptr;
  void (*setSleepUs)(long us) = nullptr;
  int (*waitStarted)(int count, int timeoutMs) = nullptr;
  int (*readLog)(int *out, int capacity) = nullptr;
  int (*maxRunning)() = nullptr;

private:
  template <typename Fn> void bind(Fn &fn, const char *name) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
  }
  void *handle = nullptr;
};

const int64_t kOne[] = {1};

/// The buffers of one run of the block fixture; they must stay put until
/// the run is over (keep them in a std::deque or behind a pointer).
struct BlockRun {
  explicit BlockRun(int32_t tag) : tag(tag) {}
  tessel_tensor_view input() { return {&tag, TESSEL_DTYPE_I32, 1, kOne, 4}; }
  tessel_tensor_view output() { return {&seq, TESSEL_DTYPE_I32, 1, kOne, 4}; }

  int32_t tag;
  int32_t seq = -1;
};

/// The log of runs `tags` run one after another.
std::vector<int> inSequence(const std::vector<int> &tags) {
  std::vector<int> log;
  for (int tag : tags) {
    log.push_back(2 * tag);
    log.push_back(2 * tag + 1);
  }
  return log;
}

class BlockTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(hooks.valid()) << dlerror();
    hooks.reset(0, kTimeoutMs);
    Status status = Model::load(TESSEL_FIXTURE_BLOCK, model);
    ASSERT_TRUE(status.ok()) << status.message();
    status = Session::create(model, session, 1);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  void TearDown() override { hooks.setGate(1); }

  static Stream newStream() {
    Stream stream;
    Status status = Stream::create(stream);
    EXPECT_TRUE(status.ok()) << status.message();
    return stream;
  }
  static Event newEvent() {
    Event event;
    Status status = Event::create(event);
    EXPECT_TRUE(status.ok()) << status.message();
    return event;
  }
  /// Queues `run` on `stream`.
  void queue(const Stream &stream, BlockRun &run) {
    tessel_tensor_view in = run.input(), out = run.output();
    Status status = session.runAsync(stream, &in, 1, &out, 1);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  static bool ready(const Event &event) {
    bool isReady = false;
    Status status = event.query(isReady);
    EXPECT_TRUE(status.ok()) << status.message();
    return isReady;
  }
  static void expectOk(Status status) {
    EXPECT_TRUE(status.ok()) << status.message();
  }

  /// Opens the gate when it goes out of scope: declare it after the streams
  /// of a test that closes the gate, so that a failing assertion does not
  /// leave their destructors waiting for the fixture's deadline.
  struct OpenGateAtExit {
    BlockHooks &hooks;
    ~OpenGateAtExit() { hooks.setGate(1); }
  };

  BlockHooks hooks;
  Model model;
  Session session;
};

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

TEST_F(BlockTest, RunAsyncReturnsAtOnce) {
  Stream stream = newStream();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun run(5);
  queue(stream, run); // would block until the deadline if it ran here
  ASSERT_TRUE(hooks.waitStarted(1, kTimeoutMs));
  EXPECT_THAT(hooks.log(), ElementsAre(10));
  hooks.setGate(1);
  expectOk(stream.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAre(10, 11));
  EXPECT_EQ(run.seq, 0);
}

TEST_F(BlockTest, AStreamRunsItsWorkInOrderOneAtATime) {
  Stream stream = newStream();
  hooks.setSleepUs(300);
  std::deque<BlockRun> runs;
  std::vector<int> tags;
  for (int tag = 0; tag < 30; ++tag) {
    tags.push_back(tag);
    queue(stream, runs.emplace_back(tag));
  }
  expectOk(stream.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAreArray(inSequence(tags)));
  EXPECT_EQ(hooks.maxRunning(), 1);
  for (const BlockRun &run : runs)
    EXPECT_EQ(run.seq, 2 * run.tag);
}

TEST_F(BlockTest, DifferentStreamsRunConcurrently) {
  int count = std::min(4, tessel_runtime_num_threads());
  if (count < 2)
    GTEST_SKIP() << "the pool has one thread";
  // Each run waits until all `count` have started: they finish only if the
  // streams run at the same time. They share one session.
  hooks.reset(count, kTimeoutMs);
  std::vector<Stream> streams;
  std::deque<BlockRun> runs;
  for (int i = 0; i < count; ++i) {
    streams.push_back(newStream());
    queue(streams.back(), runs.emplace_back(i));
  }
  for (Stream &stream : streams)
    expectOk(stream.synchronize());
  EXPECT_EQ(hooks.maxRunning(), count);
  EXPECT_EQ(hooks.log().size(), size_t(2 * count));
}

TEST_F(BlockTest, ASessionRunsConcurrentlyFromThreads) {
  // Synchronous runs on one session overlap too, each with its own
  // workspace (the fixture fails a run whose workspace another run wrote).
  hooks.reset(2, kTimeoutMs);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      BlockRun run(t);
      tessel_tensor_view in = run.input(), out = run.output();
      Status status = session.run(&in, 1, &out, 1);
      errors[t] = status.message();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  EXPECT_EQ(hooks.maxRunning(), 2);
}

TEST_F(BlockTest, ReleaseWaitsForPendingWork) {
  auto stream = std::make_unique<Stream>(newStream());
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun first(1), second(2);
  queue(*stream, first);
  queue(*stream, second);
  ASSERT_TRUE(hooks.waitStarted(1, kTimeoutMs));
  std::atomic<bool> released{false};
  std::thread releaser([&] {
    stream.reset();
    released = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(released.load());
  hooks.setGate(1);
  releaser.join();
  EXPECT_TRUE(released.load());
  EXPECT_THAT(hooks.log(), ElementsAre(2, 3, 4, 5));
  EXPECT_EQ(second.seq, 2);
}

TEST_F(BlockTest, QueuedRunsKeepTheirSessionAlive) {
  Stream stream = newStream();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun run(3);
  queue(stream, run);
  session = Session(); // releases the caller's session
  model = Model();
  hooks.setGate(1);
  expectOk(stream.synchronize());
  EXPECT_EQ(run.seq, 0);
}

TEST(StreamTest, CreateChecksItsArguments) {
  tessel_stream *stream = nullptr;
  EXPECT_EQ(take(tessel_stream_create(nullptr, nullptr)).message,
            "tessel_stream_create: out_stream is NULL");
  tessel_stream_options options{0, 0};
  StatusResult result = take(tessel_stream_create(&options, &stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("struct_size is 0"));
  options = {sizeof(options), 1};
  result = take(tessel_stream_create(&options, &stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("flags is 1"));
  EXPECT_EQ(stream, nullptr);

  options.flags = 0;
  ASSERT_EQ(take(tessel_stream_create(&options, &stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_stream_synchronize(stream)).code, TESSEL_OK);
  tessel_stream_release(stream);
  tessel_stream_release(nullptr);
  EXPECT_EQ(take(tessel_stream_synchronize(nullptr)).message,
            "tessel_stream_synchronize: stream is NULL");
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

TEST_F(BlockTest, AnEventOrdersTwoStreams) {
  Stream first = newStream(), second = newStream();
  Event event = newEvent();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun a(0), b(1);
  queue(first, a);
  expectOk(event.record(first));
  expectOk(event.waitOn(second));
  queue(second, b);
  ASSERT_TRUE(hooks.waitStarted(1, kTimeoutMs));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(ready(event));
  EXPECT_THAT(hooks.log(), ElementsAre(0)) << "b started before the event";
  hooks.setGate(1);
  expectOk(second.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAre(0, 1, 2, 3));
  EXPECT_TRUE(ready(event));
  expectOk(first.synchronize());
}

TEST_F(BlockTest, AnEventNeverRecordedIsComplete) {
  Event event = newEvent();
  EXPECT_TRUE(ready(event));
  expectOk(event.synchronize()); // returns at once
  Stream stream = newStream();
  expectOk(event.waitOn(stream)); // satisfied at once
  BlockRun run(0);
  queue(stream, run);
  expectOk(stream.synchronize());
  EXPECT_EQ(run.seq, 0);
}

TEST_F(BlockTest, RecordingOnAnIdleStreamCompletesAtOnce) {
  Stream stream = newStream();
  Event event = newEvent();
  expectOk(event.record(stream));
  EXPECT_TRUE(ready(event));
  BlockRun run(0);
  queue(stream, run);
  expectOk(stream.synchronize());
  expectOk(event.record(stream));
  EXPECT_TRUE(ready(event));
}

TEST_F(BlockTest, EventSynchronizeWaitsForTheRecordedWork) {
  Stream stream = newStream();
  Event event = newEvent();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun run(4);
  queue(stream, run);
  expectOk(event.record(stream));
  EXPECT_FALSE(ready(event));
  std::thread opener2([&] {
    hooks.waitStarted(1, kTimeoutMs);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    hooks.setGate(1);
  });
  expectOk(event.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAre(8, 9));
  EXPECT_EQ(run.seq, 0); // the run's output is visible
  EXPECT_TRUE(ready(event));
  opener2.join();
}

TEST_F(BlockTest, RecordingAgainMovesTheEventButNotEarlierWaits) {
  Stream first = newStream(), second = newStream(), idle = newStream();
  Event event = newEvent();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun a(0), b(1);
  queue(first, a);
  expectOk(event.record(first));
  expectOk(event.waitOn(second)); // waits for a
  queue(second, b);
  expectOk(event.record(idle)); // the event now stands for nothing pending
  EXPECT_TRUE(ready(event));
  ASSERT_TRUE(hooks.waitStarted(1, kTimeoutMs));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_THAT(hooks.log(), ElementsAre(0)) << "b must still wait for a";
  hooks.setGate(1);
  expectOk(second.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAre(0, 1, 2, 3));
}

TEST_F(BlockTest, AWaitOutlivesItsEvent) {
  Stream first = newStream(), second = newStream();
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  BlockRun a(0), b(1);
  queue(first, a);
  {
    Event event = newEvent();
    expectOk(event.record(first));
    expectOk(event.waitOn(second));
  } // released while `second` waits on it
  queue(second, b);
  hooks.setGate(1);
  expectOk(second.synchronize());
  EXPECT_THAT(hooks.log(), ElementsAre(0, 1, 2, 3));
}

TEST(EventTest, ChecksItsArguments) {
  tessel_event *event = nullptr;
  tessel_stream *stream = nullptr;
  ASSERT_EQ(take(tessel_event_create(&event)).code, TESSEL_OK);
  ASSERT_EQ(take(tessel_stream_create(nullptr, &stream)).code, TESSEL_OK);
  int32_t ready = -1;
  EXPECT_EQ(take(tessel_event_create(nullptr)).message,
            "tessel_event_create: out_event is NULL");
  EXPECT_EQ(take(tessel_event_record(nullptr, stream)).message,
            "tessel_event_record: event is NULL");
  EXPECT_EQ(take(tessel_event_record(event, nullptr)).message,
            "tessel_event_record: stream is NULL");
  EXPECT_EQ(take(tessel_stream_wait_event(nullptr, event)).message,
            "tessel_stream_wait_event: stream is NULL");
  EXPECT_EQ(take(tessel_stream_wait_event(stream, nullptr)).message,
            "tessel_stream_wait_event: event is NULL");
  EXPECT_EQ(take(tessel_event_query(nullptr, &ready)).message,
            "tessel_event_query: event is NULL");
  EXPECT_EQ(take(tessel_event_query(event, nullptr)).message,
            "tessel_event_query: out_ready is NULL");
  EXPECT_EQ(ready, -1);
  StatusResult result = take(tessel_event_synchronize(nullptr));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "tessel_event_synchronize: event is NULL");
  EXPECT_EQ(take(tessel_event_query(event, &ready)).code, TESSEL_OK);
  EXPECT_EQ(ready, 1);
  tessel_event_release(event);
  tessel_event_release(nullptr);
  tessel_stream_release(stream);
}

//===----------------------------------------------------------------------===//
// Asynchronous runs: checks and errors
//===----------------------------------------------------------------------===//

const int64_t kShape23[] = {2, 3};

tessel_tensor_view view23(float *data) {
  return {data, TESSEL_DTYPE_F32, 2, kShape23, 6 * sizeof(float)};
}

TEST(AsyncTest, ChecksArgumentsAsTheSynchronousRunDoes) {
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_ADD, model).ok());
  Session session;
  ASSERT_TRUE(Session::create(model, session).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(stream).ok());
  alignas(64) float a[6] = {}, b[6] = {}, y[6] = {};
  const int64_t shape24[] = {2, 4};

  struct Case {
    const char *what;
    std::vector<tessel_tensor_view> inputs, outputs;
  };
  std::vector<Case> cases = {
      {"wrong shape", {view23(a), view23(b)}, {view23(y)}},
      {"wrong dtype", {view23(a), view23(b)}, {view23(y)}},
      {"missing input", {view23(a)}, {view23(y)}},
      {"extra output", {view23(a), view23(b)}, {view23(y), view23(y)}},
      {"wrong size", {view23(a), view23(b)}, {view23(y)}},
      {"null data", {view23(a), view23(b)}, {view23(y)}},
      {"misaligned", {view23(a), view23(b)}, {view23(y)}},
  };
  cases[0].inputs[1].shape = shape24;
  cases[1].inputs[0].dtype = TESSEL_DTYPE_F64;
  cases[4].outputs[0].size_bytes = 20;
  cases[5].outputs[0].data = nullptr;
  cases[6].inputs[0].data = reinterpret_cast<char *>(a) + 2;
  for (Case &c : cases) {
    StatusResult sync =
        take(tessel_session_run(session.get(), c.inputs.data(), c.inputs.size(),
                                c.outputs.data(), c.outputs.size()));
    StatusResult async = take(
        tessel_run_async(session.get(), stream.get(), c.inputs.data(),
                         c.inputs.size(), c.outputs.data(), c.outputs.size()));
    EXPECT_EQ(sync.code, TESSEL_INVALID_ARGUMENT) << c.what;
    EXPECT_EQ(async.code, sync.code) << c.what;
    EXPECT_EQ(async.message, sync.message) << c.what;
  }
  tessel_tensor_view in[2] = {view23(a), view23(b)}, out[1] = {view23(y)};
  EXPECT_EQ(
      take(tessel_run_async(session.get(), stream.get(), nullptr, 2, out, 1))
          .message,
      "the input array is NULL");
  EXPECT_EQ(
      take(tessel_run_async(nullptr, stream.get(), in, 2, out, 1)).message,
      "tessel_run_async: session is NULL");
  EXPECT_EQ(
      take(tessel_run_async(session.get(), nullptr, in, 2, out, 1)).message,
      "tessel_run_async: stream is NULL");
  // Nothing was queued.
  Status status = stream.synchronize();
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(AsyncTest, SynchronizeReportsTheFirstRunErrorOnce) {
  Model failing, adding;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_FAILS, failing).ok());
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_ADD, adding).ok());
  Session fails, add;
  ASSERT_TRUE(Session::create(failing, fails).ok());
  ASSERT_TRUE(Session::create(adding, add).ok());
  Stream stream;
  ASSERT_TRUE(Stream::create(stream).ok());
  alignas(64) float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
  alignas(64) float y[6] = {}, scratch[6] = {};
  std::vector<tessel_tensor_view> in = {view23(a), view23(b)};

  ASSERT_TRUE(fails.runAsync(stream, in, {view23(scratch)}).ok());
  Status status = stream.synchronize();
  EXPECT_EQ(status.code(), TESSEL_RUNTIME_ERROR);
  EXPECT_THAT(status.message(),
              HasSubstr("entry 'add_entry' failed with code 7"));
  EXPECT_THAT(status.message(), ::testing::Not(HasSubstr("later")));
  status = stream.synchronize();
  EXPECT_TRUE(status.ok()) << "reported twice: " << status.message();

  // Failures do not stop the stream; the first is reported, with a count
  // of the others.
  ASSERT_TRUE(fails.runAsync(stream, in, {view23(scratch)}).ok());
  ASSERT_TRUE(fails.runAsync(stream, in, {view23(scratch)}).ok());
  ASSERT_TRUE(add.runAsync(stream, in, {view23(y)}).ok());
  ASSERT_TRUE(fails.runAsync(stream, in, {view23(scratch)}).ok());
  status = stream.synchronize();
  EXPECT_EQ(status.code(), TESSEL_RUNTIME_ERROR);
  EXPECT_THAT(status.message(),
              HasSubstr("failed with code 7 (and 2 later errors on this "
                        "stream)"));
  EXPECT_EQ(y[5], 66.0f);
  EXPECT_TRUE(stream.synchronize().ok());
}

TEST_F(BlockTest, ATimedOutRunIsReportedByItsStream) {
  // The fixture gives up after its deadline: the stream reports the code.
  hooks.reset(0, 50);
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  Stream stream = newStream();
  BlockRun run(0);
  queue(stream, run);
  Status status = stream.synchronize();
  EXPECT_EQ(status.code(), TESSEL_RUNTIME_ERROR);
  EXPECT_THAT(status.message(),
              HasSubstr("entry 'block_entry' failed with code 3"));
}

//===----------------------------------------------------------------------===//
// Pipelining requests: docs/runtime.md's pattern
//===----------------------------------------------------------------------===//

/// The buffers of one request in flight and the event recorded after its
/// run, as in docs/runtime.md, "Pipelining requests" (there in C).
struct PipelineSlot {
  BlockRun run{-1};
  tessel_event *done = nullptr;
};

/// docs/runtime.md's serving loop: the caller prepares request n in slot
/// n % slots.size() while the stream runs request n - 1, and consumes a
/// request's outputs when the event after its run has completed.
tessel_status
serveInSlots(tessel_session *session, tessel_stream *stream,
             std::vector<PipelineSlot> &slots, int count,
             const std::function<void(int, PipelineSlot &)> &prepare,
             const std::function<void(int, PipelineSlot &)> &consume) {
  int depth = int(slots.size());
  for (int n = 0; n < count + depth; ++n) {
    PipelineSlot &slot = slots[size_t(n % depth)];
    tessel_status status = tessel_event_synchronize(slot.done);
    if (status)
      return status;
    if (n >= depth)
      consume(n - depth, slot);
    if (n >= count)
      continue;
    prepare(n, slot);
    tessel_tensor_view in = slot.run.input(), out = slot.run.output();
    status = tessel_run_async(session, stream, &in, 1, &out, 1);
    if (status)
      return status;
    status = tessel_event_record(slot.done, stream);
    if (status)
      return status;
  }
  return tessel_stream_synchronize(stream);
}

TEST_F(BlockTest, ASlotRingPreparesTheNextRequestWhileTheStreamRuns) {
  constexpr int kCount = 6;
  Stream stream = newStream();
  std::vector<PipelineSlot> slots(2);
  for (PipelineSlot &slot : slots)
    ASSERT_EQ(tessel_event_create(&slot.done), nullptr);
  hooks.setGate(0);
  OpenGateAtExit opener{hooks};
  std::vector<std::vector<int>> logWhenPrepared;
  std::vector<int> consumed;
  std::vector<int32_t> seqs;
  Status status(serveInSlots(
      session.get(), stream.get(), slots, kCount,
      [&](int n, PipelineSlot &slot) {
        if (n == 1) { // request 0 is in the model, held by the gate
          EXPECT_TRUE(hooks.waitStarted(1, kTimeoutMs));
        }
        logWhenPrepared.push_back(hooks.log());
        if (n == 1)
          hooks.setGate(1);
        slot.run.tag = n;
      },
      [&](int n, PipelineSlot &slot) {
        consumed.push_back(n);
        seqs.push_back(slot.run.seq);
      }));
  for (PipelineSlot &slot : slots)
    tessel_event_release(slot.done);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_THAT(consumed, ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(seqs, ElementsAre(0, 2, 4, 6, 8, 10)); // one after another
  ASSERT_EQ(logWhenPrepared.size(), size_t(kCount));
  EXPECT_THAT(logWhenPrepared[0], ElementsAre());
  // Request 1 was prepared while request 0 ran (started, not ended) ...
  EXPECT_THAT(logWhenPrepared[1], ElementsAre(0));
  // ... and request n only once request n - 2, the slot's last, had ended.
  for (int n = 2; n < kCount; ++n)
    EXPECT_THAT(logWhenPrepared[size_t(n)],
                ::testing::Contains(2 * (n - 2) + 1))
        << "request " << n;
}

//===----------------------------------------------------------------------===//
// Stress
//===----------------------------------------------------------------------===//

/// 4 streams x 50 runs on one session of the add fixture, chained by events
/// every few runs, give exactly the sequential results.
TEST(StressTest, ManyRunsOnSeveralStreamsGiveTheSequentialResults) {
  constexpr int kStreams = 4, kRuns = 50;
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_ADD, model).ok());
  Session session;
  ASSERT_TRUE(Session::create(model, session, 2).ok());
  struct Buffers {
    alignas(64) float a[6];
    alignas(64) float b[6];
    alignas(64) float y[6];
  };
  std::vector<Buffers> buffers(kStreams * kRuns);
  std::vector<Stream> streams(kStreams);
  std::vector<Event> events(kStreams);
  for (int s = 0; s < kStreams; ++s) {
    ASSERT_TRUE(Stream::create(streams[s]).ok());
    ASSERT_TRUE(Event::create(events[s]).ok());
  }
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < kRuns; ++r) {
    for (int s = 0; s < kStreams; ++s) {
      Buffers &buf = buffers[s * kRuns + r];
      for (int i = 0; i < 6; ++i) {
        buf.a[i] = float(s * 1000 + r * 10 + i);
        buf.b[i] = float(i) * 0.5f;
        buf.y[i] = -1.0f;
      }
      Status status = session.runAsync(
          streams[s], {view23(buf.a), view23(buf.b)}, {view23(buf.y)});
      ASSERT_TRUE(status.ok()) << status.message();
      if (r % 7 == 3) { // the next stream waits for this one's work so far
        ASSERT_TRUE(events[s].record(streams[s]).ok());
        ASSERT_TRUE(events[s].waitOn(streams[(s + 1) % kStreams]).ok());
      }
    }
  }
  for (Stream &stream : streams) {
    Status status = stream.synchronize();
    ASSERT_TRUE(status.ok()) << status.message();
  }
  for (int s = 0; s < kStreams; ++s)
    for (int r = 0; r < kRuns; ++r)
      for (int i = 0; i < 6; ++i)
        ASSERT_EQ(buffers[s * kRuns + r].y[i],
                  float(s * 1000 + r * 10 + i) + float(i) * 0.5f)
            << "stream " << s << " run " << r << " element " << i;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

/// Streams created, filled and released from several threads at once.
TEST(StressTest, StreamsComeAndGoWhileOthersRun) {
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_ADD, model).ok());
  Session session;
  ASSERT_TRUE(Session::create(model, session).ok());
  std::vector<std::thread> threads;
  std::vector<int> wrong(3, 0);
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 30; ++round) {
        alignas(64) float a[5][6], b[6] = {1, 1, 1, 1, 1, 1}, y[5][6];
        Event event;
        {
          Stream stream;
          if (!Stream::create(stream).ok() || !Event::create(event).ok()) {
            ++wrong[t];
            return;
          }
          for (int k = 0; k < 5; ++k) {
            for (int i = 0; i < 6; ++i)
              a[k][i] = float(t * 100 + round + k + i);
            if (!session
                     .runAsync(stream, {view23(a[k]), view23(b)},
                               {view23(y[k])})
                     .ok())
              ++wrong[t];
          }
          if (!event.record(stream).ok())
            ++wrong[t];
        } // released with work pending: waits for it
        bool done = false;
        if (!event.query(done).ok() || !done)
          ++wrong[t];
        for (int k = 0; k < 5; ++k)
          for (int i = 0; i < 6; ++i)
            wrong[t] += y[k][i] != a[k][i] + 1.0f;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 3; ++t)
    EXPECT_EQ(wrong[t], 0) << t;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

} // namespace
