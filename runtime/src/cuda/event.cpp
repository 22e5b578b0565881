//===- event.cpp - CUDA events --------------------------------------------===//

#include "handles.h"

using namespace tessel::runtime;
using namespace tessel::runtime::cuda;

extern "C" {

tessel_status tessel_cuda_event_create(tessel_cuda_device *device,
                                       uint32_t flags,
                                       tessel_cuda_event **out_event) {
  return guard([&]() -> tessel_status {
    if (!device)
      return nullArgument("tessel_cuda_event_create", "device");
    if (!out_event)
      return nullArgument("tessel_cuda_event_create", "out_event");
    if (flags & ~static_cast<uint32_t>(TESSEL_CUDA_EVENT_TIMING))
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_cuda_event_create: unknown flags " +
                            std::to_string(flags));
    if (tessel_status status = makeCurrent(*device))
      return status;
    auto event = std::make_unique<tessel_cuda_event>();
    event->timing = flags & TESSEL_CUDA_EVENT_TIMING;
    unsigned int cuFlags =
        event->timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING;
    if (tessel_status status =
            TESSEL_CU(*device->driver, cuEventCreate, &event->event, cuFlags))
      return status;
    tessel_cuda_device_retain(device);
    event->device = device;
    *out_event = event.release();
    return nullptr;
  });
}

void tessel_cuda_event_release(tessel_cuda_event *event) {
  if (!event)
    return;
  tessel_cuda_device *device = event->device;
  if (tessel_status status = makeCurrent(*device))
    tessel_status_free(status); // dropped: no one to report it to
  device->driver->cuEventDestroy(event->event);
  delete event;
  tessel_cuda_device_release(device);
}

tessel_status tessel_cuda_event_record(tessel_cuda_event *event,
                                       tessel_cuda_stream *stream) {
  return guard([&]() -> tessel_status {
    if (!event)
      return nullArgument("tessel_cuda_event_record", "event");
    if (!stream)
      return nullArgument("tessel_cuda_event_record", "stream");
    if (event->device->context != stream->device->context)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_cuda_event_record: the event is on device " +
                            std::to_string(event->device->ordinal) +
                            ", the stream on device " +
                            std::to_string(stream->device->ordinal));
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuEventRecord, event->event,
                     stream->stream);
  });
}

tessel_status tessel_cuda_stream_wait_event(tessel_cuda_stream *stream,
                                            tessel_cuda_event *event) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return nullArgument("tessel_cuda_stream_wait_event", "stream");
    if (!event)
      return nullArgument("tessel_cuda_stream_wait_event", "event");
    if (tessel_status status = makeCurrent(*stream->device))
      return status;
    return TESSEL_CU(*stream->device->driver, cuStreamWaitEvent, stream->stream,
                     event->event, CU_EVENT_WAIT_DEFAULT);
  });
}

tessel_status tessel_cuda_event_query(tessel_cuda_event *event,
                                      int32_t *out_ready) {
  return guard([&]() -> tessel_status {
    if (!event)
      return nullArgument("tessel_cuda_event_query", "event");
    if (!out_ready)
      return nullArgument("tessel_cuda_event_query", "out_ready");
    if (tessel_status status = makeCurrent(*event->device))
      return status;
    CUresult result = event->device->driver->cuEventQuery(event->event);
    if (result == CUDA_ERROR_NOT_READY) {
      *out_ready = 0;
      return nullptr;
    }
    if (tessel_status status =
            check(*event->device->driver, result, "cuEventQuery"))
      return status;
    *out_ready = 1;
    return nullptr;
  });
}

tessel_status tessel_cuda_event_synchronize(tessel_cuda_event *event) {
  return guard([&]() -> tessel_status {
    if (!event)
      return nullArgument("tessel_cuda_event_synchronize", "event");
    if (tessel_status status = makeCurrent(*event->device))
      return status;
    return TESSEL_CU(*event->device->driver, cuEventSynchronize, event->event);
  });
}

tessel_status tessel_cuda_event_elapsed_ms(tessel_cuda_event *start,
                                           tessel_cuda_event *end,
                                           float *out_ms) {
  return guard([&]() -> tessel_status {
    const char *function = "tessel_cuda_event_elapsed_ms";
    if (!start)
      return nullArgument(function, "start");
    if (!end)
      return nullArgument(function, "end");
    if (!out_ms)
      return nullArgument(function, "out_ms");
    if (!start->timing || !end->timing)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        std::string(function) + ": the " +
                            (start->timing ? "end" : "start") +
                            " event was created without "
                            "TESSEL_CUDA_EVENT_TIMING");
    if (tessel_status status = makeCurrent(*start->device))
      return status;
    float ms = 0;
    if (tessel_status status =
            TESSEL_CU(*start->device->driver, cuEventElapsedTime, &ms,
                      start->event, end->event))
      return status;
    *out_ms = ms;
    return nullptr;
  });
}

} // extern "C"
