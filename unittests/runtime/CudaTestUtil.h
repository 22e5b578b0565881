//===- CudaTestUtil.h - Helpers for the CUDA layer's tests ------*- C++ -*-===//
//
// The runtime reads TESSEL_CUDA_DRIVER once per process, so each driver the
// tests use (none, the toolkit's stub, a library that is not a driver, the
// fake) gets a process of its own: ctest runs TesselCudaTests once per
// driver, with the variable set and a filter for the suites of that driver.
// Each suite checks that it runs under the driver it expects.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_UNITTESTS_RUNTIME_CUDATESTUTIL_H
#define TESSEL_UNITTESTS_RUNTIME_CUDATESTUTIL_H

#include "TestUtil.h"

#include "tessel/cuda.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace tessel::test {

/// Skips the test unless TESSEL_CUDA_DRIVER is `expected`.
#define TESSEL_EXPECT_DRIVER(expected)                                         \
  do {                                                                         \
    const char *driver = std::getenv("TESSEL_CUDA_DRIVER");                    \
    if (!driver || std::string(driver) != (expected))                          \
      GTEST_SKIP() << "needs TESSEL_CUDA_DRIVER=" << (expected)                \
                   << " (ctest -R CudaTest sets it)";                          \
  } while (0)

/// Expects `status` to be TESSEL_INVALID_ARGUMENT with `part` in its message.
inline void expectInvalidArgument(tessel_status status,
                                  const std::string &part) {
  StatusResult result = take(status);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT) << result.message;
  EXPECT_THAT(result.message, ::testing::HasSubstr(part));
}

/// Loads the CPU fixture `add`, runs it once, and checks its output: the CPU
/// API works whatever happened to CUDA in this process.
inline void expectCpuModelRuns() {
  tessel_model *model = nullptr;
  StatusResult result = take(tessel_model_load(TESSEL_FIXTURE_ADD, &model));
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  tessel_session *session = nullptr;
  result = take(tessel_session_create(model, nullptr, &session));
  tessel_model_release(model);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  static const int64_t shape[] = {2, 3};
  float a[6], b[6], y[6] = {};
  for (int i = 0; i < 6; ++i) {
    a[i] = float(i);
    b[i] = 10.0f * float(i);
  }
  tessel_tensor_view inputs[2] = {{a, TESSEL_DTYPE_F32, 2, shape, sizeof(a)},
                                  {b, TESSEL_DTYPE_F32, 2, shape, sizeof(b)}};
  tessel_tensor_view outputs[1] = {{y, TESSEL_DTYPE_F32, 2, shape, sizeof(y)}};
  result = take(tessel_session_run(session, inputs, 2, outputs, 1));
  tessel_session_release(session);
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y[i], 11.0f * float(i));
}

} // namespace tessel::test

#endif // TESSEL_UNITTESTS_RUNTIME_CUDATESTUTIL_H
