//===- CudaTest.cpp - The CUDA layer without a usable driver --------------===//
//
// What tessel/cuda.h does on machines that cannot run CUDA: argument checks
// that come before the driver, a driver that cannot be loaded, the toolkit's
// stub library, a library that is not a driver; and that the CPU API keeps
// working in the same process. See CudaTestUtil.h for how each runs.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"

#include <gmock/gmock.h>

#include <dlfcn.h>
#include <unistd.h>

using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

void expectInvalid(tessel_status status, const char *function) {
  expectInvalidArgument(status, function);
}

// Run where the driver cannot be loaded: a code other than
// TESSEL_INVALID_ARGUMENT would mean the driver was tried first.
TEST(CudaArgs, NullArgumentsAreRefusedBeforeTheDriver) {
  TESSEL_EXPECT_DRIVER(TESSEL_CUDA_MISSING_DRIVER);
  int32_t value = 0;
  float ms = 0;
  void *host = nullptr;
  tessel_cuda_ptr ptr = 0;
  char bytes[4] = {};
  tessel_cuda_device *device = nullptr;
  tessel_cuda_stream *stream = nullptr;
  tessel_cuda_event *event = nullptr;
  tessel_cuda_module *module = nullptr;
  const tessel_cuda_function *function = nullptr;
  tessel_cuda_launch_config config{sizeof(config), {1, 1, 1}, {1, 1, 1}, 0};

  expectInvalid(tessel_cuda_driver_version(nullptr),
                "tessel_cuda_driver_version");
  expectInvalid(tessel_cuda_device_count(nullptr), "tessel_cuda_device_count");
  expectInvalid(tessel_cuda_device_open(0, nullptr), "tessel_cuda_device_open");
  expectInvalid(tessel_cuda_device_open(-1, &device),
                "tessel_cuda_device_open");
  expectInvalid(tessel_cuda_device_compute_capability(nullptr, &value, &value),
                "tessel_cuda_device_compute_capability");
  expectInvalid(tessel_cuda_device_set_pool_release_threshold(nullptr, 0),
                "tessel_cuda_device_set_pool_release_threshold");
  expectInvalid(tessel_cuda_stream_create(nullptr, &stream),
                "tessel_cuda_stream_create");
  expectInvalid(tessel_cuda_stream_synchronize(nullptr),
                "tessel_cuda_stream_synchronize");
  expectInvalid(tessel_cuda_stream_query(nullptr, &value),
                "tessel_cuda_stream_query");
  expectInvalid(tessel_cuda_malloc_async(16, nullptr, &ptr),
                "tessel_cuda_malloc_async");
  expectInvalid(tessel_cuda_free_async(0, nullptr), "tessel_cuda_free_async");
  expectInvalid(tessel_cuda_host_alloc(nullptr, 16, &host),
                "tessel_cuda_host_alloc");
  expectInvalid(tessel_cuda_host_free(nullptr, bytes), "tessel_cuda_host_free");
  expectInvalid(tessel_cuda_memcpy_htod_async(1, bytes, 4, nullptr),
                "tessel_cuda_memcpy_htod_async");
  expectInvalid(tessel_cuda_memcpy_dtoh_async(bytes, 1, 4, nullptr),
                "tessel_cuda_memcpy_dtoh_async");
  expectInvalid(tessel_cuda_memcpy_dtod_async(1, 2, 4, nullptr),
                "tessel_cuda_memcpy_dtod_async");
  expectInvalid(tessel_cuda_event_create(nullptr, 0, &event),
                "tessel_cuda_event_create");
  expectInvalid(tessel_cuda_event_record(nullptr, nullptr),
                "tessel_cuda_event_record");
  expectInvalid(tessel_cuda_stream_wait_event(nullptr, nullptr),
                "tessel_cuda_stream_wait_event");
  expectInvalid(tessel_cuda_event_query(nullptr, &value),
                "tessel_cuda_event_query");
  expectInvalid(tessel_cuda_event_synchronize(nullptr),
                "tessel_cuda_event_synchronize");
  expectInvalid(tessel_cuda_event_elapsed_ms(nullptr, nullptr, &ms),
                "tessel_cuda_event_elapsed_ms");
  expectInvalid(tessel_cuda_module_load(nullptr, bytes, 4, &module),
                "tessel_cuda_module_load");
  expectInvalid(tessel_cuda_module_get_function(nullptr, "k", &function),
                "tessel_cuda_module_get_function");
  expectInvalid(tessel_cuda_launch(nullptr, &config, nullptr, nullptr),
                "tessel_cuda_launch");
  // Nothing was written.
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(function, nullptr);
  EXPECT_EQ(ptr, 0u);
  EXPECT_EQ(host, nullptr);
}

