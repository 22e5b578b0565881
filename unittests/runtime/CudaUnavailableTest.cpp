//===- CudaUnavailableTest.cpp - tessel/cuda.h built without CUDA ---------===//
//
// Built instead of the other CUDA tests when TESSEL_ENABLE_CUDA is OFF: the
// runtime still exports every function of tessel/cuda.h (this file calls
// each, so it would not link otherwise), and each says why it cannot work.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"

using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

void expectUnavailable(tessel_status status) {
  StatusResult result = take(status);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message, HasSubstr("built without CUDA support"));
}

TEST(CudaUnavailable, EveryFunctionExistsAndSaysWhy) {
  int32_t value = 0;
  float ms = 0;
  void *host = nullptr;
  tessel_cuda_ptr ptr = 0;
  tessel_cuda_device *device = nullptr;
  tessel_cuda_stream *stream = nullptr;
  tessel_cuda_event *event = nullptr;
  tessel_cuda_module *module = nullptr;
  const tessel_cuda_function *function = nullptr;
  tessel_cuda_launch_config config{sizeof(config), {1, 1, 1}, {1, 1, 1}, 0};
  char bytes[4] = {};

  expectUnavailable(tessel_cuda_driver_version(&value));
  expectUnavailable(tessel_cuda_device_count(&value));
  expectUnavailable(tessel_cuda_device_open(0, &device));
  expectUnavailable(
      tessel_cuda_device_compute_capability(device, &value, &value));
  expectUnavailable(tessel_cuda_device_set_pool_release_threshold(device, 0));
  expectUnavailable(tessel_cuda_stream_create(device, &stream));
  expectUnavailable(tessel_cuda_stream_synchronize(stream));
  expectUnavailable(tessel_cuda_stream_query(stream, &value));
  expectUnavailable(tessel_cuda_malloc_async(4, stream, &ptr));
  expectUnavailable(tessel_cuda_free_async(ptr, stream));
  expectUnavailable(tessel_cuda_host_alloc(device, 4, &host));
  expectUnavailable(tessel_cuda_host_free(device, host));
  expectUnavailable(tessel_cuda_memcpy_htod_async(ptr, bytes, 4, stream));
  expectUnavailable(tessel_cuda_memcpy_dtoh_async(bytes, ptr, 4, stream));
  expectUnavailable(tessel_cuda_memcpy_dtod_async(ptr, ptr, 4, stream));
  expectUnavailable(tessel_cuda_event_create(device, 0, &event));
  expectUnavailable(tessel_cuda_event_record(event, stream));
  expectUnavailable(tessel_cuda_stream_wait_event(stream, event));
  expectUnavailable(tessel_cuda_event_query(event, &value));
  expectUnavailable(tessel_cuda_event_synchronize(event));
  expectUnavailable(tessel_cuda_event_elapsed_ms(event, event, &ms));
  expectUnavailable(tessel_cuda_module_load(device, bytes, 4, &module));
  expectUnavailable(tessel_cuda_module_get_function(module, "k", &function));
  expectUnavailable(tessel_cuda_launch(function, &config, nullptr, stream));
  EXPECT_EQ(tessel_cuda_device_ordinal(device), -1);
  EXPECT_EQ(tessel_cuda_device_name(device), nullptr);
  EXPECT_EQ(tessel_cuda_device_total_memory(device), 0u);
  EXPECT_EQ(tessel_cuda_stream_native(stream), nullptr);
  tessel_cuda_device_retain(device);
  tessel_cuda_device_release(device);
  tessel_cuda_stream_release(stream);
  tessel_cuda_event_release(event);
  tessel_cuda_module_release(module);
  EXPECT_EQ(device, nullptr);
}

TEST(CudaUnavailable, TheCpuApiWorks) { expectCpuModelRuns(); }

} // namespace
