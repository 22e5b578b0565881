//===- DynamicBatchTest.cpp - Artifacts with a dynamic batch (ABI 1.4) ----===//
//
// The fixture is fixtures/dynamic_batch_model.c: N in 1..16 with entries
// for batch 1, 4 and 8, y = x + bias and a "batch" output that says which
// entry ran each row; its log says which entries ran, in order.
//
//===----------------------------------------------------------------------===//

#include "DynamicBatchUtil.h"
#include "TestUtil.h"

#include "tessel/runtime.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::test;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

class DynamicBatchTest : public ::testing::Test {
protected:
  void SetUp() override { load(TESSEL_FIXTURE_DYNAMIC); }
  void TearDown() override {
    tessel_session_release(session);
    tessel_model_release(model);
  }
  void load(const char *path, uint64_t cacheBytes = 0) {
    tessel_session_release(session);
    tessel_model_release(model);
    session = nullptr;
    model = nullptr;
    StatusResult result = take(tessel_model_load(path, &model));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    tessel_session_options options{sizeof(options), 1, cacheBytes};
    result = take(tessel_session_create(model, &options, &session));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    hooks.open(path);
  }
  StatusResult run(DynamicRows &rows) {
    std::vector<tessel_tensor_view> in = rows.inputs(), out = rows.outputs();
    return take(tessel_session_run(session, in.data(), in.size(), out.data(),
                                   out.size()));
  }

  tessel_model *model = nullptr;
  tessel_session *session = nullptr;
  DynamicHooks hooks;
};

TEST_F(DynamicBatchTest, TheModelSaysItsRange) {
  int64_t min = -1, max = -1;
  EXPECT_EQ(tessel_model_batch_range(model, &min, &max), 1);
  EXPECT_EQ(min, 1);
  EXPECT_EQ(max, 16);
  EXPECT_EQ(tessel_model_batch_range(model, nullptr, nullptr), 1);
  EXPECT_STREQ(tessel_model_descriptor(model)->batch_name, "N");
  // The descriptions are batch 1's.
  EXPECT_EQ(tessel_model_input(model, 0)->shape[0], 1);

  min = max = -1;
  EXPECT_EQ(tessel_model_batch_range(nullptr, &min, &max), 0);
  EXPECT_EQ(min, 0);
  EXPECT_EQ(max, 0);

  tessel::Model fixed;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_ADD, fixed).ok());
  min = max = -1;
  EXPECT_FALSE(fixed.batchRange(min, max));
  EXPECT_EQ(min, 0);
  EXPECT_EQ(max, 0);
}

TEST_F(DynamicBatchTest, RunsInChunksOfTheLargestEntryThatFits) {
  DynamicRows rows(13);
  StatusResult result = run(rows);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_THAT(hooks.log(), ElementsAre(8, 4, 1));
  EXPECT_EQ(hooks.rows(), 13);
  // Each chunk's pointers start at its first sample.
  EXPECT_THAT(rows.batch, ElementsAre(8, 8, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 1));
  EXPECT_TRUE(rows.correct());
}

TEST_F(DynamicBatchTest, EveryBatchInTheRangeRuns) {
  for (int64_t batch = 1; batch <= 16; ++batch) {
    // A new session has measured nothing: chunks of the largest entry
    // that fits (BatchPlanTest: the plans of measured times).
    load(TESSEL_FIXTURE_DYNAMIC);
    hooks.reset();
    DynamicRows rows(batch);
    StatusResult result = run(rows);
    ASSERT_EQ(result.code, TESSEL_OK) << batch << ": " << result.message;
    std::vector<int> expected;
    for (int64_t left = batch; left > 0;) {
      int chunk = left >= 8 ? 8 : left >= 4 ? 4 : 1;
      expected.push_back(chunk);
      left -= chunk;
    }
    EXPECT_THAT(hooks.log(), ElementsAreArray(expected)) << batch;
    EXPECT_TRUE(rows.correct()) << batch;
  }
}

