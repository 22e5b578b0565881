//===- SessionTest.cpp - Sessions, runs and runtime-allocated tensors -----===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

using namespace tessel;
using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

const int64_t kShape23[] = {2, 3};

/// A model and a session over the add fixture (y = a + b, float32[2,3]),
/// with caller-owned buffers.
class AddSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    StatusResult result = take(tessel_model_load(TESSEL_FIXTURE_ADD, &model));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    result = take(tessel_session_create(model, nullptr, &session));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    for (int i = 0; i < 6; ++i) {
      a[i] = float(i);
      b[i] = 10.0f * float(i);
    }
    inputs[0] = view(a);
    inputs[1] = view(b);
    outputs[0] = view(y);
  }
  void TearDown() override {
    tessel_session_release(session);
    tessel_model_release(model);
  }

  static tessel_tensor_view view(float *data) {
    return tessel_tensor_view{data, TESSEL_DTYPE_F32, 2, kShape23,
                              6 * sizeof(float)};
  }
  StatusResult run() {
    return take(tessel_session_run(session, inputs, 2, outputs, 1));
  }

  tessel_model *model = nullptr;
  tessel_session *session = nullptr;
  alignas(64) float a[6];
  alignas(64) float b[6];
  alignas(64) float y[6] = {};
  tessel_tensor_view inputs[2];
  tessel_tensor_view outputs[1];
};

TEST_F(AddSessionTest, ComputesTheSum) {
  StatusResult result = run();
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y[i], 11.0f * float(i)) << i;
  // A session runs any number of times.
  a[5] = 100.0f;
  ASSERT_EQ(run().code, TESSEL_OK);
  EXPECT_EQ(y[5], 150.0f);
}

TEST_F(AddSessionTest, TheSessionKeepsTheModelLoaded) {
  tessel_model_release(model);
  model = nullptr;
  StatusResult result = run();
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_EQ(y[1], 11.0f);
}

TEST_F(AddSessionTest, RejectsAWrongShape) {
  const int64_t shape24[] = {2, 4};
  inputs[1].shape = shape24;
  StatusResult result = run();
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'b': expected float32[2,3], got float32[2,4]");
  EXPECT_EQ(y[1], 0.0f); // the entry did not run
}

TEST_F(AddSessionTest, RejectsAWrongRank) {
  const int64_t shape6[] = {6};
  outputs[0].rank = 1;
  outputs[0].shape = shape6;
  StatusResult result = run();
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "output 'y': expected float32[2,3], got float32[6]");
}

TEST_F(AddSessionTest, RejectsAWrongDtype) {
  inputs[0].dtype = TESSEL_DTYPE_F64;
  StatusResult result = run();
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'a': expected float32[2,3], got float64[2,3]");
}

TEST_F(AddSessionTest, RejectsAWrongCount) {
  StatusResult result =
      take(tessel_session_run(session, inputs, 1, outputs, 1));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "expected 2 inputs, got 1");
  tessel_tensor_view twoOutputs[2] = {outputs[0], outputs[0]};
  result = take(tessel_session_run(session, inputs, 2, twoOutputs, 2));
  EXPECT_EQ(result.message, "expected 1 output, got 2");
  result = take(tessel_session_run(session, nullptr, 2, outputs, 1));
  EXPECT_EQ(result.message, "the input array is NULL");
}

TEST_F(AddSessionTest, RejectsAWrongSize) {
  inputs[0].size_bytes = 20;
  StatusResult result = run();
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'a': size_bytes is 20, but float32[2,3] holds 24");
  inputs[0].size_bytes = 28;
  EXPECT_EQ(run().code, TESSEL_INVALID_ARGUMENT);
}

TEST_F(AddSessionTest, RejectsNullAndMisalignedData) {
  outputs[0].data = nullptr;
  EXPECT_EQ(run().message, "output 'y': data is NULL");
  outputs[0].data = reinterpret_cast<char *>(y) + 1;
  EXPECT_EQ(run().message, "output 'y': data is not aligned to 4 bytes");
  outputs[0] = view(y);
  inputs[0].shape = nullptr;
  EXPECT_EQ(run().message, "input 'a': expected float32[2,3], got float32[?]");
}

