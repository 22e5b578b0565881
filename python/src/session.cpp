//===- session.cpp - tessel._tessel_ext.Session ---------------------------===//
//
// Synchronous runs, and asynchronous runs on a stream.
//
// An asynchronous run must report its own error, but a stream's
// synchronize reports the first error of any run on it. So each run gets a
// private stream, ordered into the user's stream by two events:
//
//   user stream:    ... [record A] ............. [wait B] ...
//   private stream:          [wait A] [the run] [record B]
//
// The run starts when the user's stream reaches A and the user's stream goes
// on once the run is done, so runs (and events) on the user's stream keep
// their order, while a synchronize of the private stream returns exactly
// this run's error (PendingRun::wait).
//
//===----------------------------------------------------------------------===//

#include "objects.h"

#include <system_error>
#include <thread>

namespace tessel::python {

/// Releases a private stream on which only a wait for the user's stream is
/// queued (its run was refused), without waiting for the user's stream.
static void releaseInBackground(tessel_stream *stream) {
  try {
    std::thread([stream] { tessel_stream_release(stream); }).detach();
  } catch (const std::system_error &) {
    tessel_stream_release(stream); // No thread: wait here instead.
  }
}

/// `event` records where `from` is now and `to` waits for it.
static tessel_status order(tessel_stream *from, tessel_stream *to) {
  tessel_event *event = nullptr;
  tessel_status status = tessel_event_create(&event);
  if (!status)
    status = tessel_event_record(event, from);
  if (!status)
    status = tessel_stream_wait_event(to, event);
  tessel_event_release(event);
  return status;
}

/// Queues one run of `session` after the work queued on `user` so far, and
/// makes the work queued on `user` later wait for it. On success stores the
/// run's private stream in `*out`. Call with the GIL released.
static tessel_status queueRun(tessel_session *session, tessel_stream *user,
                              const Views &inputs, const Views &outputs,
                              tessel_stream **out) {
  tessel_stream *stream = nullptr;
  if (tessel_status status = tessel_stream_create(nullptr, &stream))
    return status;
  if (tessel_status status = order(user, stream)) {
    tessel_stream_release(stream);
    return status;
  }
  if (tessel_status status =
          tessel_run_async(session, stream, inputs.data(), inputs.size(),
                           outputs.data(), outputs.size())) {
    releaseInBackground(stream);
    return status;
  }
  if (tessel_status status = order(stream, user)) {
    // The run is queued and borrows the buffers: wait for it.
    tessel_stream_release(stream);
    return status;
  }
  *out = stream;
  return nullptr;
}

static void run(Session &session, nb::handle inputs, nb::handle outputs) {
  Views inputViews(inputs, /*writable=*/false, "input");
  Views outputViews(outputs, /*writable=*/true, "output");
  tessel_status status = nullptr;
  bool closed = false;
  {
    nb::gil_scoped_release noGil;
    auto use = session.guard.use();
    if (!use.handle)
      closed = true;
    else
      status =
          tessel_session_run(use.handle, inputViews.data(), inputViews.size(),
                             outputViews.data(), outputViews.size());
  }
  if (closed)
    session.guard.raiseClosed();
  check(status);
}

static PendingRun *runAsync(Session &session, Stream &stream, nb::handle inputs,
                            nb::handle outputs) {
  Views inputViews(inputs, /*writable=*/false, "input");
  Views outputViews(outputs, /*writable=*/true, "output");
  tessel_status status = nullptr;
  tessel_stream *runStream = nullptr;
  bool sessionClosed = false, streamClosed = false;
  {
    nb::gil_scoped_release noGil;
    auto sessionUse = session.guard.use();
    auto streamUse = stream.guard.use();
    std::lock_guard<std::mutex> lock(stream.submit);
    if (!sessionUse.handle)
      sessionClosed = true;
    else if (!streamUse.handle)
      streamClosed = true;
    else
      status = queueRun(sessionUse.handle, streamUse.handle, inputViews,
                        outputViews, &runStream);
  }
  if (sessionClosed)
    session.guard.raiseClosed();
  if (streamClosed)
    stream.guard.raiseClosed();
  check(status);
  return new PendingRun(runStream);
}

PendingRun::~PendingRun() {
  if (!stream || !interpreterAlive())
    return;
  nb::gil_scoped_release noGil;
  tessel_stream_release(stream);
}

void PendingRun::wait() {
  tessel_status status = nullptr;
  {
    nb::gil_scoped_release noGil;
    std::lock_guard<std::mutex> lock(mutex);
    if (stream) {
      status = tessel_stream_synchronize(stream);
      tessel_stream_release(stream);
      stream = nullptr;
    }
  }
  check(status);
}

void bindSession(nb::module_ &module) {
  nb::class_<Session>(module, "Session")
      .def_prop_ro("num_threads",
                   [](Session &session) {
                     int32_t threads = 0;
                     bool closed = false;
                     {
                       nb::gil_scoped_release noGil;
                       auto use = session.guard.use();
                       closed = !use.handle;
                       threads = tessel_session_num_threads(use.handle);
                     }
                     if (closed)
                       session.guard.raiseClosed();
                     return threads;
                   })
      .def("run", &run, nb::arg("inputs"), nb::arg("outputs"),
           "Runs once on this thread (GIL released); the arrays are "
           "C-contiguous, in descriptor order.")
      .def("run_async", &runAsync, nb::arg("stream"), nb::arg("inputs"),
           nb::arg("outputs"),
           "Queues one run on `stream`; the arrays must stay alive until "
           "the returned PendingRun's wait() has returned.")
      .def("close", [](Session &session) { session.guard.close(); })
      .def_prop_ro("closed",
                   [](Session &session) { return session.guard.closed(); });

  nb::class_<PendingRun>(module, "PendingRun")
      .def("wait", &PendingRun::wait,
           "Blocks (GIL released) until the run has happened; raises its "
           "error.");
}

} // namespace tessel::python