TEST_F(DynamicBatchTest, APaddedChunkWritesOnlyItsSamples) {
  // Batch 1 measured (its first run does not count), batch 4 never run:
  // 3 samples try the batch-4 entry, padded with a row of zeros
  // (BatchPlan.AnEntryNeverRunIsTriedOnce).
  DynamicRows one(1);
  ASSERT_EQ(run(one).code, TESSEL_OK);
  ASSERT_EQ(run(one).code, TESSEL_OK);
  hooks.reset();
  DynamicRows rows(3);
  StatusResult result = run(rows);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_THAT(hooks.log(), ElementsAre(4));
  EXPECT_THAT(rows.batch, ElementsAre(4, 4, 4));
  EXPECT_TRUE(rows.correct());
}

TEST_F(DynamicBatchTest, TheWorkspaceFitsTheLargestEntry) {
  // The batch-8 entry needs 1 MiB (batch 1's: 64 bytes) and returns 5 when
  // its workspace is smaller.
  DynamicRows rows(8);
  StatusResult result = run(rows);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_THAT(hooks.log(), ElementsAre(8));
}

TEST_F(DynamicBatchTest, ABatchOutsideTheRangeIsRefused) {
  for (int64_t batch : {17, 0}) {
    DynamicRows rows(batch);
    StatusResult result = run(rows);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
    EXPECT_EQ(result.message, "input 'x': dimension 0 (batch 'N') is " +
                                  std::to_string(batch) +
                                  ", outside the artifact's range 1..16");
  }
  EXPECT_TRUE(hooks.log().empty());

  load(TESSEL_FIXTURE_DYNAMIC_MIN4);
  DynamicRows rows(2);
  StatusResult result = run(rows);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "input 'x': dimension 0 (batch 'N') is 2, "
                            "outside the artifact's range 4..16");
  DynamicRows four(4);
  EXPECT_EQ(run(four).code, TESSEL_OK);
}

TEST_F(DynamicBatchTest, EveryTensorNeedsTheSameBatch) {
  DynamicRows rows(5);
  rows.biasShape[0] = 3;
  rows.biasBytes = 3 * sizeof(float);
  StatusResult result = run(rows);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'bias': batch 3 differs from the batch 5 of input 'x'");

  DynamicRows outputs(5);
  outputs.yShape[0] = 3;
  outputs.yBytes = 9 * sizeof(float);
  result = run(outputs);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "output 'y': batch 3 differs from the inputs' batch 5");
  EXPECT_TRUE(hooks.log().empty());
}

TEST_F(DynamicBatchTest, OtherDimensionsAreChecked) {
  DynamicRows rows(5);
  rows.xShape[1] = 4;
  StatusResult result = run(rows);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'x': expected float32[N,3] (N in 1..16), got float32[5,4]");

  DynamicRows sized(5);
  sized.xBytes = 12;
  result = run(sized);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'x': size_bytes is 12, but float32[5,3] holds 60");
  EXPECT_TRUE(hooks.log().empty());
}

TEST_F(DynamicBatchTest, AFailingChunkNamesItsSamples) {
  DynamicRows rows(13);
  rows.x[3 * 9] = -7; // sample 9, in the batch-4 chunk
  StatusResult result = run(rows);
  EXPECT_EQ(result.code, TESSEL_RUNTIME_ERROR);
  EXPECT_THAT(result.message,
              HasSubstr("': the entry for batch 4 failed with code 7 on "
                        "samples 8 to 11 of 13"));
}

