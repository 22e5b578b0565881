//===- stream.cpp - tessel._tessel_ext.Stream and Event -------------------===//

#include "objects.h"

namespace tessel::python {

/// Calls `call(stream, event)` with the GIL released and both handles held
/// open; raises "the stream/event is closed" or the call's error.
template <typename Call>
static void withBoth(Stream &stream, Event &event, Call call) {
  tessel_status status = nullptr;
  bool streamClosed = false, eventClosed = false;
  {
    nb::gil_scoped_release noGil;
    auto streamUse = stream.guard.use();
    auto eventUse = event.guard.use();
    streamClosed = !streamUse.handle;
    eventClosed = !eventUse.handle;
    if (!streamClosed && !eventClosed)
      status = call(streamUse.handle, eventUse.handle);
  }
  if (streamClosed)
    stream.guard.raiseClosed();
  if (eventClosed)
    event.guard.raiseClosed();
  check(status);
}

/// Calls `call(handle)` with the GIL released and the handle held open.
template <typename T, typename Call>
static void withHandle(Guarded<T> &guard, Call call) {
  tessel_status status = nullptr;
  bool closed = false;
  {
    nb::gil_scoped_release noGil;
    auto use = guard.use();
    closed = !use.handle;
    if (!closed)
      status = call(use.handle);
  }
  if (closed)
    guard.raiseClosed();
  check(status);
}

void bindStream(nb::module_ &module) {
  nb::class_<Stream>(module, "Stream")
      .def("__init__",
           [](Stream *self) {
             tessel_stream *stream = nullptr;
             check(tessel_stream_create(nullptr, &stream));
             new (self) Stream(stream);
           })
      .def("synchronize",
           [](Stream &stream) {
             withHandle(stream.guard, tessel_stream_synchronize);
           })
      .def("wait_event",
           [](Stream &stream, Event &event) {
             withBoth(stream, event, tessel_stream_wait_event);
           })
      .def("close", [](Stream &stream) { stream.guard.close(); })
      .def_prop_ro("closed",
                   [](Stream &stream) { return stream.guard.closed(); });

  nb::class_<Event>(module, "Event")
      .def("__init__",
           [](Event *self) {
             tessel_event *event = nullptr;
             check(tessel_event_create(&event));
             new (self) Event(event);
           })
      .def("record",
           [](Event &event, Stream &stream) {
             withBoth(stream, event, [](tessel_stream *s, tessel_event *e) {
               return tessel_event_record(e, s);
             });
           })
      .def("query",
           [](Event &event) {
             int32_t ready = 0;
             withHandle(event.guard, [&](tessel_event *handle) {
               return tessel_event_query(handle, &ready);
             });
             return ready != 0;
           })
      .def("synchronize",
           [](Event &event) {
             withHandle(event.guard, tessel_event_synchronize);
           })
      .def("close", [](Event &event) { event.guard.close(); })
      .def_prop_ro("closed", [](Event &event) { return event.guard.closed(); });
}

} // namespace tessel::python
