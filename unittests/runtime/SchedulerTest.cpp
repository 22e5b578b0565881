//===- SchedulerTest.cpp - The batching scheduler -------------------------===//
//
// The fixtures are fixtures/batch_model.c built for batch 1, 2, 4 and 8:
// y = 2x + 1 and a "batch" output that says which model ran each row. The
// batch-1 fixture has a gate that holds runs inside the entry, so a test can
// queue requests behind a running batch and see in what order they run.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tessel/scheduler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <dlfcn.h>
#include <memory>
#include <random>
#include <thread>

using tessel::test::take;

namespace {

/// One sample: x float32[1,3] in, y float32[1,3] and batch int32[1,1] out.
struct Sample {
  float x[3];
  float y[3] = {-7, -7, -7};
  int32_t batch[1] = {-7};
  int64_t xShape[2] = {1, 3};
  int64_t batchShape[2] = {1, 1};

  explicit Sample(float value) : x{value, value + 0.5f, value + 0.25f} {}
  std::vector<tessel_tensor_view> inputs() {
    return {{x, TESSEL_DTYPE_F32, 2, xShape, sizeof(x)}};
  }
  std::vector<tessel_tensor_view> outputs() {
    return {{y, TESSEL_DTYPE_F32, 2, xShape, sizeof(y)},
            {batch, TESSEL_DTYPE_I32, 2, batchShape, sizeof(batch)}};
  }
  bool correct() const {
    for (int c = 0; c < 3; ++c)
      if (y[c] != 2 * x[c] + 1)
        return false;
    return true;
  }
};

/// The gate and log of the batch-1 fixture, through its exported hooks.
struct Gate {
  void *handle = nullptr;
  void (*setGate)(int) = nullptr;
  int (*waitRunning)(int, int) = nullptr;
  int (*log)(float *, int) = nullptr;
  void (*reset)() = nullptr;

  Gate() {
    handle = dlopen(TESSEL_FIXTURE_BATCH1, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    setGate = reinterpret_cast<void (*)(int)>(
        dlsym(handle, "batch_fixture_set_gate"));
    waitRunning = reinterpret_cast<int (*)(int, int)>(
        dlsym(handle, "batch_fixture_wait_running"));
    log = reinterpret_cast<int (*)(float *, int)>(
        dlsym(handle, "batch_fixture_log"));
    reset = reinterpret_cast<void (*)()>(dlsym(handle, "batch_fixture_reset"));
    reset();
  }
  ~Gate() {
    if (handle) {
      reset();
      dlclose(handle);
    }
  }
  std::vector<float> rows() {
    std::vector<float> out(4096);
    out.resize(size_t(log(out.data(), int(out.size()))));
    return out;
  }
};

class SchedulerTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *path : {TESSEL_FIXTURE_BATCH1, TESSEL_FIXTURE_BATCH2,
                             TESSEL_FIXTURE_BATCH4, TESSEL_FIXTURE_BATCH8}) {
      models.emplace_back();
      ASSERT_TRUE(tessel::Model::load(path, models.back()).ok()) << path;
    }
  }
  const tessel::Model &batch(int size) const {
    return models[size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
  }
  tessel::Status create(std::vector<const tessel::Model *> which,
                        tessel::Scheduler::Options options,
                        tessel::Scheduler &out) {
    return tessel::Scheduler::create(which, options, out);
  }
  tessel_scheduler_stats stats(const tessel::Scheduler &scheduler) {
    tessel_scheduler_stats out{};
    EXPECT_TRUE(scheduler.stats(out).ok());
    return out;
  }

  std::vector<tessel::Model> models;
};

