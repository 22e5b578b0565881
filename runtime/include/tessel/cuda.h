/*===- tessel/cuda.h - The Tessel runtime's CUDA device layer ------*- C -*-===*
 *
 * Devices, device memory, streams, events and kernel modules on NVIDIA GPUs,
 * through the CUDA driver API. What compiled GPU artifacts run on.
 *
 * The runtime does not link the CUDA driver: it loads `libcuda.so.1` with
 * dlopen() at the first call of this header that needs it (or the library
 * the environment variable TESSEL_CUDA_DRIVER names, read then, once per
 * process) and calls cuInit(0). So libtessel_runtime.so loads, and runs CPU
 * artifacts, on machines without a driver; only these functions fail there.
 *
 * Conventions are those of tessel/runtime.h (statuses, borrowed pointers,
 * output parameters written only on success). In addition:
 *  - Handles (`tessel_cuda_device`, `tessel_cuda_stream`, `tessel_cuda_event`,
 *    `tessel_cuda_module`) are opaque. A device is reference counted; every
 *    stream, event and module holds a reference to its device.
 *  - Arguments are checked before the driver is loaded or called: a NULL
 *    handle or output, or a bad value, is TESSEL_INVALID_ARGUMENT even on a
 *    machine without a driver. (A runtime built without CUDA support,
 *    TESSEL_ENABLE_CUDA=OFF, has these functions too, so its ABI is the
 *    same; each fallible one returns TESSEL_INCOMPATIBLE, whatever its
 *    arguments, and the accessors return NULL, 0 or -1.)
 *  - Errors: TESSEL_INCOMPATIBLE when this host cannot run CUDA (the driver
 *    library cannot be loaded or lacks an entry point, cuInit fails, e.g. no
 *    device, a stub library, a driver too old; or the runtime was built
 *    without CUDA support); otherwise the driver's error maps to
 *    TESSEL_OUT_OF_MEMORY (CUDA_ERROR_OUT_OF_MEMORY), TESSEL_INVALID_ARGUMENT
 *    (invalid value, handle or device), TESSEL_INVALID_ARTIFACT (a module
 *    image the driver refuses, a kernel the module lacks),
 *    TESSEL_INCOMPATIBLE (no code in the image for this GPU, PTX too new) or
 *    TESSEL_RUNTIME_ERROR (anything else: a failed launch, an illegal
 *    address, ...). The message names the driver call, the error's name,
 *    number and description, e.g. "cuInit failed: CUDA_ERROR_NO_DEVICE (100):
 *    no CUDA-capable device is detected".
 *  - Every function that uses a device makes the device's primary context
 *    current on the calling thread (cuCtxSetCurrent) first, and leaves it
 *    current. Any thread may call any function.
 *  - Asynchronous functions (`*_async`, launches, records) return once the
 *    work is queued on the stream. Errors of the work itself are reported by
 *    a later call on the stream or event (synchronize, query), as in CUDA.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_CUDA_H
#define TESSEL_CUDA_H

#include "tessel/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device address (a CUdeviceptr); 0 is no memory. */
typedef uint64_t tessel_cuda_ptr;

/* A GPU, holding a reference to its primary context. */
typedef struct tessel_cuda_device tessel_cuda_device;
/* A CUstream on a device. */
typedef struct tessel_cuda_stream tessel_cuda_stream;
/* A CUevent on a device. */
typedef struct tessel_cuda_event tessel_cuda_event;
/* A loaded module image (PTX, cubin or fatbin). */
typedef struct tessel_cuda_module tessel_cuda_module;
/* A kernel of a module; owned by the module. */
typedef struct tessel_cuda_function tessel_cuda_function;

/*===----------------------------------------------------------------------===*
 * The driver and devices
 *===----------------------------------------------------------------------===*/

/* Stores the driver's CUDA version (cuDriverGetVersion, e.g. 13000) in
 * `*out_version`. Loads the driver. Errors: TESSEL_INVALID_ARGUMENT (NULL
 * `out_version`), TESSEL_INCOMPATIBLE. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_driver_version(int32_t *out_version);

/* Stores the number of CUDA devices in `*out_count` (cuDeviceGetCount).
 * Loads the driver. A machine with a driver and no device fails in cuInit
 * (CUDA_ERROR_NO_DEVICE). Errors: TESSEL_INVALID_ARGUMENT (NULL
 * `out_count`), TESSEL_INCOMPATIBLE, TESSEL_RUNTIME_ERROR. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_device_count(int32_t *out_count);

/* Opens device `ordinal` (0 to count - 1): retains its primary context
 * (cuDevicePrimaryCtxRetain, shared with the CUDA runtime API and other
 * libraries in the process), reads its name, compute capability and total
 * memory, and finds its default memory pool. Stores a new device with one
 * reference in `*out_device`; the caller owns that reference and drops it
 * with tessel_cuda_device_release(). Opening one ordinal twice gives two
 * handles on the same context. Errors: TESSEL_INVALID_ARGUMENT (NULL
 * `out_device`, negative `ordinal`, or one the driver does not know),
 * TESSEL_INCOMPATIBLE, TESSEL_RUNTIME_ERROR, TESSEL_OUT_OF_MEMORY.
 * Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_device_open(int32_t ordinal, tessel_cuda_device **out_device);

/* Adds a reference to `device` (NULL is a no-op). Thread-safe. */
TESSEL_API void tessel_cuda_device_retain(tessel_cuda_device *device);