TEST_F(DynamicBatchTest, AsyncRunsTakeTheirOwnBatch) {
  tessel_stream *stream = nullptr;
  ASSERT_EQ(take(tessel_stream_create(nullptr, &stream)).code, TESSEL_OK);
  DynamicRows big(13), small(3);
  for (DynamicRows *rows : {&big, &small}) {
    std::vector<tessel_tensor_view> in = rows->inputs();
    std::vector<tessel_tensor_view> out = rows->outputs();
    StatusResult result = take(tessel_run_async(
        session, stream, in.data(), in.size(), out.data(), out.size()));
    EXPECT_EQ(result.code, TESSEL_OK) << result.message;
  }
  DynamicRows wrong(20);
  std::vector<tessel_tensor_view> in = wrong.inputs();
  std::vector<tessel_tensor_view> out = wrong.outputs();
  StatusResult refused = take(tessel_run_async(
      session, stream, in.data(), in.size(), out.data(), out.size()));
  EXPECT_EQ(refused.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(refused.message, HasSubstr("is 20, outside"));
  EXPECT_EQ(take(tessel_stream_synchronize(stream)).code, TESSEL_OK);
  tessel_stream_release(stream);
  EXPECT_TRUE(big.correct());
  EXPECT_TRUE(small.correct());
  EXPECT_THAT(small.batch, ElementsAre(1, 1, 1));
  EXPECT_EQ(hooks.rows(), 16);
}

TEST_F(DynamicBatchTest, TheResultCacheKeysOnTheBatch) {
  load(TESSEL_FIXTURE_DYNAMIC, /*cacheBytes=*/1 << 20);
  DynamicRows five(5);
  ASSERT_EQ(run(five).code, TESSEL_OK);
  DynamicRows again(5);
  ASSERT_EQ(run(again).code, TESSEL_OK);
  EXPECT_TRUE(again.correct());
  EXPECT_EQ(hooks.rows(), 5); // a hit ran nothing
  // The same first five samples and one more: another run.
  DynamicRows six(6);
  ASSERT_EQ(run(six).code, TESSEL_OK);
  EXPECT_TRUE(six.correct());
  EXPECT_EQ(hooks.rows(), 11);
  tessel_cache_stats stats{};
  stats.struct_size = sizeof(stats);
  ASSERT_EQ(take(tessel_session_get_cache_stats(session, &stats)).code,
            TESSEL_OK);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
}

TEST_F(DynamicBatchTest, AnOlderDescriptorIsStatic) {
  // Cut to ABI 1.3's size, the same descriptor has no dynamic batch: it
  // runs its batch-1 entry at batch 1 only.
  load(TESSEL_FIXTURE_DYNAMIC_ABI1_3);
  EXPECT_EQ(tessel_model_batch_range(model, nullptr, nullptr), 0);
  DynamicRows two(2);
  StatusResult result = run(two);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "input 'x': expected float32[1,3], got "
                            "float32[2,3]");
  DynamicRows one(1);
  ASSERT_EQ(run(one).code, TESSEL_OK);
  EXPECT_THAT(hooks.log(), ElementsAre(1));
}

TEST(DynamicBatchLoad, MalformedDescriptorsAreRefused) {
  struct Case {
    const char *path;
    const char *message;
  };
  const Case cases[] = {
      {TESSEL_FIXTURE_DYNAMIC_BOGUS1,
       "batch entry 2 (batch 4) does not follow batch 8: entries go by "
       "ascending batch"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS2,
       "batch entry 0 (batch 4) is the first, which must have batch 1"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS3,
       "batch entry 1 (batch 4) has a NULL entry function"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS4,
       "the batch range 0..16 is not 1 <= batch_min <= batch_max"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS5,
       "the batch range 8..4 is not 1 <= batch_min <= batch_max"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS6,
       "input 'x' is float32[2,3], but a dynamic batch needs dimension 0 of "
       "every input and output, of extent 1"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS7,
       "input 'bias' is float32[], but a dynamic batch needs dimension 0"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS8, "0 batch entries (1 to 65536 needed"},
      {TESSEL_FIXTURE_DYNAMIC_BOGUS9, "the dynamic batch 1..16 has no name"},
  };
  for (const Case &c : cases) {
    tessel_model *model = nullptr;
    StatusResult result = take(tessel_model_load(c.path, &model));
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << c.path;
    EXPECT_THAT(result.message, HasSubstr("has an invalid descriptor: " +
                                          std::string(c.message)))
        << c.path;
    EXPECT_EQ(model, nullptr);
    tessel_model_release(model);
  }
}

} // namespace
