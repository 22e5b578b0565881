//===- DynamicBatchSchedulerTest.cpp - A scheduler over a dynamic batch ---===//
//
// One artifact with a dynamic batch (fixtures/dynamic_batch_model.c, N in
// 1..16 or 4..16, entries for batch 1, 4 and 8) serves a scheduler alone:
// a batch of R requests is one run of exactly R rows (batch_min rows when
// fewer), which the runtime splits over the entries.
//
//===----------------------------------------------------------------------===//

#include "DynamicBatchUtil.h"
#include "TestUtil.h"

#include "tessel/scheduler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

using namespace tessel::test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// Submits `count` one-sample requests, sample i with x[0] = i, and waits
/// for them; returns the samples' tensors.
std::vector<std::unique_ptr<DynamicRows>> serve(tessel::Scheduler &scheduler,
                                                int count) {
  std::vector<std::unique_ptr<DynamicRows>> samples;
  std::vector<tessel::Request> requests(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    samples.push_back(std::make_unique<DynamicRows>(1));
    samples.back()->x[0] = float(i);
    tessel::Status status = scheduler.submit(
        samples.back()->inputs(), samples.back()->outputs(), requests[i]);
    EXPECT_TRUE(status.ok()) << status.message();
  }
  for (tessel::Request &request : requests) {
    tessel::Status status = request.wait();
    EXPECT_TRUE(status.ok()) << status.message();
  }
  return samples;
}

tessel_scheduler_stats stats(const tessel::Scheduler &scheduler) {
  tessel_scheduler_stats out{};
  EXPECT_TRUE(scheduler.stats(out).ok());
  return out;
}

TEST(DynamicBatchScheduler, ABatchIsOneRunOfExactlyItsRows) {
  tessel::Model model;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_DYNAMIC, model).ok());
  DynamicHooks hooks;
  hooks.open(TESSEL_FIXTURE_DYNAMIC);
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.max_batch = 13;
  options.window_us = 10'000'000; // only a full batch may start
  ASSERT_TRUE(tessel::Scheduler::create({&model}, options, scheduler).ok());
  ASSERT_EQ(scheduler.numModels(), 1u);
  EXPECT_EQ(scheduler.batchSize(0), 16); // batch_max

  auto samples = serve(scheduler, 13);
  // 13 = 8 + 4 + 1, in submission order.
  for (int i = 0; i < 13; ++i) {
    EXPECT_TRUE(samples[i]->correct()) << "request " << i;
    EXPECT_EQ(samples[i]->batch[0], i < 8 ? 8 : i < 12 ? 4 : 1) << i;
  }
  EXPECT_THAT(hooks.log(), ElementsAre(8, 4, 1));
  EXPECT_EQ(hooks.rows(), 13);
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.batches, 1u);
  EXPECT_EQ(s.model_runs, 1u);
  EXPECT_EQ(s.padded_rows, 0u);
}

TEST(DynamicBatchScheduler, MaxBatchDefaultsToBatchMax) {
  tessel::Model model;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_DYNAMIC, model).ok());
  DynamicHooks hooks;
  hooks.open(TESSEL_FIXTURE_DYNAMIC);
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.window_us = 10'000'000; // only a full batch may start
  ASSERT_TRUE(tessel::Scheduler::create({&model}, options, scheduler).ok());
  auto samples = serve(scheduler, 16);
  for (auto &sample : samples)
    EXPECT_TRUE(sample->correct());
  EXPECT_THAT(hooks.log(), ElementsAre(8, 8));
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.batches, 1u);
  EXPECT_EQ(s.padded_rows, 0u);
}

TEST(DynamicBatchScheduler, FewerRowsThanBatchMinArePadded) {
  tessel::Model model;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_DYNAMIC_MIN4, model).ok());
  DynamicHooks hooks;
  hooks.open(TESSEL_FIXTURE_DYNAMIC_MIN4);
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.max_batch = 2;
  options.window_us = 10'000'000;
  ASSERT_TRUE(tessel::Scheduler::create({&model}, options, scheduler).ok());
  auto samples = serve(scheduler, 2);
  for (auto &sample : samples) {
    EXPECT_TRUE(sample->correct());
    EXPECT_EQ(sample->batch[0], 4);
  }
  EXPECT_THAT(hooks.log(), ElementsAre(4));
  tessel_scheduler_stats s = stats(scheduler);
  EXPECT_EQ(s.model_runs, 1u);
  EXPECT_EQ(s.padded_rows, 2u);
}

TEST(DynamicBatchScheduler, ServesUnderALatencyTarget) {
  tessel::Model model;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_DYNAMIC, model).ok());
  tessel::Scheduler scheduler;
  tessel::Scheduler::Options options;
  options.target_p99_us = 200'000;
  ASSERT_TRUE(tessel::Scheduler::create({&model}, options, scheduler).ok());
  for (int round = 0; round < 3; ++round)
    for (auto &sample : serve(scheduler, 5))
      EXPECT_TRUE(sample->correct());
  EXPECT_EQ(stats(scheduler).completed, 15u);
}

TEST(DynamicBatchScheduler, ADynamicArtifactServesAlone) {
  tessel::Model dynamic, fixed;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_DYNAMIC, dynamic).ok());
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_BATCH1, fixed).ok());
  for (auto models : {std::vector<const tessel::Model *>{&dynamic, &fixed},
                      std::vector<const tessel::Model *>{&fixed, &dynamic}}) {
    tessel::Scheduler scheduler;
    tessel::Status status = tessel::Scheduler::create(
        models, tessel::Scheduler::Options(), scheduler);
    EXPECT_EQ(status.code(), TESSEL_INVALID_ARGUMENT);
    EXPECT_THAT(status.message(),
                HasSubstr("('dynamic') has a dynamic batch (N=1..16), which "
                          "runs every batch size itself: give it alone, "
                          "without other models"));
  }
}

} // namespace