TEST_F(SchedulerTest, AFullBatchRunsOnTheLargestModel) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 10'000'000; // only a full batch may start
  ASSERT_TRUE(
      create({&batch(8), &batch(1), &batch(4)}, options, scheduler).ok());
  ASSERT_EQ(scheduler.numModels(), 3u);
  EXPECT_EQ(scheduler.batchSize(0), 1);
  EXPECT_EQ(scheduler.batchSize(1), 4);
  EXPECT_EQ(scheduler.batchSize(2), 8);

  std::vector<std::unique_ptr<Sample>> samples;
  std::vector<tessel::Request> requests(8);
  for (int i = 0; i < 8; ++i) {
    samples.push_back(std::make_unique<Sample>(float(i)));
    ASSERT_TRUE(
        scheduler
            .submit(samples[i]->inputs(), samples[i]->outputs(), requests[i])
            .ok());
  }
  for (int i = 0; i < 8; ++i) {
    tessel::Status status = requests[i].wait();
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_TRUE(samples[i]->correct()) << "request " << i;
    EXPECT_EQ(samples[i]->batch[0], 8) << "request " << i;
  }
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.submitted, 8u);
  EXPECT_EQ(s.batches, 1u);
  EXPECT_EQ(s.model_runs, 1u);
  EXPECT_EQ(s.padded_rows, 0u);
}

TEST_F(SchedulerTest, ThePartialBatchAfterTheWindowIsSplitAcrossModels) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 200'000; // 7 requests are queued well within it
  ASSERT_TRUE(
      create({&batch(1), &batch(4), &batch(8)}, options, scheduler).ok());
  std::vector<std::unique_ptr<Sample>> samples;
  std::vector<tessel::Request> requests(7);
  for (int i = 0; i < 7; ++i) {
    samples.push_back(std::make_unique<Sample>(float(10 + i)));
    ASSERT_TRUE(
        scheduler
            .submit(samples[i]->inputs(), samples[i]->outputs(), requests[i])
            .ok());
  }
  // 7 = 4 + 1 + 1 + 1, in submission order.
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(requests[i].wait().ok());
    EXPECT_TRUE(samples[i]->correct()) << "request " << i;
    EXPECT_EQ(samples[i]->batch[0], i < 4 ? 4 : 1) << "request " << i;
  }
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.batches, 1u);
  EXPECT_EQ(s.model_runs, 4u);
  EXPECT_EQ(s.padded_rows, 0u);
}

TEST_F(SchedulerTest, ABatchBelowTheSmallestModelIsPaddedWithZeros) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 20'000;
  ASSERT_TRUE(create({&batch(4)}, options, scheduler).ok());
  Sample a(3), b(5);
  tessel::Request ra, rb;
  ASSERT_TRUE(scheduler.submit(a.inputs(), a.outputs(), ra).ok());
  ASSERT_TRUE(scheduler.submit(b.inputs(), b.outputs(), rb).ok());
  ASSERT_TRUE(ra.wait().ok());
  ASSERT_TRUE(rb.wait().ok());
  EXPECT_TRUE(a.correct());
  EXPECT_TRUE(b.correct());
  EXPECT_EQ(a.batch[0], 4);
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.model_runs, 1u);
  EXPECT_EQ(s.padded_rows, 2u);
}

// With a latency target the window is the scheduler's: a lone request
// waits at most 90% of the target (not the 100 s window) before anything is
// timed, and once a run is timed and requests come sparsely (the last two
// 1 s apart or more), a lone request's batch forms at once.
TEST_F(SchedulerTest, ALatencyTargetSetsTheWindow) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 100'000'000;
  options.target_p99_us = 1'000'000;
  ASSERT_TRUE(create({&batch(1), &batch(4)}, options, scheduler).ok());
  Sample a(1), b(2);
  tessel::Request ra, rb;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(scheduler.submit(a.inputs(), a.outputs(), ra).ok());
  ASSERT_TRUE(ra.wait().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(a.correct());
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  start = std::chrono::steady_clock::now();
  ASSERT_TRUE(scheduler.submit(b.inputs(), b.outputs(), rb).ok());
  ASSERT_TRUE(rb.wait().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(450));
  EXPECT_TRUE(b.correct());
  EXPECT_EQ(stats(scheduler).batches, 2u);
}