TEST_F(AddSessionTest, ConcurrentRunsOnOneSessionAgree) {
  std::vector<std::thread> threads;
  std::vector<StatusResult> results(4);
  std::vector<std::vector<float>> sums(4, std::vector<float>(6));
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      tessel_tensor_view out{sums[t].data(), TESSEL_DTYPE_F32, 2, kShape23,
                             6 * sizeof(float)};
      for (int i = 0; i < 50 && results[t].code == TESSEL_OK; ++i)
        results[t] = take(tessel_session_run(session, inputs, 2, &out, 1));
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(results[t].code, TESSEL_OK) << results[t].message;
    EXPECT_EQ(sums[t][2], 22.0f);
  }
}

TEST(SessionTest, EntryFailureIsARuntimeError) {
  tessel_model *model = nullptr;
  ASSERT_EQ(take(tessel_model_load(TESSEL_FIXTURE_FAILS, &model)).code,
            TESSEL_OK);
  tessel_session *session = nullptr;
  ASSERT_EQ(take(tessel_session_create(model, nullptr, &session)).code,
            TESSEL_OK);
  tessel_model_release(model);
  float data[3][6] = {};
  tessel_tensor_view views[3];
  for (int i = 0; i < 3; ++i)
    views[i] = {data[i], TESSEL_DTYPE_F32, 2, kShape23, sizeof(data[i])};
  StatusResult result =
      take(tessel_session_run(session, views, 2, views + 2, 1));
  EXPECT_EQ(result.code, TESSEL_RUNTIME_ERROR);
  EXPECT_THAT(result.message,
              HasSubstr("entry 'add_entry' failed with code 7"));
  tessel_session_release(session);
}

/// Runs the add fixture at `path` with b = {0, 10, ..., 50} + `delta` at
/// element 5; `fixed` tells whether b has a fixed value, and its element 5
/// (the pointer itself dies with the model).
StatusResult runAddWithB(const char *path, float delta, float *y, bool *fixed,
                         float *fixed5) {
  tessel_model *model = nullptr;
  StatusResult loaded = take(tessel_model_load(path, &model));
  if (loaded.code != TESSEL_OK)
    return loaded;
  const void *value = tessel_model_input_fixed_value(model, 1);
  *fixed = value != nullptr;
  if (value)
    *fixed5 = static_cast<const float *>(value)[5];
  EXPECT_EQ(tessel_model_input_fixed_value(model, 0), nullptr);
  EXPECT_EQ(tessel_model_input_fixed_value(model, 2), nullptr);
  EXPECT_EQ(tessel_model_input_fixed_value(nullptr, 1), nullptr);
  tessel_session *session = nullptr;
  EXPECT_EQ(take(tessel_session_create(model, nullptr, &session)).code,
            TESSEL_OK);
  tessel_model_release(model);
  alignas(64) float a[6] = {1, 1, 1, 1, 1, 1};
  alignas(64) float b[6] = {0, 10, 20, 30, 40, 50};
  b[5] += delta;
  tessel_tensor_view views[3] = {
      {a, TESSEL_DTYPE_F32, 2, kShape23, sizeof(a)},
      {b, TESSEL_DTYPE_F32, 2, kShape23, sizeof(b)},
      {y, TESSEL_DTYPE_F32, 2, kShape23, 6 * sizeof(float)}};
  StatusResult result =
      take(tessel_session_run(session, views, 2, views + 2, 1));
  tessel_session_release(session);
  return result;
}

TEST(SessionTest, FixedInputTakesItsValue) {
  float y[6] = {}, fixed5 = 0;
  bool fixed = false;
  StatusResult result =
      runAddWithB(TESSEL_FIXTURE_FIXED_B, 0, y, &fixed, &fixed5);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_TRUE(fixed);
  EXPECT_EQ(fixed5, 50.0f);
  EXPECT_EQ(y[5], 51.0f);
}