TEST(CudaArgs, AccessorsAndReleasesAcceptNull) {
  EXPECT_EQ(tessel_cuda_device_ordinal(nullptr), -1);
  EXPECT_EQ(tessel_cuda_device_name(nullptr), nullptr);
  EXPECT_EQ(tessel_cuda_device_total_memory(nullptr), 0u);
  EXPECT_EQ(tessel_cuda_stream_native(nullptr), nullptr);
  tessel_cuda_device_retain(nullptr);
  tessel_cuda_device_release(nullptr);
  tessel_cuda_stream_release(nullptr);
  tessel_cuda_event_release(nullptr);
  tessel_cuda_module_release(nullptr);
}

TEST(CudaNoDriver, SaysWhichLibraryFailedToLoadAndWhy) {
  TESSEL_EXPECT_DRIVER(TESSEL_CUDA_MISSING_DRIVER);
  // What dlopen itself says about the path.
  ASSERT_EQ(dlopen(TESSEL_CUDA_MISSING_DRIVER, RTLD_NOW), nullptr);
  std::string reason = dlerror();

  int32_t count = -1;
  StatusResult result = take(tessel_cuda_device_count(&count));
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("cannot load the CUDA driver '" +
                        std::string(TESSEL_CUDA_MISSING_DRIVER) +
                        "' named by TESSEL_CUDA_DRIVER"));
  EXPECT_THAT(result.message, HasSubstr(reason));
  EXPECT_EQ(count, -1);

  // Every later call says the same; nothing is retried.
  tessel_cuda_device *device = nullptr;
  StatusResult open = take(tessel_cuda_device_open(0, &device));
  EXPECT_EQ(open.code, TESSEL_INCOMPATIBLE);
  EXPECT_EQ(open.message, result.message);
  EXPECT_EQ(device, nullptr);
  int32_t version = -1;
  EXPECT_EQ(take(tessel_cuda_driver_version(&version)).message, result.message);
  EXPECT_EQ(version, -1);
}

TEST(CudaNoDriver, TheCpuApiStillWorks) {
  TESSEL_EXPECT_DRIVER(TESSEL_CUDA_MISSING_DRIVER);
  int32_t count = 0;
  EXPECT_EQ(take(tessel_cuda_device_count(&count)).code, TESSEL_INCOMPATIBLE);
  expectCpuModelRuns();
}

TEST(CudaStub, SaysTheDriverIsTheToolkitsStub) {
  TESSEL_EXPECT_DRIVER(TESSEL_CUDA_STUB_DRIVER);
  if (access(TESSEL_CUDA_STUB_DRIVER, R_OK) != 0)
    GTEST_SKIP() << TESSEL_CUDA_STUB_DRIVER
                 << " does not exist: this machine's CUDA toolkit has no stub "
                    "driver library";
  int32_t count = -1;
  StatusResult result = take(tessel_cuda_device_count(&count));
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  // The stub cannot name its own errors: the name comes from cuda.h.
  EXPECT_THAT(result.message,
              HasSubstr("cuInit failed: CUDA_ERROR_STUB_LIBRARY (34): "));
  EXPECT_THAT(result.message, HasSubstr("stub library"));
  EXPECT_THAT(result.message, HasSubstr(TESSEL_CUDA_STUB_DRIVER));
  EXPECT_EQ(count, -1);
  tessel_cuda_device *device = nullptr;
  EXPECT_EQ(take(tessel_cuda_device_open(0, &device)).message, result.message);
  expectCpuModelRuns();
}

TEST(CudaNotADriver, NamesTheMissingEntryPoint) {
  TESSEL_EXPECT_DRIVER(TESSEL_CUDA_NOT_A_DRIVER);
  int32_t count = -1;
  StatusResult result = take(tessel_cuda_device_count(&count));
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("the CUDA driver '" +
                        std::string(TESSEL_CUDA_NOT_A_DRIVER) +
                        "' named by TESSEL_CUDA_DRIVER does not export "
                        "cuGetErrorName: not a CUDA driver"));
  expectCpuModelRuns();
}

} // namespace
