//===- CudaDeviceTest.cpp - The CUDA layer on a real GPU ------------------===//
//
// Runs with the system's driver (TESSEL_CUDA_DRIVER unset) and skips, saying
// why, when this machine cannot run CUDA: on a machine with a GPU it is the
// end-to-end check of tessel/cuda.h (a PTX kernel JIT-compiled by the
// driver, pinned memory, overlapping-capable copies, events, the pool).
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"

#include <vector>

using namespace tessel::test;

namespace {

TEST(CudaDevice, RunsAPtxKernelBetweenCopies) {
  if (std::getenv("TESSEL_CUDA_DRIVER"))
    GTEST_SKIP() << "runs with the system's driver: unset TESSEL_CUDA_DRIVER";
  int32_t count = 0;
  StatusResult result = take(tessel_cuda_device_count(&count));
  if (result.code == TESSEL_INCOMPATIBLE)
    GTEST_SKIP() << "this machine cannot run CUDA: " << result.message;
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  ASSERT_GE(count, 1);

  tessel_cuda_device *device = nullptr;
  result = take(tessel_cuda_device_open(0, &device));
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  int32_t major = 0, minor = 0;
  ASSERT_EQ(
      take(tessel_cuda_device_compute_capability(device, &major, &minor)).code,
      TESSEL_OK);
  std::printf(
      "device 0: %s, sm_%d%d, %llu bytes\n", tessel_cuda_device_name(device),
      major, minor,
      static_cast<unsigned long long>(tessel_cuda_device_total_memory(device)));
  EXPECT_GE(major, 7);
  EXPECT_GT(tessel_cuda_device_total_memory(device), 0u);

  std::string ptx = readFile(TESSEL_CUDA_ADD_ONE_PTX);
  ASSERT_FALSE(ptx.empty());
  tessel_cuda_module *module = nullptr;
  result =
      take(tessel_cuda_module_load(device, ptx.data(), ptx.size(), &module));
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  const tessel_cuda_function *kernel = nullptr;
  ASSERT_EQ(
      take(tessel_cuda_module_get_function(module, "add_one", &kernel)).code,
      TESSEL_OK);

  tessel_cuda_stream *stream = nullptr;
  ASSERT_EQ(take(tessel_cuda_stream_create(device, &stream)).code, TESSEL_OK);
  tessel_cuda_event *start = nullptr, *end = nullptr;
  ASSERT_EQ(
      take(tessel_cuda_event_create(device, TESSEL_CUDA_EVENT_TIMING, &start))
          .code,
      TESSEL_OK);
  ASSERT_EQ(
      take(tessel_cuda_event_create(device, TESSEL_CUDA_EVENT_TIMING, &end))
          .code,
      TESSEL_OK);

  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  void *pinned = nullptr;
  ASSERT_EQ(take(tessel_cuda_host_alloc(device, bytes, &pinned)).code,
            TESSEL_OK);
  float *host = static_cast<float *>(pinned);
  for (int i = 0; i < n; ++i)
    host[i] = float(i % 1000);

  tessel_cuda_ptr data = 0;
  EXPECT_EQ(take(tessel_cuda_event_record(start, stream)).code, TESSEL_OK);
  ASSERT_EQ(take(tessel_cuda_malloc_async(bytes, stream, &data)).code,
            TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_memcpy_htod_async(data, host, bytes, stream)).code,
            TESSEL_OK);
  int count32 = n;
  void *params[] = {&data, &count32};
  tessel_cuda_launch_config config{
      sizeof(config), {uint32_t((n + 255) / 256), 1, 1}, {256, 1, 1}, 0};
  result = take(tessel_cuda_launch(kernel, &config, params, stream));
  EXPECT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_EQ(take(tessel_cuda_memcpy_dtoh_async(host, data, bytes, stream)).code,
            TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_free_async(data, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_event_record(end, stream)).code, TESSEL_OK);
  result = take(tessel_cuda_event_synchronize(end));
  EXPECT_EQ(result.code, TESSEL_OK) << result.message;
  float ms = -1;
  EXPECT_EQ(take(tessel_cuda_event_elapsed_ms(start, end, &ms)).code,
            TESSEL_OK);
  EXPECT_GE(ms, 0.0f);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += host[i] != float(i % 1000) + 1.0f;
  EXPECT_EQ(wrong, 0);

  EXPECT_EQ(take(tessel_cuda_host_free(device, pinned)).code, TESSEL_OK);
  tessel_cuda_event_release(start);
  tessel_cuda_event_release(end);
  tessel_cuda_stream_release(stream);
  tessel_cuda_module_release(module);
  tessel_cuda_device_release(device);
}

} // namespace