// A request that completes past the target counts as a miss: with a
// target of 1 us, every one does.
TEST_F(SchedulerTest, RequestsPastTheTargetCountAsMisses) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.target_p99_us = 1;
  ASSERT_TRUE(create({&batch(1), &batch(2)}, options, scheduler).ok());
  Sample a(1), b(2);
  tessel::Request ra, rb;
  ASSERT_TRUE(scheduler.submit(a.inputs(), a.outputs(), ra).ok());
  ASSERT_TRUE(scheduler.submit(b.inputs(), b.outputs(), rb).ok());
  ASSERT_TRUE(ra.wait().ok());
  ASSERT_TRUE(rb.wait().ok());
  EXPECT_TRUE(a.correct());
  EXPECT_TRUE(b.correct());
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.completed, 2u);
  EXPECT_EQ(s.target_misses, 2u);
  // Without a target, none.
  tessel::Scheduler plain;
  ASSERT_TRUE(create({&batch(1)}, tessel::Scheduler::Options(), plain).ok());
  Sample c(3);
  tessel::Request rc;
  ASSERT_TRUE(plain.submit(c.inputs(), c.outputs(), rc).ok());
  ASSERT_TRUE(rc.wait().ok());
  EXPECT_EQ(stats(plain).target_misses, 0u);
}

TEST_F(SchedulerTest, HigherPriorityRunsFirstThenSubmissionOrder) {
  Gate gate;
  ASSERT_NE(gate.handle, nullptr) << dlerror();
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = -1; // batch whatever is queued at once
  ASSERT_TRUE(create({&batch(1)}, options, scheduler).ok());

  gate.setGate(0);
  Sample first(100);
  tessel::Request firstRequest;
  ASSERT_TRUE(
      scheduler.submit(first.inputs(), first.outputs(), firstRequest).ok());
  ASSERT_EQ(gate.waitRunning(1, 5000), 1);
  // Queued behind the running batch: (value, priority).
  const std::pair<float, int32_t> queued[] = {{1, 0}, {2, 5},  {3, 0},
                                              {4, 5}, {5, -1}, {6, 9}};
  std::vector<std::unique_ptr<Sample>> samples;
  std::vector<tessel::Request> requests(std::size(queued));
  for (size_t i = 0; i < std::size(queued); ++i) {
    samples.push_back(std::make_unique<Sample>(queued[i].first));
    ASSERT_TRUE(scheduler
                    .submit(samples[i]->inputs(), samples[i]->outputs(),
                            requests[i], queued[i].second)
                    .ok());
  }
  gate.setGate(1);
  ASSERT_TRUE(firstRequest.wait().ok());
  for (size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(requests[i].wait().ok());
    EXPECT_TRUE(samples[i]->correct());
  }
  EXPECT_EQ(gate.rows(), (std::vector<float>{100, 6, 2, 4, 1, 3, 5}));
}