/* Drops one reference to `device` (NULL is a no-op). With the last one the
 * runtime releases the primary context (cuDevicePrimaryCtxRelease), which
 * the driver destroys when no one else holds it. Streams, events and modules
 * hold their own references, so they may outlive the caller's. Thread-safe. */
TESSEL_API void tessel_cuda_device_release(tessel_cuda_device *device);

/* Returns the device's ordinal, or -1 when `device` is NULL. Thread-safe. */
TESSEL_API int32_t tessel_cuda_device_ordinal(const tessel_cuda_device *device);

/* Returns the device's name ("NVIDIA H100 80GB HBM3"), or NULL when `device`
 * is NULL. Borrowed: valid while the caller holds a reference to `device`.
 * Thread-safe. */
TESSEL_API const char *
tessel_cuda_device_name(const tessel_cuda_device *device);

/* Stores the device's compute capability in `*out_major` and `*out_minor`
 * (9 and 0 for sm_90). Errors: TESSEL_INVALID_ARGUMENT (a NULL argument).
 * Calls nothing in the driver. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_device_compute_capability(
    const tessel_cuda_device *device, int32_t *out_major, int32_t *out_minor);

/* Returns the device's total memory in bytes (cuDeviceTotalMem), or 0 when
 * `device` is NULL. Thread-safe. */
TESSEL_API uint64_t
tessel_cuda_device_total_memory(const tessel_cuda_device *device);

/* Sets how many bytes the device's default memory pool keeps reserved when
 * memory is freed, rather than returning it to the driver at the next
 * synchronization (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; the driver's default
 * is 0; UINT64_MAX keeps everything). The pool is the device's, shared with
 * other users of its primary context in the process. Errors:
 * TESSEL_INVALID_ARGUMENT (NULL `device`), and the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_device_set_pool_release_threshold(
    tessel_cuda_device *device, uint64_t bytes);

/*===----------------------------------------------------------------------===*
 * Streams
 *===----------------------------------------------------------------------===*/

/* Creates a stream on `device` (cuStreamCreate, CU_STREAM_NON_BLOCKING: it
 * does not synchronize with the legacy default stream) and stores it in
 * `*out_stream`. The stream holds a reference to `device`. The caller owns
 * the stream and releases it with tessel_cuda_stream_release(). Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument), TESSEL_INCOMPATIBLE,
 * TESSEL_OUT_OF_MEMORY, TESSEL_RUNTIME_ERROR. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_stream_create(
    tessel_cuda_device *device, tessel_cuda_stream **out_stream);

/* Waits for the work queued on `stream` (discarding its errors), destroys
 * the stream and drops its device reference. NULL is a no-op. Must not race
 * with another call on the same stream. */
TESSEL_API void tessel_cuda_stream_release(tessel_cuda_stream *stream);

/* Blocks until all work queued on `stream` has completed
 * (cuStreamSynchronize). Errors: TESSEL_INVALID_ARGUMENT (NULL `stream`),
 * and the error of any queued work that failed. Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_stream_synchronize(tessel_cuda_stream *stream);

/* Stores in `*out_ready` 1 when all work queued on `stream` has completed,
 * 0 otherwise (cuStreamQuery); never blocks. Errors: TESSEL_INVALID_ARGUMENT
 * (a NULL argument), and the error of any queued work that failed.
 * Thread-safe. */
TESSEL_API tessel_status tessel_cuda_stream_query(tessel_cuda_stream *stream,
                                                  int32_t *out_ready);

/* Returns the stream's CUstream, for interoperation with other CUDA code,
 * or NULL when `stream` is NULL. Borrowed: valid until the stream is
 * released; do not destroy it. Thread-safe. */
TESSEL_API void *tessel_cuda_stream_native(const tessel_cuda_stream *stream);

/*===----------------------------------------------------------------------===*
 * Memory
 *===----------------------------------------------------------------------===*/

