//===- CudaFakeTest.cpp - The CUDA layer on a fake driver -----------------===//
//
// The success paths of tessel/cuda.h, run on fixtures/fake_cuda.c: a driver
// that behaves plausibly, checks that a context is current, and counts its
// objects, so that these tests see what the runtime asked of the driver.
// They test the runtime's use of the driver API, not CUDA.
//
//===----------------------------------------------------------------------===//

#include "CudaTestUtil.h"

#include <gmock/gmock.h>

#include <cstring>
#include <cuda.h> // the driver's types and constants, as the fake uses them
#include <dlfcn.h>
#include <thread>
#include <vector>

using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

/// The fake driver's inspection hooks, from the copy the runtime loaded.
class Fake {
public:
  bool open() {
    handle = dlopen(TESSEL_CUDA_FAKE_DRIVER, RTLD_NOW | RTLD_NOLOAD);
    return handle != nullptr;
  }
  int get(const char *name) {
    auto hook = reinterpret_cast<int (*)()>(dlsym(handle, name));
    EXPECT_NE(hook, nullptr) << name;
    return hook ? hook() : -1;
  }
  template <typename F> F symbol(const char *name) {
    return reinterpret_cast<F>(dlsym(handle, name));
  }
  int calls() { return get("fake_cuda_calls"); }
  void failNext(const char *call, int result) {
    symbol<void (*)(const char *, int)>("fake_cuda_fail_next")(call, result);
  }
  void setBusy(int busy) { symbol<void (*)(int)>("fake_cuda_set_busy")(busy); }

private:
  void *handle = nullptr;
};

class CudaFake : public ::testing::Test {
protected:
  void SetUp() override {
    TESSEL_EXPECT_DRIVER(TESSEL_CUDA_FAKE_DRIVER);
    int32_t count = 0;
    StatusResult result = take(tessel_cuda_device_count(&count));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    ASSERT_EQ(count, 1);
    ASSERT_TRUE(fake.open());
    result = take(tessel_cuda_device_open(0, &device));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    result = take(tessel_cuda_stream_create(device, &stream));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  }
  void TearDown() override {
    if (!device)
      return;
    tessel_cuda_stream_release(stream);
    tessel_cuda_device_release(device);
    // Every driver object the runtime made, it destroyed.
    EXPECT_EQ(fake.get("fake_cuda_context_references"), 0);
    EXPECT_EQ(fake.get("fake_cuda_live_streams"), 0);
    EXPECT_EQ(fake.get("fake_cuda_live_events"), 0);
    EXPECT_EQ(fake.get("fake_cuda_live_modules"), 0);
    EXPECT_EQ(fake.get("fake_cuda_live_device_allocs"), 0);
    EXPECT_EQ(fake.get("fake_cuda_live_host_allocs"), 0);
  }

  Fake fake;
  tessel_cuda_device *device = nullptr;
  tessel_cuda_stream *stream = nullptr;
};

TEST_F(CudaFake, DescribesTheDevice) {
  int32_t version = 0, major = 0, minor = 0;
  ASSERT_EQ(take(tessel_cuda_driver_version(&version)).code, TESSEL_OK);
  EXPECT_EQ(version, 13000);
  EXPECT_STREQ(tessel_cuda_device_name(device), "Fake GPU");
  EXPECT_EQ(tessel_cuda_device_ordinal(device), 0);
  ASSERT_EQ(
      take(tessel_cuda_device_compute_capability(device, &major, &minor)).code,
      TESSEL_OK);
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 0);
  EXPECT_EQ(tessel_cuda_device_total_memory(device), uint64_t(1) << 30);
  // One primary context reference per open handle; a non-blocking stream.
  EXPECT_EQ(fake.get("fake_cuda_context_references"), 1);
  EXPECT_EQ(fake.get("fake_cuda_last_stream_flags"), CU_STREAM_NON_BLOCKING);
  EXPECT_NE(tessel_cuda_stream_native(stream), nullptr);
}

TEST_F(CudaFake, AnUnknownOrdinalIsAnInvalidArgument) {
  tessel_cuda_device *other = nullptr;
  StatusResult result = take(tessel_cuda_device_open(1, &other));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE "
                            "(101): invalid device ordinal");
  EXPECT_EQ(other, nullptr);
  EXPECT_EQ(fake.get("fake_cuda_context_references"), 1);
}

