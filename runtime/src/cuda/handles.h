//===- handles.h - The objects behind tessel/cuda.h's handles ---*- C++ -*-===//
//
// Internal to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CUDA_HANDLES_H
#define TESSEL_RUNTIME_CUDA_HANDLES_H

#include "driver.h"

#include "tessel/cuda.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

/// A device and a reference to its primary context. Reference counted.
struct tessel_cuda_device {
  const tessel::runtime::cuda::Driver *driver = nullptr;
  std::atomic<int> references{1};
  int32_t ordinal = -1;
  CUdevice device = 0;
  CUcontext context = nullptr; // retained; released by the destructor
  CUmemoryPool pool = nullptr; // the device's default pool
  std::string name;
  int32_t major = 0, minor = 0;
  uint64_t totalMemory = 0;

  tessel_cuda_device() = default;
  tessel_cuda_device(const tessel_cuda_device &) = delete;
  tessel_cuda_device &operator=(const tessel_cuda_device &) = delete;
  ~tessel_cuda_device();
};

struct tessel_cuda_stream {
  tessel_cuda_device *device; // one reference
  CUstream stream = nullptr;
};

struct tessel_cuda_event {
  tessel_cuda_device *device; // one reference
  CUevent event = nullptr;
  bool timing = false;
};

struct tessel_cuda_function {
  tessel_cuda_module *module;
  CUfunction function = nullptr;
};

struct tessel_cuda_module {
  tessel_cuda_device *device; // one reference
  CUmodule module = nullptr;
  std::mutex mutex; // guards functions
  std::map<std::string, std::unique_ptr<tessel_cuda_function>> functions;
};

namespace tessel::runtime::cuda {

/// Makes the device's primary context current on the calling thread.
inline tessel_status makeCurrent(const tessel_cuda_device &device) {
  return TESSEL_CU(*device.driver, cuCtxSetCurrent, device.context);
}

/// A status "<function>: <what> is NULL".
inline tessel_status nullArgument(const char *function, const char *what) {
  return makeStatus(TESSEL_INVALID_ARGUMENT,
                    std::string(function) + ": " + what + " is NULL");
}

} // namespace tessel::runtime::cuda

#endif // TESSEL_RUNTIME_CUDA_HANDLES_H