/* Allocates `size` bytes of device memory from the default memory pool of
 * the stream's device, in stream order (cuMemAllocFromPoolAsync): the memory
 * may be used by work queued on `stream` from now on (other streams must
 * first wait for an event recorded after this call). Stores the address in
 * `*out_ptr`; 0 when `size` is 0 (nothing is allocated). The caller owns the
 * memory and frees it with tessel_cuda_free_async(). Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument), TESSEL_OUT_OF_MEMORY, and the
 * driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_malloc_async(size_t size,
                                                  tessel_cuda_stream *stream,
                                                  tessel_cuda_ptr *out_ptr);

/* Frees memory from tessel_cuda_malloc_async() in stream order
 * (cuMemFreeAsync): once the work queued on `stream` before this call has
 * completed. `ptr` 0 is a no-op. Takes ownership of the memory. Errors:
 * TESSEL_INVALID_ARGUMENT (NULL `stream`), and the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_free_async(tessel_cuda_ptr ptr,
                                                tessel_cuda_stream *stream);

/* Allocates `size` bytes of page-locked host memory (cuMemHostAlloc,
 * portable to every context): copies between it and the device run
 * asynchronously and overlap compute, which copies from pageable memory do
 * not always do. Stores the address in `*out_ptr` (NULL when `size` is 0).
 * The caller owns it and frees it with tessel_cuda_host_free(). Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument), TESSEL_OUT_OF_MEMORY, and the
 * driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_host_alloc(tessel_cuda_device *device,
                                                size_t size, void **out_ptr);

/* Frees memory from tessel_cuda_host_alloc() (cuMemFreeHost), which no
 * queued work may still use. `ptr` NULL is a no-op. Errors:
 * TESSEL_INVALID_ARGUMENT (NULL `device`), and the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_host_free(tessel_cuda_device *device,
                                               void *ptr);

/* Queues a copy of `size` bytes on `stream`: host to device
 * (cuMemcpyHtoDAsync), device to host (cuMemcpyDtoHAsync) or device to
 * device (cuMemcpyDtoDAsync), and returns. Host buffers are borrowed: they
 * must stay valid (and a source unchanged) until the copy has completed (a
 * synchronize, or an event recorded after it). With page-locked host memory
 * (tessel_cuda_host_alloc) the copy overlaps the caller and other streams;
 * with pageable memory the driver may stage it or block. `size` 0 queues
 * nothing. Errors: TESSEL_INVALID_ARGUMENT (NULL `stream`, or a NULL
 * pointer or 0 address with a non-zero `size`), and the driver's.
 * Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_memcpy_htod_async(tessel_cuda_ptr dst, const void *src, size_t size,
                              tessel_cuda_stream *stream);
TESSEL_API tessel_status tessel_cuda_memcpy_dtoh_async(
    void *dst, tessel_cuda_ptr src, size_t size, tessel_cuda_stream *stream);
TESSEL_API tessel_status
tessel_cuda_memcpy_dtod_async(tessel_cuda_ptr dst, tessel_cuda_ptr src,
                              size_t size, tessel_cuda_stream *stream);

/*===----------------------------------------------------------------------===*
 * Events
 *===----------------------------------------------------------------------===*/

/* Flags of tessel_cuda_event_create(). */
enum {
  /* The event records timestamps, for tessel_cuda_event_elapsed_ms().
   * Without it (CU_EVENT_DISABLE_TIMING) recording and waiting are cheaper. */
  TESSEL_CUDA_EVENT_TIMING = 1u
};

/* Creates an event on `device` (cuEventCreate) and stores it in
 * `*out_event`. `flags` is 0 or TESSEL_CUDA_EVENT_TIMING. The event holds a
 * reference to `device`. The caller owns it and releases it with
 * tessel_cuda_event_release(). Errors: TESSEL_INVALID_ARGUMENT (a NULL
 * argument, unknown flags), TESSEL_INCOMPATIBLE, TESSEL_OUT_OF_MEMORY,
 * TESSEL_RUNTIME_ERROR. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_event_create(
    tessel_cuda_device *device, uint32_t flags, tessel_cuda_event **out_event);

/* Destroys `event` (cuEventDestroy; NULL is a no-op) and drops its device
 * reference. Waits already queued on streams are not affected. Must not
 * race with another call on the same event. */
TESSEL_API void tessel_cuda_event_release(tessel_cuda_event *event);

