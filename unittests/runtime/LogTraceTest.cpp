//===- LogTraceTest.cpp - The runtime's log and trace C API ---------------===//

#include "TestUtil.h"

#include "tessel/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace tessel::test;
using ::testing::HasSubstr;

/// LogLevelRaw.c: a C caller passing any int.
extern "C" void tessel_test_set_log_level_raw(int level);

namespace {

struct Captured {
  std::vector<std::pair<tessel_log_level, std::string>> messages;
};

void capture(tessel_log_level level, const char *message, void *userData) {
  static_cast<Captured *>(userData)->messages.emplace_back(level, message);
}

/// Restores the default sink and level after each test.
class LogTest : public ::testing::Test {
protected:
  void SetUp() override { saved = tessel_get_log_level(); }
  void TearDown() override {
    tessel_set_log_callback(nullptr, nullptr);
    tessel_set_log_level(saved);
  }
  tessel_log_level saved = TESSEL_LOG_WARN;
};

void loadAndRelease(const char *path) {
  tessel_model *model = nullptr;
  ASSERT_EQ(take(tessel_model_load(path, &model)).code, TESSEL_OK);
  tessel_model_release(model);
}

TEST_F(LogTest, TheCallbackGetsMessagesAtOrBelowTheLevel) {
  Captured captured;
  tessel_set_log_callback(capture, &captured);
  tessel_set_log_level(TESSEL_LOG_WARN);
  loadAndRelease(TESSEL_FIXTURE_ADD);
  EXPECT_TRUE(captured.messages.empty()); // a load is info

  tessel_set_log_level(TESSEL_LOG_INFO);
  EXPECT_EQ(tessel_get_log_level(), TESSEL_LOG_INFO);
  loadAndRelease(TESSEL_FIXTURE_ADD);
  ASSERT_EQ(captured.messages.size(), 1u);
  EXPECT_EQ(captured.messages[0].first, TESSEL_LOG_INFO);
  EXPECT_THAT(captured.messages[0].second, HasSubstr("model 'add'"));
  EXPECT_THAT(captured.messages[0].second, HasSubstr("hand-written fixture"));

  // NULL restores stderr: nothing more reaches the old callback.
  tessel_set_log_callback(nullptr, &captured);
  loadAndRelease(TESSEL_FIXTURE_ADD);
  EXPECT_EQ(captured.messages.size(), 1u);
}

TEST_F(LogTest, LevelsOutOfRangeAreClamped) {
  tessel_test_set_log_level_raw(-3);
  EXPECT_EQ(tessel_get_log_level(), TESSEL_LOG_ERROR);
  tessel_test_set_log_level_raw(42);
  EXPECT_EQ(tessel_get_log_level(), TESSEL_LOG_DEBUG);
}

TEST(TraceTest, StartAndStopReportMisuse) {
  EXPECT_EQ(take(tessel_trace_start(nullptr)).code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_trace_start("")).code, TESSEL_INVALID_ARGUMENT);
  StatusResult idle = take(tessel_trace_stop());
  EXPECT_EQ(idle.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(idle.message, HasSubstr("no trace is recording"));

  TempDir dir;
  ASSERT_TRUE(dir.valid());
  std::string path = dir.path("trace.json");
  ASSERT_EQ(take(tessel_trace_start(path.c_str())).code, TESSEL_OK);
  StatusResult twice = take(tessel_trace_start(path.c_str()));
  EXPECT_EQ(twice.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(twice.message, HasSubstr("already recording"));
  loadAndRelease(TESSEL_FIXTURE_ADD);
  ASSERT_EQ(take(tessel_trace_stop()).code, TESSEL_OK);
  std::string written = readFile(path);
  EXPECT_THAT(written, HasSubstr("\"traceEvents\""));
  EXPECT_THAT(written, HasSubstr("\"name\": \"load\", \"cat\": \"model\""));
  EXPECT_THAT(written, HasSubstr("\"tessel_revision\""));
}

TEST(TraceTest, AnUnwritableFileIsAnIoError) {
  TempDir dir;
  ASSERT_TRUE(dir.valid());
  std::string path = dir.path("missing-dir/trace.json");
  ASSERT_EQ(take(tessel_trace_start(path.c_str())).code, TESSEL_OK);
  StatusResult stopped = take(tessel_trace_stop());
  EXPECT_EQ(stopped.code, TESSEL_IO_ERROR);
  EXPECT_THAT(stopped.message, HasSubstr("missing-dir/trace.json"));
  // The failed write still ended the recording.
  EXPECT_EQ(take(tessel_trace_stop()).code, TESSEL_INVALID_ARGUMENT);
}

} // namespace
