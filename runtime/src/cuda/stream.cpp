//===- stream.cpp - CUDA streams, stream-ordered memory and copies --------===//

#include "handles.h"

using namespace tessel::runtime;
using namespace tessel::runtime::cuda;

namespace {

/// Checks the arguments common to the copies.
tessel_status checkCopy(const char *function, bool dstNull, bool srcNull,
                        size_t size, const tessel_cuda_stream *stream) {
  if (!stream)
    return nullArgument(function, "stream");
  if (size != 0 && dstNull)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string(function) + ": dst is NULL (or 0) for " +
                          std::to_string(size) + " bytes");
  if (size != 0 && srcNull)
    return makeStatus(TESSEL_INVALID_ARGUMENT,
                      std::string(function) + ": src is NULL (or 0) for " +
                          std::to_string(size) + " bytes");
  return nullptr;
}

} // namespace

extern "C" {

tessel_status tessel_cuda_stream_create(tessel_cuda_device *device,
                                        tessel_cuda_stream **out_stream) {
  return guard([&]() -> tessel_status {
    if (!device)
      return nullArgument("tessel_cuda_stream_create", "device");
    if (!out_stream)
      return nullArgument("tessel_cuda_stream_create", "out_stream");
    if (tessel_status status = makeCurrent(*device))
      return status;
    auto stream = std::make_unique<tessel_cuda_stream>();
    if (tessel_status status =
            TESSEL_CU(*device->driver, cuStreamCreate, &stream->stream,
                      CU_STREAM_NON_BLOCKING))
      return status;
    tessel_cuda_device_retain(device);
    stream->device = device;
    *out_stream = stream.release();
    return nullptr;
  });
}

void tessel_cuda_stream_release(tessel_cuda_stream *stream) {
  if (!stream)
    return;
  tessel_cuda_device *device = stream->device;
  const Driver &driver = *device->driver;
  // Errors are dropped: there is no one to report them to.
  if (tessel_status status = makeCurrent(*device))
    tessel_status_free(status);
  driver.cuStreamSynchronize(stream->stream);
  driver.cuStreamDestroy(stream->stream);
  delete stream;
  tessel_cuda_device_release(device);
}

tessel_status tessel_cuda_stream_synchronize(tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return nullArgument("tessel_cuda_stream_synchronize", "stream");
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuStreamSynchronize,
                     stream->stream);
  });
}

tessel_status tessel_cuda_stream_query(tessel_cuda_stream *stream,
                                       int32_t *out_ready) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return nullArgument("tessel_cuda_stream_query", "stream");
    if (!out_ready)
      return nullArgument("tessel_cuda_stream_query", "out_ready");
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    CUresult result = stream->device->driver->cuStreamQuery(stream->stream);
    if (result == CUDA_ERROR_NOT_READY) {
      *out_ready = 0;
      return nullptr;
    }
    if (tessel_status status =
            check(*stream->device->driver, result, "cuStreamQuery"))
      return status;
    *out_ready = 1;
    return nullptr;
  });
}

void *tessel_cuda_stream_native(const tessel_cuda_stream *stream) {
  return stream ? static_cast<void *>(stream->stream) : nullptr;
}

tessel_status tessel_cuda_malloc_async(size_t size, tessel_cuda_stream *stream,
                                       tessel_cuda_ptr *out_ptr) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return nullArgument("tessel_cuda_malloc_async", "stream");
    if (!out_ptr)
      return nullArgument("tessel_cuda_malloc_async", "out_ptr");
    if (size == 0) {
      *out_ptr = 0;
      return nullptr;
    }
    tessel_cuda_device &device = *stream->device;
    if (tessel_status status = makeCurrent(device))
      return status;
    CUdeviceptr ptr = 0;
    if (tessel_status status =
            TESSEL_CU(*device.driver, cuMemAllocFromPoolAsync, &ptr, size,
                      device.pool, stream->stream))
      return status;
    *out_ptr = ptr;
    return nullptr;
  });
}

tessel_status tessel_cuda_free_async(tessel_cuda_ptr ptr,
                                     tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return nullArgument("tessel_cuda_free_async", "stream");
    if (ptr == 0)
      return nullptr;
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuMemFreeAsync, ptr,
                     stream->stream);
  });
}

tessel_status tessel_cuda_memcpy_htod_async(tessel_cuda_ptr dst,
                                            const void *src, size_t size,
                                            tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (tessel_status status = checkCopy("tessel_cuda_memcpy_htod_async",
                                         dst == 0, !src, size, stream))
      return status;
    if (size == 0)
      return nullptr;
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuMemcpyHtoDAsync, dst, src, size,
                     stream->stream);
  });
}

tessel_status tessel_cuda_memcpy_dtoh_async(void *dst, tessel_cuda_ptr src,
                                            size_t size,
                                            tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (tessel_status status = checkCopy("tessel_cuda_memcpy_dtoh_async", !dst,
                                         src == 0, size, stream))
      return status;
    if (size == 0)
      return nullptr;
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuMemcpyDtoHAsync, dst, src, size,
                     stream->stream);
  });
}

tessel_status tessel_cuda_memcpy_dtod_async(tessel_cuda_ptr dst,
                                            tessel_cuda_ptr src, size_t size,
                                            tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (tessel_status status = checkCopy("tessel_cuda_memcpy_dtod_async",
                                         dst == 0, src == 0, size, stream))
      return status;
    if (size == 0)
      return nullptr;
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuMemcpyDtoDAsync, dst, src, size,
                     stream->stream);
  });
}

} // extern "C"