TEST_F(SchedulerTest, ARequestPastItsDeadlineFailsWhileQueued) {
  Gate gate;
  ASSERT_NE(gate.handle, nullptr) << dlerror();
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = -1;
  ASSERT_TRUE(create({&batch(1)}, options, scheduler).ok());

  gate.setGate(0);
  Sample running(1), late(2), patient(3);
  tessel::Request runningRequest, lateRequest, patientRequest;
  ASSERT_TRUE(
      scheduler.submit(running.inputs(), running.outputs(), runningRequest)
          .ok());
  ASSERT_EQ(gate.waitRunning(1, 5000), 1);
  ASSERT_TRUE(scheduler
                  .submit(late.inputs(), late.outputs(), lateRequest,
                          /*priority=*/0, /*deadlineUs=*/20'000)
                  .ok());
  ASSERT_TRUE(scheduler
                  .submit(patient.inputs(), patient.outputs(), patientRequest,
                          /*priority=*/0, /*deadlineUs=*/60'000'000)
                  .ok());
  // The gate is still closed: the late request expires in the queue.
  tessel::Status status = lateRequest.wait();
  EXPECT_EQ(status.code(), TESSEL_DEADLINE_EXCEEDED);
  EXPECT_NE(std::string(status.message()).find("deadline passed"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(late.y[0], -7) << "an expired request's outputs are untouched";
  bool done = true;
  ASSERT_TRUE(patientRequest.query(done).ok());
  EXPECT_FALSE(done);

  gate.setGate(1);
  EXPECT_TRUE(runningRequest.wait().ok());
  EXPECT_TRUE(patientRequest.wait().ok());
  EXPECT_TRUE(patient.correct());
  EXPECT_EQ(gate.rows(), (std::vector<float>{1, 3}));
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.deadline_exceeded, 1u);
  EXPECT_EQ(s.completed, 2u);
}

TEST_F(SchedulerTest, AFullQueueRefusesSubmissions) {
  Gate gate;
  ASSERT_NE(gate.handle, nullptr) << dlerror();
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = -1;
  options.queue_limit = 2;
  ASSERT_TRUE(create({&batch(1)}, options, scheduler).ok());

  gate.setGate(0);
  Sample samples[4] = {Sample(1), Sample(2), Sample(3), Sample(4)};
  tessel::Request requests[4];
  ASSERT_TRUE(
      scheduler.submit(samples[0].inputs(), samples[0].outputs(), requests[0])
          .ok());
  ASSERT_EQ(gate.waitRunning(1, 5000), 1); // no longer queued
  for (int i = 1; i < 3; ++i)
    ASSERT_TRUE(
        scheduler.submit(samples[i].inputs(), samples[i].outputs(), requests[i])
            .ok());
  tessel::Status refused =
      scheduler.submit(samples[3].inputs(), samples[3].outputs(), requests[3]);
  EXPECT_EQ(refused.code(), TESSEL_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::string(refused.message()).find("queue_limit"),
            std::string::npos)
      << refused.message();
  EXPECT_FALSE(requests[3].valid());
  gate.setGate(1);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(requests[i].wait().ok());
  EXPECT_EQ(stats(scheduler).rejected, 1u);
}

TEST_F(SchedulerTest, ARunErrorFailsEveryRequestOfItsBatch) {
  tessel::Model failing;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_BATCH2_FAILS, failing).ok());
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 10'000'000;
  ASSERT_TRUE(create({&failing}, options, scheduler).ok());
  Sample good(1), bad(-1);
  tessel::Request goodRequest, badRequest;
  ASSERT_TRUE(
      scheduler.submit(good.inputs(), good.outputs(), goodRequest).ok());
  ASSERT_TRUE(scheduler.submit(bad.inputs(), bad.outputs(), badRequest).ok());
  for (tessel::Request *request : {&goodRequest, &badRequest}) {
    tessel::Status status = request->wait();
    EXPECT_EQ(status.code(), TESSEL_RUNTIME_ERROR);
    EXPECT_NE(std::string(status.message()).find("7"), std::string::npos)
        << status.message();
    // Waiting again gives the same outcome.
    EXPECT_EQ(request->wait().code(), TESSEL_RUNTIME_ERROR);
  }
}

