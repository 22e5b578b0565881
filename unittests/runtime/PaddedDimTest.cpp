//===- PaddedDimTest.cpp - Artifacts with a padded dimension (ABI 1.5) ----===//
//
// The fixture is fixtures/padded_model.c: x float32[B,S,2] and w
// float32[B,S] with S in 1..8 padded, entries for lengths 4 and 8, y = x +
// w + the sum of x[b,:valid,0], and a "length" output that says which
// entry ran. An entry fails when a padded position holds anything but 0.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"
#include "tessel/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

/// The tensors of one run of `batch` samples of length `length`, with
/// shapes a test may break.
struct PaddedRun {
  PaddedRun(int64_t batch, int64_t length)
      : batch(batch), length(length), x(size_t(batch * length * 2)),
        w(size_t(batch * length)), y(x.size(), -7.0f),
        ran(size_t(batch), -7), xShape{batch, length, 2}, wShape{batch, length},
        yShape{batch, length, 2}, ranShape{batch, 1} {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i % 7) + 1.0f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = 0.5f * float(i % 3) + 0.25f;
  }
  std::vector<tessel_tensor_view> inputs() {
    return {{x.data(), TESSEL_DTYPE_F32, 3, xShape, x.size() * 4},
            {w.data(), TESSEL_DTYPE_F32, 2, wShape, w.size() * 4}};
  }
  std::vector<tessel_tensor_view> outputs() {
    return {{y.data(), TESSEL_DTYPE_F32, 3, yShape, y.size() * 4},
            {ran.data(), TESSEL_DTYPE_I32, 2, ranShape, ran.size() * 4}};
  }
  /// Whether y matches the reference at every valid position.
  bool correct() const {
    for (int64_t b = 0; b < batch; ++b) {
      float sum = 0;
      for (int64_t j = 0; j < length; ++j)
        sum += x[size_t((b * length + j) * 2)];
      for (int64_t s = 0; s < length; ++s)
        for (int64_t k = 0; k < 2; ++k) {
          size_t i = size_t((b * length + s) * 2 + k);
          if (y[i] != x[i] + w[size_t(b * length + s)] + sum)
            return false;
        }
    }
    return true;
  }

  int64_t batch, length;
  std::vector<float> x, w, y;
  std::vector<int32_t> ran;
  int64_t xShape[3], wShape[2], yShape[3], ranShape[2];
};

/// The fixture's hooks (the test opens the same file as the runtime, so
/// it shares its state).
struct PaddedHooks {
  void open(const char *path) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    calls = reinterpret_cast<long (*)()>(dlsym(handle, "padded_fixture_calls"));
    lastX = reinterpret_cast<const void *(*)()>(
        dlsym(handle, "padded_fixture_last_x"));
    lastValid = reinterpret_cast<int64_t (*)()>(
        dlsym(handle, "padded_fixture_last_valid"));
    reset = reinterpret_cast<void (*)()>(dlsym(handle, "padded_fixture_reset"));
    reset();
  }
  ~PaddedHooks() {
    if (handle)
      dlclose(handle);
  }
  void *handle = nullptr;
  long (*calls)() = nullptr;
  const void *(*lastX)() = nullptr;
  int64_t (*lastValid)() = nullptr;
  void (*reset)() = nullptr;
};

class PaddedDimTest : public ::testing::Test {
protected:
  void SetUp() override { load(TESSEL_FIXTURE_PADDED); }
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
  StatusResult run(PaddedRun &tensors) {
    std::vector<tessel_tensor_view> in = tensors.inputs();
    std::vector<tessel_tensor_view> out = tensors.outputs();
    return take(tessel_session_run(session, in.data(), in.size(), out.data(),
                                   out.size()));
  }

  tessel_model *model = nullptr;
  tessel_session *session = nullptr;
  PaddedHooks hooks;
};

TEST_F(PaddedDimTest, TheModelSaysItsRange) {
  int64_t min = -1, max = -1;
  EXPECT_EQ(tessel_model_padded_range(model, &min, &max), 1);
  EXPECT_EQ(min, 1);
  EXPECT_EQ(max, 8);
  EXPECT_EQ(tessel_model_padded_range(model, nullptr, nullptr), 1);
  const tessel_model_desc *desc = tessel_model_descriptor(model);
  EXPECT_STREQ(desc->padded_name, "S");
  EXPECT_EQ(desc->padded_input_dims[0], 1);
  EXPECT_EQ(desc->padded_output_dims[1], -1);
  // The descriptions are the shortest entry's.
  EXPECT_EQ(tessel_model_input(model, 0)->shape[1], 4);
  EXPECT_EQ(tessel_model_batch_range(model, nullptr, nullptr), 0);

  min = max = -1;
  EXPECT_EQ(tessel_model_padded_range(nullptr, &min, &max), 0);
  EXPECT_EQ(min, 0);
  EXPECT_EQ(max, 0);
  tessel::Model fixed;
  ASSERT_TRUE(tessel::Model::load(TESSEL_FIXTURE_ADD, fixed).ok());
  min = max = -1;
  EXPECT_FALSE(fixed.paddedRange(min, max));
  EXPECT_EQ(min, 0);
  EXPECT_EQ(max, 0);
}