TEST(SessionTest, FixedInputRefusesAnotherValue) {
  float y[6] = {-1, -1, -1, -1, -1, -1}, fixed5 = 0;
  bool fixed = false;
  StatusResult result =
      runAddWithB(TESSEL_FIXTURE_FIXED_B, 0.5f, y, &fixed, &fixed5);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "input 'b': the model was compiled for the fixed value [0, 10, "
            "20, 30, 40, 50] of this input (tessel-compile --input-value), "
            "got [0, 10, 20, 30, 40, 50.5]; recompile with the value you "
            "need");
  EXPECT_EQ(y[0], -1.0f) << "the entry must not run";
}

TEST(SessionTest, Abi10DescriptorHasNoFixedInputs) {
  // struct_size ends before `input_values`: the field is not read.
  float y[6] = {}, fixed5 = 0;
  bool fixed = true;
  StatusResult result =
      runAddWithB(TESSEL_FIXTURE_ABI1_0, 0.5f, y, &fixed, &fixed5);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_FALSE(fixed);
  EXPECT_EQ(y[5], 51.5f);
}

TEST(SessionTest, Options) {
  tessel_model *model = nullptr;
  ASSERT_EQ(take(tessel_model_load(TESSEL_FIXTURE_ADD, &model)).code,
            TESSEL_OK);
  tessel_session *session = nullptr;

  tessel_session_options options{sizeof(tessel_session_options), 3, 0};
  ASSERT_EQ(take(tessel_session_create(model, &options, &session)).code,
            TESSEL_OK);
  EXPECT_EQ(tessel_session_num_threads(session), 3);
  tessel_session_release(session);

  options.num_threads = 0;
  ASSERT_EQ(take(tessel_session_create(model, &options, &session)).code,
            TESSEL_OK);
  EXPECT_GE(tessel_session_num_threads(session), 1);
  tessel_session_release(session);

  options.num_threads = -2;
  session = nullptr;
  StatusResult result = take(tessel_session_create(model, &options, &session));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("num_threads is -2"));
  EXPECT_EQ(session, nullptr);

  options = {0, 1, 0};
  result = take(tessel_session_create(model, &options, &session));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("struct_size"));

  EXPECT_EQ(take(tessel_session_create(nullptr, nullptr, &session)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_session_create(model, nullptr, nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_session_run(nullptr, nullptr, 0, nullptr, 0)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_session_num_threads(nullptr), 0);
  tessel_session_release(nullptr);
  tessel_model_release(model);
}

TEST(SessionTest, NoWorkspaceMeansNull) {
  // The and fixture has workspace_size 0 and fails unless given NULL.
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_AND, model).ok());
  Session session;
  ASSERT_TRUE(Session::create(model, session, 1).ok());
  const int64_t shape[] = {3, 4};
  uint8_t x[12], yIn[12], out[12] = {};
  for (int i = 0; i < 12; ++i) {
    x[i] = uint8_t(i % 2);
    yIn[i] = uint8_t(i % 3 == 0);
  }
  std::vector<tessel_tensor_view> inputs = {
      {x, TESSEL_DTYPE_BOOL, 2, shape, 12},
      {yIn, TESSEL_DTYPE_BOOL, 2, shape, 12}};
  std::vector<tessel_tensor_view> outputs = {
      {out, TESSEL_DTYPE_BOOL, 2, shape, 12}};
  Status status = session.run(inputs, outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(out[i], x[i] & yIn[i]) << i;
}