TEST_F(SchedulerTest, ReleaseRunsWhatIsQueuedWithoutWaitingTheWindow) {
  std::vector<std::unique_ptr<Sample>> samples;
  std::vector<tessel::Request> requests(5);
  auto start = std::chrono::steady_clock::now();
  {
    tessel::Scheduler scheduler;
    tessel::Scheduler::Options options;
    options.window_us = 60'000'000;
    ASSERT_TRUE(create({&batch(2), &batch(4)}, options, scheduler).ok());
    for (int i = 0; i < 5; ++i) {
      samples.push_back(std::make_unique<Sample>(float(i)));
      ASSERT_TRUE(
          scheduler
              .submit(samples[i]->inputs(), samples[i]->outputs(), requests[i])
              .ok());
    }
  } // released here
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  for (int i = 0; i < 5; ++i) {
    bool done = false;
    ASSERT_TRUE(requests[i].query(done).ok());
    EXPECT_TRUE(done) << "request " << i;
    EXPECT_TRUE(requests[i].wait().ok());
    EXPECT_TRUE(samples[i]->correct());
  }
  // 5 = 4 + 2 (one padded row).
  EXPECT_EQ(samples[4]->batch[0], 2);
}

TEST_F(SchedulerTest, ConcurrentClientsGetExactlyTheirOwnResults) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 500;
  options.max_concurrent_batches = 2;
  options.num_threads = 1;
  ASSERT_TRUE(
      create({&batch(1), &batch(4), &batch(8)}, options, scheduler).ok());
  constexpr int kClients = 4, kRequests = 50;
  std::vector<std::thread> clients;
  std::vector<int> wrong(kClients, 0);
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&, c] {
      std::mt19937 random(c);
      for (int r = 0; r < kRequests; ++r) {
        Sample sample(float(c * 1000 + r));
        tessel::Request request;
        tessel::Status status = scheduler.submit(
            sample.inputs(), sample.outputs(), request, int32_t(random() % 3));
        if (!status.ok() || !request.wait().ok() || !sample.correct())
          ++wrong[c];
      }
    });
  for (std::thread &client : clients)
    client.join();
  for (int c = 0; c < kClients; ++c)
    EXPECT_EQ(wrong[c], 0) << "client " << c;
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.submitted, uint64_t(kClients * kRequests));
  EXPECT_EQ(s.completed, uint64_t(kClients * kRequests));
}

