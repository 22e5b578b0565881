//===- StatusTest.cpp - Status objects, dtypes and versions ---------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"

#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::test;

namespace {

TEST(StatusTest, NullIsSuccess) {
  EXPECT_EQ(tessel_status_get_code(nullptr), TESSEL_OK);
  EXPECT_STREQ(tessel_status_get_message(nullptr), "");
  tessel_status_free(nullptr);
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  tessel_model *model = nullptr;
  tessel_status status = tessel_model_load(nullptr, &model);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(tessel_status_get_code(status), TESSEL_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_status_get_message(status),
               "tessel_model_load: the path is NULL or empty");
  EXPECT_EQ(model, nullptr);
  tessel_status_free(status);
}

TEST(StatusTest, CodeNames) {
  EXPECT_STREQ(tessel_status_code_name(TESSEL_OK), "ok");
  EXPECT_STREQ(tessel_status_code_name(TESSEL_INCOMPATIBLE), "incompatible");
  EXPECT_STREQ(tessel_status_code_name(TESSEL_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(tessel_status_code_name(TESSEL_DEADLINE_EXCEEDED),
               "deadline exceeded");
  EXPECT_STREQ(tessel_status_code_name(TESSEL_RESOURCE_EXHAUSTED),
               "resource exhausted");
  EXPECT_STREQ(tessel_status_code_name(static_cast<tessel_status_code>(99)),
               "unknown status code");
}

TEST(StatusTest, CxxWrapperOwnsAndMoves) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), TESSEL_OK);
  EXPECT_STREQ(ok.message(), "");

  Status failed(tessel_model_load("", nullptr));
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), TESSEL_INVALID_ARGUMENT);
  Status moved = std::move(failed);
  EXPECT_TRUE(failed.ok()); // NOLINT(bugprone-use-after-move): moved-from
  EXPECT_EQ(moved.code(), TESSEL_INVALID_ARGUMENT);
  tessel_status released = moved.release();
  EXPECT_TRUE(moved.ok());
  EXPECT_EQ(take(released).code, TESSEL_INVALID_ARGUMENT);
}

TEST(DtypeTest, NamesAndSizes) {
  struct Case {
    int32_t dtype;
    const char *name;
    size_t size;
  } cases[] = {
      {TESSEL_DTYPE_F32, "float32", 4},   {TESSEL_DTYPE_F16, "float16", 2},
      {TESSEL_DTYPE_F64, "float64", 8},   {TESSEL_DTYPE_I8, "int8", 1},
      {TESSEL_DTYPE_U8, "uint8", 1},      {TESSEL_DTYPE_I16, "int16", 2},
      {TESSEL_DTYPE_U16, "uint16", 2},    {TESSEL_DTYPE_I32, "int32", 4},
      {TESSEL_DTYPE_U32, "uint32", 4},    {TESSEL_DTYPE_I64, "int64", 8},
      {TESSEL_DTYPE_U64, "uint64", 8},    {TESSEL_DTYPE_BOOL, "bool", 1},
      {TESSEL_DTYPE_BF16, "bfloat16", 2},
  };
  for (const Case &c : cases) {
    EXPECT_STREQ(tessel_dtype_name(c.dtype), c.name);
    EXPECT_EQ(tessel_dtype_size(c.dtype), c.size) << c.name;
  }
  // ONNX codes Tessel does not support: undefined, string, complex, float8.
  for (int32_t dtype : {0, 8, 14, 15, 17, 21, -1, 1000}) {
    EXPECT_STREQ(tessel_dtype_name(dtype), "invalid") << dtype;
    EXPECT_EQ(tessel_dtype_size(dtype), 0u) << dtype;
  }
}

TEST(VersionTest, MatchesTheProject) {
  EXPECT_STREQ(tessel_runtime_version(), TESSEL_EXPECTED_VERSION);
}

} // namespace