TEST(SessionTest, CxxWrapperWithRuntimeTensors) {
  Model model;
  ASSERT_TRUE(Model::load(TESSEL_FIXTURE_ADD, model).ok());
  Session session;
  Status status = Session::create(model, session);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_GE(session.numThreads(), 1);

  Tensor a, b, y;
  ASSERT_TRUE(Tensor::alloc(*model.input(0), a).ok());
  ASSERT_TRUE(Tensor::alloc(*model.input(1), b).ok());
  ASSERT_TRUE(Tensor::alloc(TESSEL_DTYPE_F32, {2, 3}, y).ok());
  for (int i = 0; i < 6; ++i) {
    static_cast<float *>(a.data())[i] = 0.5f;
    static_cast<float *>(b.data())[i] = float(i);
  }
  status = session.run({a.view(), b.view()}, {y.view()});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(static_cast<float *>(y.data())[4], 4.5f);

  status = session.run({a.view()}, {y.view()});
  EXPECT_EQ(status.code(), TESSEL_INVALID_ARGUMENT);
  EXPECT_STREQ(status.message(), "expected 2 inputs, got 1");
}

TEST(TensorTest, AllocIsAlignedZeroedAndOwnsItsShape) {
  int64_t shape[] = {3, 5, 7};
  tessel_tensor_view view{};
  ASSERT_EQ(take(tessel_tensor_alloc(TESSEL_DTYPE_F64, 3, shape, &view)).code,
            TESSEL_OK);
  shape[0] = 99; // the view has its own copy
  EXPECT_EQ(view.dtype, TESSEL_DTYPE_F64);
  ASSERT_EQ(view.rank, 3);
  EXPECT_EQ(view.shape[0], 3);
  EXPECT_EQ(view.shape[2], 7);
  EXPECT_EQ(view.size_bytes, 3u * 5 * 7 * 8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(view.data) % 64, 0u);
  const auto *bytes = static_cast<const uint8_t *>(view.data);
  for (size_t i = 0; i < view.size_bytes; ++i)
    ASSERT_EQ(bytes[i], 0) << i;
  tessel_tensor_free(&view);
  EXPECT_EQ(view.data, nullptr);
  EXPECT_EQ(view.shape, nullptr);
  tessel_tensor_free(&view); // already freed: a no-op
  tessel_tensor_free(nullptr);
}

TEST(TensorTest, ScalarsAndEmptyTensors) {
  tessel_tensor_view scalar{};
  ASSERT_EQ(
      take(tessel_tensor_alloc(TESSEL_DTYPE_I32, 0, nullptr, &scalar)).code,
      TESSEL_OK);
  EXPECT_EQ(scalar.size_bytes, 4u);
  EXPECT_NE(scalar.data, nullptr);
  tessel_tensor_free(&scalar);

  const int64_t empty[] = {4, 0, INT64_MAX};
  tessel_tensor_view view{};
  ASSERT_EQ(take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 3, empty, &view)).code,
            TESSEL_OK);
  EXPECT_EQ(view.size_bytes, 0u);
  tessel_tensor_free(&view);
}

TEST(TensorTest, AllocRejectsBadArguments) {
  const int64_t shape[] = {2, 3};
  tessel_tensor_view view{};
  StatusResult result = take(tessel_tensor_alloc(8, 2, shape, &view));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "tessel_tensor_alloc: unknown element type code 8");
  result = take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 17, shape, &view));
  EXPECT_EQ(result.message, "tessel_tensor_alloc: rank 17 is outside [0, 16]");
  const int64_t negative[] = {2, -1};
  result = take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 2, negative, &view));
  EXPECT_EQ(result.message,
            "tessel_tensor_alloc: extent -1 of dimension 1 is negative");
  const int64_t huge[] = {INT64_MAX, 4};
  result = take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 2, huge, &view));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("overflows the address space"));
  const int64_t tooBig[] = {int64_t(1) << 62};
  result = take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 1, tooBig, &view));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  result = take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 2, nullptr, &view));
  EXPECT_EQ(result.message, "tessel_tensor_alloc: rank 2 but no shape");
  EXPECT_EQ(take(tessel_tensor_alloc(TESSEL_DTYPE_F32, 2, shape, nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(view.data, nullptr); // untouched on failure
}

} // namespace