TEST_F(SchedulerTest, HugeDeadlinesAndWindowsNeitherOverflowNorStall) {
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = INT64_MAX; // only full batches
  options.max_batch = 8;         // more than the queue can hold:
  options.queue_limit = 2;       // a queue at its limit is full
  ASSERT_TRUE(create({&batch(1), &batch(4)}, options, scheduler).ok());
  Sample a(1), b(2);
  tessel::Request ra, rb;
  ASSERT_TRUE(scheduler.submit(a.inputs(), a.outputs(), ra, 0, INT64_MAX).ok());
  ASSERT_TRUE(scheduler.submit(b.inputs(), b.outputs(), rb, 0, INT64_MAX).ok());
  // Poll rather than wait: a stalled batch would otherwise hang the test.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool done = false;
  while (!done && std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(rb.query(done).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(done) << "a full queue did not form a batch";
  EXPECT_TRUE(ra.wait().ok()) << "INT64_MAX must mean no deadline";
  EXPECT_TRUE(rb.wait().ok());
  EXPECT_TRUE(a.correct());
  EXPECT_TRUE(b.correct());
  EXPECT_EQ(stats(scheduler).deadline_exceeded, 0u);
}

TEST_F(SchedulerTest, CreateRefusesModelsThatCannotBatchTogether) {
  tessel_scheduler *scheduler = nullptr;
  tessel_model *b4 = batch(4).get();
  EXPECT_EQ(take(tessel_scheduler_create(&b4, 1, nullptr, nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_scheduler_create(nullptr, 0, nullptr, &scheduler)).code,
            TESSEL_INVALID_ARGUMENT);

  tessel_model *twice[] = {b4, b4};
  auto result = take(tessel_scheduler_create(twice, 2, nullptr, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "tessel_scheduler_create: two models have batch 4");

  tessel::Model wide;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_BATCH2_WIDE, wide).ok());
  tessel_model *mismatched[] = {b4, wide.get()};
  result = take(tessel_scheduler_create(mismatched, 2, nullptr, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "tessel_scheduler_create: the models of batch 2 and 4 differ: "
            "input 'x' float32[2,4] against 'x' float32[4,3]");

  tessel::Model add; // inputs [2,3] but output [2,3] named differently
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_ADD, add).ok());
  tessel_model *foreign[] = {b4, add.get()};
  result = take(tessel_scheduler_create(foreign, 2, nullptr, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("differ"), std::string::npos) << result.message;

  tessel_scheduler_options options{};
  options.struct_size = sizeof(options);
  options.queue_limit = -1;
  result = take(tessel_scheduler_create(&b4, 1, &options, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("must not be negative"), std::string::npos);
  EXPECT_EQ(scheduler, nullptr);
  options.queue_limit = 0;
  options.target_p99_us = -5;
  result = take(tessel_scheduler_create(&b4, 1, &options, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_NE(result.message.find("target_p99_us must not be negative"),
            std::string::npos)
      << result.message;
  EXPECT_EQ(scheduler, nullptr);
}

TEST_F(SchedulerTest, SubmitChecksEveryViewAndOption) {
  tessel::Scheduler scheduler;
  ASSERT_TRUE(create({&batch(4)}, {}, scheduler).ok());
  Sample sample(1);
  tessel_request *request = nullptr;
  auto submit = [&](std::vector<tessel_tensor_view> inputs,
                    std::vector<tessel_tensor_view> outputs,
                    const tessel_request_options *options = nullptr) {
    return take(tessel_scheduler_submit(scheduler.get(), inputs.data(),
                                        inputs.size(), outputs.data(),
                                        outputs.size(), options, &request));
  };
  auto inputs = sample.inputs();
  auto outputs = sample.outputs();

  auto result = submit({}, outputs);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "tessel_scheduler_submit: expected 1 inputs, got 0");

  auto wrongDtype = inputs;
  wrongDtype[0].dtype = TESSEL_DTYPE_I32;
  result = submit(wrongDtype, outputs);
  EXPECT_EQ(result.message, "tessel_scheduler_submit: input 'x' has dtype "
                            "int32, expected float32");

  int64_t batchedShape[2] = {4, 3};
  auto batched = inputs;
  batched[0].shape = batchedShape;
  result = submit(batched, outputs);
  EXPECT_EQ(result.message, "tessel_scheduler_submit: input 'x' has shape "
                            "[4,3], expected [1,3] (one sample)");

  auto wrongSize = outputs;
  wrongSize[1].size_bytes = 8;
  result = submit(inputs, wrongSize);
  EXPECT_EQ(result.message, "tessel_scheduler_submit: output 'batch' has 8 "
                            "bytes, expected 4");

  auto noData = outputs;
  noData[0].data = nullptr;
  result = submit(inputs, noData);
  EXPECT_EQ(result.message,
            "tessel_scheduler_submit: output 'y' has NULL data");

  tessel_request_options options{sizeof(options), 0, -5};
  result = submit(inputs, outputs, &options);
  EXPECT_EQ(result.message, "tessel_scheduler_submit: deadline_us is negative");

  EXPECT_EQ(take(tessel_scheduler_submit(nullptr, inputs.data(), 1,
                                         outputs.data(), 2, nullptr, &request))
                .code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_scheduler_submit(scheduler.get(), inputs.data(), 1,
                                         outputs.data(), 2, nullptr, nullptr))
                .code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(request, nullptr);
  EXPECT_EQ(take(tessel_request_wait(nullptr)).code, TESSEL_INVALID_ARGUMENT);
  int32_t done = 0;
  EXPECT_EQ(take(tessel_request_query(nullptr, &done)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_scheduler_get_stats(nullptr, nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  tessel_request_release(nullptr);
  tessel_scheduler_release(nullptr);
  EXPECT_EQ(tessel_scheduler_num_models(nullptr), 0u);
  EXPECT_EQ(tessel_scheduler_batch_size(scheduler.get(), 5), 0);
}

} // namespace