TEST_F(PaddedDimTest, EveryLengthRunsOnTheShortestEntryThatHoldsIt) {
  for (int64_t length = 1; length <= 8; ++length) {
    PaddedRun tensors(1, length);
    StatusResult result = run(tensors);
    ASSERT_EQ(result.code, TESSEL_OK) << length << ": " << result.message;
    EXPECT_TRUE(tensors.correct()) << length;
    EXPECT_EQ(tensors.ran[0], length <= 4 ? 4 : 8) << length;
    EXPECT_EQ(hooks.lastValid(), length);
  }
  EXPECT_EQ(hooks.calls(), 8);
}

TEST_F(PaddedDimTest, AnExactLengthRunsOnTheCallersBuffers) {
  for (int64_t length : {4, 8}) {
    PaddedRun tensors(1, length);
    ASSERT_EQ(run(tensors).code, TESSEL_OK);
    EXPECT_EQ(hooks.lastX(), tensors.x.data()) << length;
    EXPECT_TRUE(tensors.correct());
  }
  PaddedRun shorter(1, 5);
  ASSERT_EQ(run(shorter).code, TESSEL_OK);
  EXPECT_NE(hooks.lastX(), shorter.x.data());
}

TEST_F(PaddedDimTest, ALengthOutsideTheRangeIsRefused) {
  for (int64_t length : {0, 9}) {
    PaddedRun tensors(1, length);
    StatusResult result = run(tensors);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
    EXPECT_THAT(result.message, HasSubstr("input 'x': dimension 1 ('S') is " +
                                          std::to_string(length)));
    EXPECT_THAT(result.message, HasSubstr("range 1..8"));
  }
  EXPECT_EQ(hooks.calls(), 0);
}

TEST_F(PaddedDimTest, InputsOfDifferentLengthsAreRefused) {
  PaddedRun tensors(1, 6);
  tensors.wShape[1] = 5;
  std::vector<tessel_tensor_view> in = tensors.inputs();
  in[1].size_bytes = 5 * 4;
  std::vector<tessel_tensor_view> out = tensors.outputs();
  StatusResult result =
      take(tessel_session_run(session, in.data(), 2, out.data(), out.size()));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("input 'w': dimension 1 ('S') is 5, "
                                        "but input 'x' has length 6"));
}

TEST_F(PaddedDimTest, AnOutputOfAnotherLengthIsRefused) {
  PaddedRun tensors(1, 6), longer(1, 7);
  std::vector<tessel_tensor_view> in = tensors.inputs();
  std::vector<tessel_tensor_view> out = longer.outputs();
  StatusResult result =
      take(tessel_session_run(session, in.data(), 2, out.data(), out.size()));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("output 'y': dimension 1 ('S') is 7, "
                                        "but the inputs' length is 6"));
  // A wrong static extent names the padded one.
  tensors.xShape[2] = 3;
  in = tensors.inputs();
  out = tensors.outputs();
  result =
      take(tessel_session_run(session, in.data(), 2, out.data(), out.size()));
  EXPECT_THAT(result.message, HasSubstr("expected float32[1,S,2] (S in 1..8)"));
  EXPECT_EQ(hooks.calls(), 0);
}

TEST_F(PaddedDimTest, AResultCacheKeysOnTheLength) {
  load(TESSEL_FIXTURE_PADDED, 1 << 20);
  PaddedRun first(1, 3), again(1, 3), other(1, 5);
  ASSERT_EQ(run(first).code, TESSEL_OK);
  ASSERT_EQ(run(again).code, TESSEL_OK);
  ASSERT_EQ(run(other).code, TESSEL_OK);
  EXPECT_EQ(hooks.calls(), 2);
  EXPECT_TRUE(again.correct());
  EXPECT_TRUE(other.correct());
}