TEST_F(CudaFake, CopiesRoundTripThroughDeviceMemory) {
  std::vector<uint8_t> in(1000), out(1000, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7 + 3);
  tessel_cuda_ptr a = 0, b = 0;
  ASSERT_EQ(take(tessel_cuda_malloc_async(in.size(), stream, &a)).code,
            TESSEL_OK);
  ASSERT_EQ(take(tessel_cuda_malloc_async(in.size(), stream, &b)).code,
            TESSEL_OK);
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(
      take(tessel_cuda_memcpy_htod_async(a, in.data(), in.size(), stream)).code,
      TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_memcpy_dtod_async(b, a, in.size(), stream)).code,
            TESSEL_OK);
  EXPECT_EQ(
      take(tessel_cuda_memcpy_dtoh_async(out.data(), b, out.size(), stream))
          .code,
      TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_free_async(a, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_free_async(b, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_stream_synchronize(stream)).code, TESSEL_OK);
  EXPECT_EQ(in, out);
}

TEST_F(CudaFake, DriverErrorsKeepTheirNameNumberAndDescription) {
  // A copy past the end of an allocation: the driver's invalid value.
  tessel_cuda_ptr a = 0;
  ASSERT_EQ(take(tessel_cuda_malloc_async(8, stream, &a)).code, TESSEL_OK);
  char bytes[16] = {};
  StatusResult result =
      take(tessel_cuda_memcpy_htod_async(a, bytes, sizeof(bytes), stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "cuMemcpyHtoDAsync failed: "
                            "CUDA_ERROR_INVALID_VALUE (1): invalid argument");
  EXPECT_EQ(take(tessel_cuda_free_async(a, stream)).code, TESSEL_OK);

  fake.failNext("cuMemAllocFromPoolAsync", CUDA_ERROR_OUT_OF_MEMORY);
  a = 0;
  result = take(tessel_cuda_malloc_async(8, stream, &a));
  EXPECT_EQ(result.code, TESSEL_OUT_OF_MEMORY);
  EXPECT_EQ(result.message, "cuMemAllocFromPoolAsync failed: "
                            "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
  EXPECT_EQ(a, 0u);

  fake.failNext("cuStreamSynchronize", CUDA_ERROR_LAUNCH_FAILED);
  result = take(tessel_cuda_stream_synchronize(stream));
  EXPECT_EQ(result.code, TESSEL_RUNTIME_ERROR);
  EXPECT_EQ(result.message,
            "cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (719): "
            "unspecified launch failure");

  // A code the fake cannot name: the name comes from cuda.h.
  fake.failNext("cuEventSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS);
  tessel_cuda_event *event = nullptr;
  ASSERT_EQ(take(tessel_cuda_event_create(device, 0, &event)).code, TESSEL_OK);
  result = take(tessel_cuda_event_synchronize(event));
  EXPECT_EQ(result.code, TESSEL_RUNTIME_ERROR);
  EXPECT_EQ(result.message,
            "cuEventSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): the "
            "driver gives no description");
  tessel_cuda_event_release(event);
}

TEST_F(CudaFake, EveryCallMakesTheContextCurrentOnItsThread) {
  // The fake refuses work on a thread where its context is not current.
  std::vector<float> in(16, 2.0f), out(16, 0.0f);
  StatusResult results[5];
  std::thread worker([&] {
    tessel_cuda_ptr a = 0;
    results[0] = take(tessel_cuda_malloc_async(64, stream, &a));
    results[1] = take(tessel_cuda_memcpy_htod_async(a, in.data(), 64, stream));
    results[2] = take(tessel_cuda_memcpy_dtoh_async(out.data(), a, 64, stream));
    results[3] = take(tessel_cuda_free_async(a, stream));
    results[4] = take(tessel_cuda_stream_synchronize(stream));
  });
  worker.join();
  for (const StatusResult &result : results)
    EXPECT_EQ(result.code, TESSEL_OK) << result.message;
  EXPECT_EQ(in, out);

  // Someone else clears the current context on this thread.
  auto setCurrent = fake.symbol<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
  ASSERT_NE(setCurrent, nullptr);
  ASSERT_EQ(setCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(take(tessel_cuda_stream_synchronize(stream)).code, TESSEL_OK);
}

TEST_F(CudaFake, HandlesKeepTheirDeviceAlive) {
  tessel_cuda_event *event = nullptr;
  ASSERT_EQ(take(tessel_cuda_event_create(device, 0, &event)).code, TESSEL_OK);
  tessel_cuda_device_release(device); // the stream and event hold it
  device = nullptr;
  EXPECT_EQ(fake.get("fake_cuda_context_references"), 1);
  EXPECT_EQ(take(tessel_cuda_event_record(event, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_event_synchronize(event)).code, TESSEL_OK);
  tessel_cuda_event_release(event);
  EXPECT_EQ(fake.get("fake_cuda_context_references"), 1);
  tessel_cuda_stream_release(stream);
  stream = nullptr;
  EXPECT_EQ(fake.get("fake_cuda_context_references"), 0);
  EXPECT_EQ(fake.get("fake_cuda_live_streams"), 0);
  EXPECT_EQ(fake.get("fake_cuda_live_events"), 0);
}

TEST_F(CudaFake, EventsRecordQueryWaitAndTime) {
  tessel_cuda_event *start = nullptr, *end = nullptr, *plain = nullptr;
  ASSERT_EQ(
      take(tessel_cuda_event_create(device, TESSEL_CUDA_EVENT_TIMING, &start))
          .code,
      TESSEL_OK);
  ASSERT_EQ(
      take(tessel_cuda_event_create(device, TESSEL_CUDA_EVENT_TIMING, &end))
          .code,
      TESSEL_OK);
  ASSERT_EQ(take(tessel_cuda_event_create(device, 0, &plain)).code, TESSEL_OK);
  tessel_cuda_stream *other = nullptr;
  ASSERT_EQ(take(tessel_cuda_stream_create(device, &other)).code, TESSEL_OK);

  EXPECT_EQ(take(tessel_cuda_event_record(start, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_event_record(plain, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_event_record(end, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_stream_wait_event(other, end)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_event_synchronize(end)).code, TESSEL_OK);
  float ms = -1;
  EXPECT_EQ(take(tessel_cuda_event_elapsed_ms(start, end, &ms)).code,
            TESSEL_OK);
  EXPECT_EQ(ms, 1.0f); // the fake's clock: 0.5 ms per record

  int32_t ready = -1;
  EXPECT_EQ(take(tessel_cuda_event_query(end, &ready)).code, TESSEL_OK);
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(take(tessel_cuda_stream_query(stream, &ready)).code, TESSEL_OK);
  EXPECT_EQ(ready, 1);
  fake.setBusy(1); // CUDA_ERROR_NOT_READY is "not yet", not an error
  EXPECT_EQ(take(tessel_cuda_event_query(end, &ready)).code, TESSEL_OK);
  EXPECT_EQ(ready, 0);
  ready = -1;
  EXPECT_EQ(take(tessel_cuda_stream_query(stream, &ready)).code, TESSEL_OK);
  EXPECT_EQ(ready, 0);
  fake.setBusy(0);

  // Timing needs timing events on both ends; checked before the driver.
  int calls = fake.calls();
  StatusResult result = take(tessel_cuda_event_elapsed_ms(start, plain, &ms));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("the end event was created without "
                                        "TESSEL_CUDA_EVENT_TIMING"));
  tessel_cuda_event *bad = nullptr;
  result = take(tessel_cuda_event_create(device, 2, &bad));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("unknown flags 2"));
  EXPECT_EQ(fake.calls(), calls);

  tessel_cuda_stream_release(other);
  tessel_cuda_event_release(start);
  tessel_cuda_event_release(end);
  tessel_cuda_event_release(plain);
}

TEST_F(CudaFake, ModulesLoadAndKernelsLaunch) {
  const std::string garbage = "not a module";
  tessel_cuda_module *module = nullptr;
  StatusResult result = take(
      tessel_cuda_module_load(device, garbage.data(), garbage.size(), &module));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_EQ(result.message, "cuModuleLoadData failed: "
                            "CUDA_ERROR_INVALID_IMAGE (200): device kernel "
                            "image is invalid");
  EXPECT_EQ(module, nullptr);

  const std::string image = "FAKE-MODULE add_one";
  ASSERT_EQ(
      take(tessel_cuda_module_load(device, image.data(), image.size(), &module))
          .code,
      TESSEL_OK);
  const tessel_cuda_function *missing = nullptr, *kernel = nullptr,
                             *again = nullptr;
  result = take(tessel_cuda_module_get_function(module, "add_two", &missing));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_EQ(result.message, "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND "
                            "(500): named symbol not found (kernel 'add_two')");
  ASSERT_EQ(
      take(tessel_cuda_module_get_function(module, "add_one", &kernel)).code,
      TESSEL_OK);
  ASSERT_EQ(
      take(tessel_cuda_module_get_function(module, "add_one", &again)).code,
      TESSEL_OK);
  EXPECT_EQ(kernel, again);

  std::vector<float> values(10, 1.5f);
  tessel_cuda_ptr data = 0;
  ASSERT_EQ(
      take(tessel_cuda_malloc_async(values.size() * 4, stream, &data)).code,
      TESSEL_OK);
  ASSERT_EQ(take(tessel_cuda_memcpy_htod_async(data, values.data(),
                                               values.size() * 4, stream))
                .code,
            TESSEL_OK);
  int n = 10;
  void *params[] = {&data, &n};
  // 2 blocks of 4 threads: the fake adds 1 to the first 8 values.
  tessel_cuda_launch_config config{sizeof(config), {2, 1, 1}, {4, 1, 1}, 0};
  EXPECT_EQ(take(tessel_cuda_launch(kernel, &config, params, stream)).code,
            TESSEL_OK);
  config.block[0] = 2048;
  result = take(tessel_cuda_launch(kernel, &config, params, stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message,
              HasSubstr("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"));
  ASSERT_EQ(take(tessel_cuda_memcpy_dtoh_async(values.data(), data,
                                               values.size() * 4, stream))
                .code,
            TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_free_async(data, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_stream_synchronize(stream)).code, TESSEL_OK);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(values[i], i < 8 ? 2.5f : 1.5f) << i;

  // A bad geometry is refused before the driver.
  int calls = fake.calls();
  config = {sizeof(config), {1, 0, 1}, {32, 1, 1}, 0};
  result = take(tessel_cuda_launch(kernel, &config, params, stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("the grid extent y is 0"));
  config = {0, {1, 1, 1}, {32, 1, 1}, 0};
  result = take(tessel_cuda_launch(kernel, &config, params, stream));
  EXPECT_EQ(result.code, TESSEL_INVALID_ARGUMENT);
  EXPECT_THAT(result.message, HasSubstr("struct_size is 0"));
  EXPECT_EQ(fake.calls(), calls);

  tessel_cuda_module_release(module);
  EXPECT_EQ(fake.get("fake_cuda_live_modules"), 0);
}

TEST_F(CudaFake, PinnedHostMemoryAndThePool) {
  void *host = nullptr;
  ASSERT_EQ(take(tessel_cuda_host_alloc(device, 4096, &host)).code, TESSEL_OK);
  ASSERT_NE(host, nullptr);
  std::memset(host, 0x5a, 4096); // it is host memory
  EXPECT_EQ(fake.get("fake_cuda_live_host_allocs"), 1);
  EXPECT_EQ(take(tessel_cuda_host_free(device, host)).code, TESSEL_OK);

  ASSERT_EQ(
      take(tessel_cuda_device_set_pool_release_threshold(device, UINT64_MAX))
          .code,
      TESSEL_OK);
  auto threshold =
      fake.symbol<unsigned long long (*)()>("fake_cuda_pool_release_threshold");
  ASSERT_NE(threshold, nullptr);
  EXPECT_EQ(threshold(), UINT64_MAX);
}

TEST_F(CudaFake, EmptyAndBadRequestsDoNotReachTheDriver) {
  int calls = fake.calls();
  tessel_cuda_ptr ptr = 1;
  void *host = &ptr;
  tessel_cuda_module *module = nullptr;
  char bytes[4] = {};
  // Nothing to do.
  EXPECT_EQ(take(tessel_cuda_malloc_async(0, stream, &ptr)).code, TESSEL_OK);
  EXPECT_EQ(ptr, 0u);
  EXPECT_EQ(take(tessel_cuda_free_async(0, stream)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_host_alloc(device, 0, &host)).code, TESSEL_OK);
  EXPECT_EQ(host, nullptr);
  EXPECT_EQ(take(tessel_cuda_host_free(device, nullptr)).code, TESSEL_OK);
  EXPECT_EQ(take(tessel_cuda_memcpy_htod_async(0, nullptr, 0, stream)).code,
            TESSEL_OK);
  // Wrong.
  expectInvalidArgument(tessel_cuda_memcpy_htod_async(16, nullptr, 4, stream),
                        "src is NULL (or 0) for 4 bytes");
  expectInvalidArgument(tessel_cuda_memcpy_htod_async(0, bytes, 4, stream),
                        "dst is NULL (or 0) for 4 bytes");
  expectInvalidArgument(tessel_cuda_memcpy_dtoh_async(nullptr, 16, 4, stream),
                        "dst is NULL");
  expectInvalidArgument(tessel_cuda_memcpy_dtod_async(16, 0, 4, stream),
                        "src is NULL");
  expectInvalidArgument(tessel_cuda_malloc_async(4, stream, nullptr),
                        "out_ptr is NULL");
  expectInvalidArgument(tessel_cuda_stream_query(stream, nullptr),
                        "out_ready is NULL");
  expectInvalidArgument(tessel_cuda_module_load(device, bytes, 0, &module),
                        "the image is empty");
  expectInvalidArgument(tessel_cuda_module_load(device, nullptr, 4, &module),
                        "image is NULL");
  expectInvalidArgument(tessel_cuda_event_record(nullptr, stream),
                        "event is NULL");
  expectInvalidArgument(
      tessel_cuda_device_compute_capability(device, nullptr, nullptr),
      "out_major is NULL");
  EXPECT_EQ(fake.calls(), calls);
}

} // namespace