/* Records `event` on `stream` (cuEventRecord): the event completes when the
 * work queued on `stream` so far has. Both must be on the same device.
 * Errors: TESSEL_INVALID_ARGUMENT (a NULL handle, different devices), and
 * the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_event_record(tessel_cuda_event *event,
                                                  tessel_cuda_stream *stream);

/* Makes work queued on `stream` after this call wait for `event`, as last
 * recorded (cuStreamWaitEvent); returns at once. The event may be on
 * another device. Errors: TESSEL_INVALID_ARGUMENT (a NULL handle), and the
 * driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_stream_wait_event(
    tessel_cuda_stream *stream, tessel_cuda_event *event);

/* Stores in `*out_ready` 1 when `event` has completed (or was never
 * recorded), 0 otherwise (cuEventQuery); never blocks. Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument), and the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_event_query(tessel_cuda_event *event,
                                                 int32_t *out_ready);

/* Blocks until `event` has completed (cuEventSynchronize). Errors:
 * TESSEL_INVALID_ARGUMENT (NULL `event`), and the driver's. Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_event_synchronize(tessel_cuda_event *event);

/* Stores the milliseconds between two completed events in `*out_ms`
 * (cuEventElapsedTime). Both must have TESSEL_CUDA_EVENT_TIMING and have
 * been recorded. Errors: TESSEL_INVALID_ARGUMENT (a NULL argument, an event
 * without TESSEL_CUDA_EVENT_TIMING), TESSEL_RUNTIME_ERROR (not complete:
 * CUDA_ERROR_NOT_READY), and the driver's. Thread-safe. */
TESSEL_API tessel_status tessel_cuda_event_elapsed_ms(tessel_cuda_event *start,
                                                      tessel_cuda_event *end,
                                                      float *out_ms);

/*===----------------------------------------------------------------------===*
 * Modules and kernels
 *===----------------------------------------------------------------------===*/

/* Loads a module image on `device` (cuModuleLoadData): PTX text, a cubin or
 * a fatbin, `size` bytes at `image`. The image is copied (with a NUL
 * appended, which PTX needs), so it is borrowed for the call only. PTX is
 * compiled for the device here, by the driver. The module holds a reference
 * to `device`. The caller owns the module and releases it with
 * tessel_cuda_module_release(). Errors: TESSEL_INVALID_ARGUMENT (a NULL
 * argument, `size` 0), TESSEL_INVALID_ARTIFACT (the driver refuses the
 * image), TESSEL_INCOMPATIBLE (no code for this GPU, PTX too new for the
 * driver), TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_module_load(tessel_cuda_device *device, const void *image,
                        size_t size, tessel_cuda_module **out_module);

/* Unloads `module` (cuModuleUnload; NULL is a no-op), which invalidates its
 * functions, and drops its device reference. Kernels already launched run
 * to completion first only if the caller synchronized: release a module
 * after the streams that use it. Must not race with another call on the
 * module or its functions. */
TESSEL_API void tessel_cuda_module_release(tessel_cuda_module *module);

/* Finds the kernel `name` (its mangled name, NUL-terminated; borrowed for
 * the call) in `module` (cuModuleGetFunction) and stores it in
 * `*out_function`. Borrowed: owned by the module, valid until it is
 * released; asking twice gives the same pointer. Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument), TESSEL_INVALID_ARTIFACT (no
 * such kernel: CUDA_ERROR_NOT_FOUND), TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_module_get_function(tessel_cuda_module *module, const char *name,
                                const tessel_cuda_function **out_function);

/* The geometry of a launch. Set `struct_size` to
 * sizeof(tessel_cuda_launch_config); fields are only ever appended. */
typedef struct tessel_cuda_launch_config {
  uint32_t struct_size;
  uint32_t grid[3];             /* blocks in x, y, z; each >= 1 */
  uint32_t block[3];            /* threads per block in x, y, z; each >= 1 */
  uint32_t shared_memory_bytes; /* dynamic shared memory per block */
} tessel_cuda_launch_config;

/* Queues `function` on `stream` (cuLaunchKernel) and returns. `params` is
 * as cuLaunchKernel's kernelParams: one pointer per kernel parameter, to
 * the parameter's value; the values are copied when the call returns, so
 * `params` and what it points to are borrowed for the call only (device
 * memory the kernel reads must stay valid until it has run). `params` may
 * be NULL for a kernel without parameters. The function's module must be on
 * the stream's device. Errors: TESSEL_INVALID_ARGUMENT (a NULL handle or
 * config, a bad `struct_size`, a zero extent, different devices), and the
 * driver's (e.g. CUDA_ERROR_INVALID_VALUE for too many threads per block).
 * Thread-safe. */
TESSEL_API tessel_status
tessel_cuda_launch(const tessel_cuda_function *function,
                   const tessel_cuda_launch_config *config, void **params,
                   tessel_cuda_stream *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_CUDA_H */
