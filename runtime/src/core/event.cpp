//===- event.cpp - Events: markers in streams -----------------------------===//

#include "status.h"
#include "stream.h"

using namespace tessel::runtime;

extern "C" {

tessel_status tessel_event_create(tessel_event **out_event) {
  return guard([&]() -> tessel_status {
    if (!out_event)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_create: out_event is NULL");
    *out_event = new tessel_event();
    return nullptr;
  });
}

void tessel_event_release(tessel_event *event) { delete event; }

tessel_status tessel_event_record(tessel_event *event, tessel_stream *stream) {
  return guard([&]() -> tessel_status {
    if (!event)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_record: event is NULL");
    if (!stream)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_record: stream is NULL");
    auto marker = std::make_shared<Marker>();
    if (tessel_status status = stream->stream->enqueueRecord(marker))
      return status;
    std::lock_guard<std::mutex> lock(event->mutex);
    event->latest = std::move(marker);
    return nullptr;
  });
}

tessel_status tessel_stream_wait_event(tessel_stream *stream,
                                       tessel_event *event) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_stream_wait_event: stream is NULL");
    if (!event)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_stream_wait_event: event is NULL");
    std::shared_ptr<Marker> marker = event->current();
    if (!marker || marker->done())
      return nullptr; // never recorded, or complete: nothing to wait for
    return stream->stream->enqueueWait(std::move(marker));
  });
}

tessel_status tessel_event_query(tessel_event *event, int32_t *out_ready) {
  return guard([&]() -> tessel_status {
    if (!event)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_query: event is NULL");
    if (!out_ready)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_query: out_ready is NULL");
    std::shared_ptr<Marker> marker = event->current();
    *out_ready = !marker || marker->done() ? 1 : 0;
    return nullptr;
  });
}

tessel_status tessel_event_synchronize(tessel_event *event) {
  return guard([&]() -> tessel_status {
    if (!event)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_event_synchronize: event is NULL");
    if (std::shared_ptr<Marker> marker = event->current())
      marker->wait();
    return nullptr;
  });
}

} // extern "C"
