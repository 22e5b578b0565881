//===- device.cpp - The driver, devices and host memory -------------------===//

#include "handles.h"

#include <limits>

using namespace tessel::runtime;
using namespace tessel::runtime::cuda;

tessel_cuda_device::~tessel_cuda_device() {
  if (context)
    driver->cuDevicePrimaryCtxRelease(device); // nothing to do on failure
}

namespace {

/// Reads what the accessors return, and the default memory pool.
tessel_status describeDevice(tessel_cuda_device &device) {
  const Driver &driver = *device.driver;
  char name[256] = {};
  if (tessel_status status = TESSEL_CU(driver, cuDeviceGetName, name,
                                       sizeof(name) - 1, device.device))
    return status;
  device.name = name;
  int major = 0, minor = 0;
  if (tessel_status status = TESSEL_CU(
          driver, cuDeviceGetAttribute, &major,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device.device))
    return status;
  if (tessel_status status = TESSEL_CU(
          driver, cuDeviceGetAttribute, &minor,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device.device))
    return status;
  device.major = major;
  device.minor = minor;
  size_t bytes = 0;
  if (tessel_status status =
          TESSEL_CU(driver, cuDeviceTotalMem, &bytes, device.device))
    return status;
  device.totalMemory = bytes;
  return TESSEL_CU(driver, cuDeviceGetDefaultMemPool, &device.pool,
                   device.device);
}

} // namespace

extern "C" {

tessel_status tessel_cuda_driver_version(int32_t *out_version) {
  return guard([&]() -> tessel_status {
    if (!out_version)
      return nullArgument("tessel_cuda_driver_version", "out_version");
    const Driver *driver = nullptr;
    if (tessel_status status = loadDriver(&driver))
      return status;
    int version = 0;
    if (tessel_status status = TESSEL_CU(*driver, cuDriverGetVersion, &version))
      return status;
    *out_version = version;
    return nullptr;
  });
}

tessel_status tessel_cuda_device_count(int32_t *out_count) {
  return guard([&]() -> tessel_status {
    if (!out_count)
      return nullArgument("tessel_cuda_device_count", "out_count");
    const Driver *driver = nullptr;
    if (tessel_status status = loadDriver(&driver))
      return status;
    int count = 0;
    if (tessel_status status = TESSEL_CU(*driver, cuDeviceGetCount, &count))
      return status;
    *out_count = count;
    return nullptr;
  });
}

tessel_status tessel_cuda_device_open(int32_t ordinal,
                                      tessel_cuda_device **out_device) {
  return guard([&]() -> tessel_status {
    if (!out_device)
      return nullArgument("tessel_cuda_device_open", "out_device");
    if (ordinal < 0)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_cuda_device_open: ordinal " +
                            std::to_string(ordinal) + " is negative");
    const Driver *driver = nullptr;
    if (tessel_status status = loadDriver(&driver))
      return status;
    auto device = std::make_unique<tessel_cuda_device>();
    device->driver = driver;
    device->ordinal = ordinal;
    if (tessel_status status =
            TESSEL_CU(*driver, cuDeviceGet, &device->device, ordinal))
      return status;
    CUcontext context = nullptr;
    if (tessel_status status = TESSEL_CU(*driver, cuDevicePrimaryCtxRetain,
                                         &context, device->device))
      return status;
    device->context = context; // from here on the destructor releases it
    if (tessel_status status = makeCurrent(*device))
      return status;
    if (tessel_status status = describeDevice(*device))
      return status;
    *out_device = device.release();
    return nullptr;
  });
}

void tessel_cuda_device_retain(tessel_cuda_device *device) {
  if (device)
    device->references.fetch_add(1, std::memory_order_relaxed);
}

void tessel_cuda_device_release(tessel_cuda_device *device) {
  if (device && device->references.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete device;
}

int32_t tessel_cuda_device_ordinal(const tessel_cuda_device *device) {
  return device ? device->ordinal : -1;
}

const char *tessel_cuda_device_name(const tessel_cuda_device *device) {
  return device ? device->name.c_str() : nullptr;
}

tessel_status
tessel_cuda_device_compute_capability(const tessel_cuda_device *device,
                                      int32_t *out_major, int32_t *out_minor) {
  return guard([&]() -> tessel_status {
    const char *function = "tessel_cuda_device_compute_capability";
    if (!device)
      return nullArgument(function, "device");
    if (!out_major)
      return nullArgument(function, "out_major");
    if (!out_minor)
      return nullArgument(function, "out_minor");
    *out_major = device->major;
    *out_minor = device->minor;
    return nullptr;
  });
}

uint64_t tessel_cuda_device_total_memory(const tessel_cuda_device *device) {
  return device ? device->totalMemory : 0;
}

tessel_status
tessel_cuda_device_set_pool_release_threshold(tessel_cuda_device *device,
                                              uint64_t bytes) {
  return guard([&]() -> tessel_status {
    if (!device)
      return nullArgument("tessel_cuda_device_set_pool_release_threshold",
                          "device");
    if (tessel_status status = makeCurrent(*device))
      return status;
    cuuint64_t value = bytes;
    return TESSEL_CU(*device->driver, cuMemPoolSetAttribute, device->pool,
                     CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value);
  });
}

tessel_status tessel_cuda_host_alloc(tessel_cuda_device *device, size_t size,
                                     void **out_ptr) {
  return guard([&]() -> tessel_status {
    if (!device)
      return nullArgument("tessel_cuda_host_alloc", "device");
    if (!out_ptr)
      return nullArgument("tessel_cuda_host_alloc", "out_ptr");
    if (size == 0) {
      *out_ptr = nullptr;
      return nullptr;
    }
    if (tessel_status status = makeCurrent(*device))
      return status;
    void *ptr = nullptr;
    if (tessel_status status = TESSEL_CU(*device->driver, cuMemHostAlloc, &ptr,
                                         size, CU_MEMHOSTALLOC_PORTABLE))
      return status;
    *out_ptr = ptr;
    return nullptr;
  });
}

tessel_status tessel_cuda_host_free(tessel_cuda_device *device, void *ptr) {
  return guard([&]() -> tessel_status {
    if (!device)
      return nullArgument("tessel_cuda_host_free", "device");
    if (!ptr)
      return nullptr;
    if (tessel_status status = makeCurrent(*device))
      return status;
    return TESSEL_CU(*device->driver, cuMemFreeHost, ptr);
  });
}

} // extern "C"
