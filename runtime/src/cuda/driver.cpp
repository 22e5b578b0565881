//===- driver.cpp - Loading the CUDA driver and naming its errors ---------===//

#include "driver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace tessel::runtime::cuda {

#define TESSEL_CUDA_STRINGIFY_EXPANDED(x) TESSEL_CUDA_STRINGIFY(x)
#define TESSEL_CUDA_STRINGIFY(x) #x

namespace {

/// The outcome of the one attempt to load the driver.
struct LoadResult {
  Driver driver;
  bool loaded = false;
  std::string error; // when !loaded
};

/// cuda.h's own names, for a driver whose cuGetErrorName fails (a stub).
const char *knownErrorName(CUresult result) {
  switch (result) {
#define TESSEL_CUDA_NAME(e)                                                    \
  case e:                                                                      \
    return #e;
    TESSEL_CUDA_NAME(CUDA_SUCCESS)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_VALUE)
    TESSEL_CUDA_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    TESSEL_CUDA_NAME(CUDA_ERROR_NOT_INITIALIZED)
    TESSEL_CUDA_NAME(CUDA_ERROR_DEINITIALIZED)
    TESSEL_CUDA_NAME(CUDA_ERROR_STUB_LIBRARY)
    TESSEL_CUDA_NAME(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    TESSEL_CUDA_NAME(CUDA_ERROR_NO_DEVICE)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_DEVICE)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_IMAGE)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_CONTEXT)
    TESSEL_CUDA_NAME(CUDA_ERROR_NO_BINARY_FOR_GPU)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_PTX)
    TESSEL_CUDA_NAME(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_SOURCE)
    TESSEL_CUDA_NAME(CUDA_ERROR_INVALID_HANDLE)
    TESSEL_CUDA_NAME(CUDA_ERROR_NOT_FOUND)
    TESSEL_CUDA_NAME(CUDA_ERROR_NOT_READY)
    TESSEL_CUDA_NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    TESSEL_CUDA_NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    TESSEL_CUDA_NAME(CUDA_ERROR_LAUNCH_FAILED)
    TESSEL_CUDA_NAME(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    TESSEL_CUDA_NAME(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    TESSEL_CUDA_NAME(CUDA_ERROR_UNKNOWN)
#undef TESSEL_CUDA_NAME
  default:
    return nullptr;
  }
}

/// cuda.h's descriptions of the errors cuInit gives on a machine that
/// cannot run CUDA, for a driver that cannot describe them (a stub).
const char *knownErrorString(CUresult result) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "the CUDA driver loaded is a stub library (the toolkit's "
           "stubs/libcuda.so), not a real driver";
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  default:
    return nullptr;
  }
}

tessel_status_code codeFor(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return TESSEL_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
  case CUDA_ERROR_INVALID_DEVICE:
    return TESSEL_INVALID_ARGUMENT;
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_NOT_FOUND:
    return TESSEL_INVALID_ARTIFACT;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return TESSEL_INCOMPATIBLE;
  default:
    return TESSEL_RUNTIME_ERROR;
  }
}

std::string errorString(const Driver &driver, CUresult result) {
  const char *text = nullptr;
  if (driver.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  if (const char *known = knownErrorString(result))
    return known;
  return "the driver gives no description";
}

std::string describe(const Driver &driver, CUresult result, const char *call) {
  return std::string(call) + " failed: " + errorName(driver, result) + " (" +
         std::to_string(static_cast<int>(result)) +
         "): " + errorString(driver, result);
}

void load(LoadResult &result) {
  const char *env = std::getenv("TESSEL_CUDA_DRIVER");
  bool fromEnv = env && *env;
  Driver &driver = result.driver;
  driver.path = fromEnv ? env : "libcuda.so.1";
  std::string what = "the CUDA driver " + quoted(driver.path.c_str());
  if (fromEnv)
    what += " named by TESSEL_CUDA_DRIVER";

  // Never closed: the pointers live as long as the process.
  void *handle = dlopen(driver.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    result.error = "cannot load " + what + ": " +
                   (reason ? reason : "dlopen failed") +
                   (fromEnv ? "" : " (is the NVIDIA driver installed?)");
    return;
  }
#define TESSEL_CUDA_RESOLVE(name)                                              \
  {                                                                            \
    const char *symbol = TESSEL_CUDA_STRINGIFY_EXPANDED(name);                 \
    driver.name =                                                              \
        reinterpret_cast<decltype(driver.name)>(dlsym(handle, symbol));        \
    if (!driver.name) {                                                        \
      result.error = what + " does not export " + symbol +                     \
                     ": not a CUDA driver, or one older than the CUDA " +      \
                     std::to_string(CUDA_VERSION / 1000) + "." +               \
                     std::to_string(CUDA_VERSION % 1000 / 10) +                \
                     " headers the runtime was built with";                    \
      return;                                                                  \
    }                                                                          \
  }
  TESSEL_CUDA_ENTRY_POINTS(TESSEL_CUDA_RESOLVE)
#undef TESSEL_CUDA_RESOLVE

  CUresult initialized = driver.cuInit(0);
  if (initialized != CUDA_SUCCESS) {
    result.error =
        describe(driver, initialized, "cuInit") + " (in " + what + ")";
    return;
  }
  result.loaded = true;
}

} // namespace

tessel_status loadDriver(const Driver **out) {
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { load(result); });
  if (!result.loaded)
    return makeStatus(TESSEL_INCOMPATIBLE, result.error);
  *out = &result.driver;
  return nullptr;
}

std::string errorName(const Driver &driver, CUresult result) {
  const char *name = nullptr;
  if (driver.cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  if (const char *known = knownErrorName(result))
    return known;
  return "CUDA error";
}

tessel_status check(const Driver &driver, CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return nullptr;
  return makeStatus(codeFor(result), describe(driver, result, call));
}

} // namespace tessel::runtime::cuda