TEST_F(PaddedDimTest, AnOldServicesStructMeansTheEntrysOwnLength) {
  // An older runtime's services end before valid_length: the entry of
  // length 8 takes all 8 positions as valid, padding or not.
  const tessel_model_desc *desc = tessel_model_descriptor(model);
  const tessel_padded_entry &entry = desc->padded_entries[1];
  ASSERT_EQ(entry.length, 8);
  PaddedRun tensors(1, 8);
  std::vector<void *> pointers{tensors.x.data(), tensors.w.data(),
                               tensors.y.data(), tensors.ran.data()};
  void *workspace = aligned_alloc(64, 8192);
  tessel_runtime_services services{};
  services.struct_size = offsetof(tessel_runtime_services, valid_length);
  services.num_threads = 1;
  services.valid_length = 3; // not read
  EXPECT_EQ(
      entry.entry(&services, pointers.data(), pointers.data() + 2, workspace),
      0);
  EXPECT_TRUE(tensors.correct());
  EXPECT_EQ(hooks.lastValid(), 8);
  // The current struct: 3 valid, and the rest is not padding: refused.
  services.struct_size = sizeof(services);
  EXPECT_EQ(
      entry.entry(&services, pointers.data(), pointers.data() + 2, workspace),
      6);
  free(workspace);
}

TEST_F(PaddedDimTest, ADynamicBatchRunsEveryBatchAndLength) {
  load(TESSEL_FIXTURE_PADDED_DYNAMIC);
  int64_t min = 0, max = 0;
  EXPECT_EQ(tessel_model_batch_range(model, &min, &max), 1);
  EXPECT_EQ(max, 4);
  for (int64_t batch = 1; batch <= 4; ++batch)
    for (int64_t length = 1; length <= 8; ++length) {
      PaddedRun tensors(batch, length);
      StatusResult result = run(tensors);
      ASSERT_EQ(result.code, TESSEL_OK)
          << batch << "x" << length << ": " << result.message;
      EXPECT_TRUE(tensors.correct()) << batch << "x" << length;
      for (int32_t ran : tensors.ran)
        EXPECT_EQ(ran, length <= 4 ? 4 : 8);
    }
}

TEST_F(PaddedDimTest, ABadDescriptorIsRefused) {
  struct Case {
    const char *path;
    const char *says;
  } cases[] = {
      {TESSEL_FIXTURE_PADDED_BOGUS1,
       "padded range 0..8 is not 1 <= padded_min <= padded_max"},
      {TESSEL_FIXTURE_PADDED_BOGUS2, "entries go by ascending length"},
      {TESSEL_FIXTURE_PADDED_BOGUS3, "below padded_max 8"},
      {TESSEL_FIXTURE_PADDED_BOGUS4, "padded_input_dims[0] (input 'x'"},
      {TESSEL_FIXTURE_PADDED_BOGUS5, "no input holds the padded dimension"},
      {TESSEL_FIXTURE_PADDED_BOGUS6, "the length of the first padded entry"},
      {TESSEL_FIXTURE_PADDED_BOGUS7, "has no name"},
      {TESSEL_FIXTURE_PADDED_BOGUS8, "has a NULL entry function"},
      {TESSEL_FIXTURE_PADDED_BOGUS9, "(0 is the dynamic batch)"},
  };
  for (const Case &c : cases) {
    tessel_model *bad = nullptr;
    StatusResult result = take(tessel_model_load(c.path, &bad));
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << c.path;
    EXPECT_THAT(result.message, HasSubstr(c.says)) << c.path;
    EXPECT_EQ(bad, nullptr);
  }
}

TEST_F(PaddedDimTest, AStreamRunsAPaddedRun) {
  tessel_stream *stream = nullptr;
  ASSERT_EQ(take(tessel_stream_create(nullptr, &stream)).code, TESSEL_OK);
  PaddedRun tensors(1, 6);
  std::vector<tessel_tensor_view> in = tensors.inputs();
  std::vector<tessel_tensor_view> out = tensors.outputs();
  ASSERT_EQ(
      take(tessel_run_async(session, stream, in.data(), 2, out.data(), 2)).code,
      TESSEL_OK);
  EXPECT_EQ(take(tessel_stream_synchronize(stream)).code, TESSEL_OK);
  tessel_stream_release(stream);
  EXPECT_TRUE(tensors.correct());
  EXPECT_EQ(tensors.ran[0], 8);
}

TEST_F(PaddedDimTest, TheSchedulerRefusesAPaddedModel) {
  tessel_scheduler *scheduler = nullptr;
  StatusResult result =
      take(tessel_scheduler_create(&model, 1, nullptr, &scheduler));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("padded dimension (S=1..8)"));
}

} // namespace
