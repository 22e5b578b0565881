//===- driver.h - The CUDA driver, loaded with dlopen -----------*- C++ -*-===//
//
// Internal to the runtime library. The runtime never links libcuda: it
// loads the driver at first use and calls it through the pointers below.
// <cuda.h> supplies the types, the constants and, through its macros, the
// versioned symbol names (cuMemcpyHtoDAsync is cuMemcpyHtoDAsync_v2, ...):
// each member is named and typed as the macro expands, and resolved by that
// expanded name.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CUDA_DRIVER_H
#define TESSEL_RUNTIME_CUDA_DRIVER_H

#include "../core/status.h"

#include <cuda.h>

namespace tessel::runtime::cuda {

/// Every driver entry point the runtime calls.
#define TESSEL_CUDA_ENTRY_POINTS(X)                                            \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemFreeAsync)                                                            \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamQuery)                                                             \
  X(cuStreamWaitEvent)                                                         \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)

/// The resolved entry points of a loaded, initialized driver.
struct Driver {
#define TESSEL_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  TESSEL_CUDA_ENTRY_POINTS(TESSEL_CUDA_DECLARE)
#undef TESSEL_CUDA_DECLARE
  /// The library loaded: TESSEL_CUDA_DRIVER, or "libcuda.so.1".
  std::string path;
};

/// Loads the driver (once per process, thread-safe) and calls cuInit(0).
/// On success stores it in `*out` (static storage, never unloaded); on
/// failure returns a TESSEL_INCOMPATIBLE status, the same message on every
/// call.
tessel_status loadDriver(const Driver **out);

/// Returns NULL when `result` is CUDA_SUCCESS, otherwise a status whose code
/// follows `result` (see tessel/cuda.h) and whose message reads
/// "<call> failed: <NAME> (<number>): <description>".
tessel_status check(const Driver &driver, CUresult result, const char *call);

/// The name of `result` ("CUDA_ERROR_NO_DEVICE"), from the driver, or from
/// cuda.h's enumerators when the driver cannot say (a stub library cannot).
std::string errorName(const Driver &driver, CUresult result);

} // namespace tessel::runtime::cuda

/// Calls `driver.fn(args...)` and returns check()'s status for it, named by
/// the API name ("cuStreamDestroy", not the versioned symbol).
#define TESSEL_CU(driver, fn, ...)                                             \
  ::tessel::runtime::cuda::check((driver), (driver).fn(__VA_ARGS__), #fn)

#endif // TESSEL_RUNTIME_CUDA_DRIVER_H
