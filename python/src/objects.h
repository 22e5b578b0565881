//===- objects.h - The classes of tessel._tessel_ext ----------------------===//
//
// Thin owners of runtime handles. The Python layer (python/tessel) checks
// what the user passes and words the errors; these only call the C API,
// with the GIL released around everything that may block. (Session.run's
// fast path, RunPlan, checks the inputs itself, but only to decide whether
// to take them: anything else goes back to the Python layer.)
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PYTHON_SRC_OBJECTS_H
#define TESSEL_PYTHON_SRC_OBJECTS_H

#include "handles.h"

#include "tessel/scheduler.h"

#include <mutex>
#include <string>
#include <vector>

namespace tessel::python {

/// A loaded artifact (one reference to a tessel_model) and its metadata.
struct Model {
  Model(tessel_model *model, std::string path);

  Guarded<tessel_model> guard;
  std::string path;
  std::string name;
  nb::list inputs;
  nb::list outputs;
  nb::dict descriptor;
  nb::object batchRange; // None, or (min, max) of a dynamic batch
  nb::object paddedRange; // None, or (min, max) of a padded dimension
};

/// A tessel_session.
struct Session {
  explicit Session(tessel_session *session)
      : guard(session, tessel_session_release, "session") {}

  Guarded<tessel_session> guard;
};

/// What Session.run's fast path checks and makes, worked out once per
/// session: per input its name (the key in the caller's dict) and Tessel
/// element type, per output its name, shape and NumPy dtype; numpy.empty
/// and numpy.ndarray. With a dynamic batch (`batchMax` not 0), dimension 0
/// of each output's shape is the first input's, when in the range.
struct RunPlan {
  RunPlan(nb::list inputNames, nb::list inputCodes, nb::list outputNames,
          nb::list outputShapes, nb::list outputDtypes, nb::object empty,
          nb::object ndarray, int64_t batchMin, int64_t batchMax);

  std::vector<nb::object> inputNames;
  std::vector<int32_t> inputCodes;
  std::vector<nb::object> outputNames, outputShapes, outputDtypes;
  nb::object empty, ndarray;
  int64_t batchMin = 0, batchMax = 0; // 0, 0: static shapes
};

/// A tessel_stream. `submit` makes the steps of one asynchronous run
/// (Session.run_async) atomic with respect to other runs on the stream.
struct Stream {
  explicit Stream(tessel_stream *stream)
      : guard(stream, tessel_stream_release, "stream") {}

  Guarded<tessel_stream> guard;
  std::mutex submit;
};

/// A tessel_event.
struct Event {
  explicit Event(tessel_event *event)
      : guard(event, tessel_event_release, "event") {}

  Guarded<tessel_event> guard;
};

/// One run queued by Session.run_async: the private stream it runs on,
/// which reports exactly this run's error (see session.cpp).
class PendingRun {
public:
  explicit PendingRun(tessel_stream *stream) : stream(stream) {}
  PendingRun(const PendingRun &) = delete;
  PendingRun &operator=(const PendingRun &) = delete;
  ~PendingRun();

  /// Blocks until the run has happened and returns its error (NULL: none);
  /// later calls return NULL at once. Call with the GIL released.
  tessel_status waitBlocking();

private:
  std::mutex mutex;
  tessel_stream *stream;
};

/// A tessel_scheduler (tessel/scheduler.h).
struct Scheduler {
  explicit Scheduler(tessel_scheduler *scheduler)
      : guard(scheduler, tessel_scheduler_release, "scheduler") {}

  Guarded<tessel_scheduler> guard;
};

/// A tessel_request of a Scheduler. Stays valid after the scheduler is
/// closed; releasing it never waits.
class Request {
public:
  explicit Request(tessel_request *request) : request(request) {}
  Request(const Request &) = delete;
  Request &operator=(const Request &) = delete;
  ~Request();

  /// Whether it has completed; never blocks. Any thread, GIL or not.
  bool done() const;
  /// None when it succeeded, else (code name, message); raises when it
  /// has not completed.
  nb::object outcome();

  tessel_request *const request;
};

void bindModel(nb::module_ &module);
void bindSession(nb::module_ &module);
void bindStream(nb::module_ &module);
void bindScheduler(nb::module_ &module);

} // namespace tessel::python

#endif // TESSEL_PYTHON_SRC_OBJECTS_H
