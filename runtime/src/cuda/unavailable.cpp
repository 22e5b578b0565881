//===- unavailable.cpp - tessel/cuda.h in a build without CUDA ------------===//
//
// Built instead of the rest of this directory when TESSEL_ENABLE_CUDA is
// OFF (no CUDA toolkit at build time), so that libtessel_runtime.so exports
// the same functions whatever the build: each fallible one says why it
// cannot work.
//
//===----------------------------------------------------------------------===//

#include "../core/status.h"

#include "tessel/cuda.h"

using namespace tessel::runtime;

namespace {

tessel_status unavailable() {
  return makeStatus(TESSEL_INCOMPATIBLE,
                    "this libtessel_runtime was built without CUDA support "
                    "(TESSEL_ENABLE_CUDA=OFF, or no CUDA toolkit at build "
                    "time)");
}

} // namespace

extern "C" {

tessel_status tessel_cuda_driver_version(int32_t *) { return unavailable(); }
tessel_status tessel_cuda_device_count(int32_t *) { return unavailable(); }
tessel_status tessel_cuda_device_open(int32_t, tessel_cuda_device **) {
  return unavailable();
}
void tessel_cuda_device_retain(tessel_cuda_device *) {}
void tessel_cuda_device_release(tessel_cuda_device *) {}
int32_t tessel_cuda_device_ordinal(const tessel_cuda_device *) { return -1; }
const char *tessel_cuda_device_name(const tessel_cuda_device *) {
  return nullptr;
}
tessel_status tessel_cuda_device_compute_capability(const tessel_cuda_device *,
                                                    int32_t *, int32_t *) {
  return unavailable();
}
uint64_t tessel_cuda_device_total_memory(const tessel_cuda_device *) {
  return 0;
}
tessel_status
tessel_cuda_device_set_pool_release_threshold(tessel_cuda_device *, uint64_t) {
  return unavailable();
}
tessel_status tessel_cuda_stream_create(tessel_cuda_device *,
                                        tessel_cuda_stream **) {
  return unavailable();
}
void tessel_cuda_stream_release(tessel_cuda_stream *) {}
tessel_status tessel_cuda_stream_synchronize(tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_stream_query(tessel_cuda_stream *, int32_t *) {
  return unavailable();
}
void *tessel_cuda_stream_native(const tessel_cuda_stream *) { return nullptr; }
tessel_status tessel_cuda_malloc_async(size_t, tessel_cuda_stream *,
                                       tessel_cuda_ptr *) {
  return unavailable();
}
tessel_status tessel_cuda_free_async(tessel_cuda_ptr, tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_host_alloc(tessel_cuda_device *, size_t, void **) {
  return unavailable();
}
tessel_status tessel_cuda_host_free(tessel_cuda_device *, void *) {
  return unavailable();
}
tessel_status tessel_cuda_memcpy_htod_async(tessel_cuda_ptr, const void *,
                                            size_t, tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_memcpy_dtoh_async(void *, tessel_cuda_ptr, size_t,
                                            tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_memcpy_dtod_async(tessel_cuda_ptr, tessel_cuda_ptr,
                                            size_t, tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_event_create(tessel_cuda_device *, uint32_t,
                                       tessel_cuda_event **) {
  return unavailable();
}
void tessel_cuda_event_release(tessel_cuda_event *) {}
tessel_status tessel_cuda_event_record(tessel_cuda_event *,
                                       tessel_cuda_stream *) {
  return unavailable();
}
tessel_status tessel_cuda_stream_wait_event(tessel_cuda_stream *,
                                            tessel_cuda_event *) {
  return unavailable();
}
tessel_status tessel_cuda_event_query(tessel_cuda_event *, int32_t *) {
  return unavailable();
}
tessel_status tessel_cuda_event_synchronize(tessel_cuda_event *) {
  return unavailable();
}
tessel_status tessel_cuda_event_elapsed_ms(tessel_cuda_event *,
                                           tessel_cuda_event *, float *) {
  return unavailable();
}
tessel_status tessel_cuda_module_load(tessel_cuda_device *, const void *,
                                      size_t, tessel_cuda_module **) {
  return unavailable();
}
void tessel_cuda_module_release(tessel_cuda_module *) {}
tessel_status tessel_cuda_module_get_function(tessel_cuda_module *,
                                              const char *,
                                              const tessel_cuda_function **) {
  return unavailable();
}
tessel_status tessel_cuda_launch(const tessel_cuda_function *,
                                 const tessel_cuda_launch_config *, void **,
                                 tessel_cuda_stream *) {
  return unavailable();
}

} // extern "C"
