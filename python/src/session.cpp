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

#include <cstdint>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

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

/// Runs `session` once on this thread with the GIL released; raises its
/// error, or that the session is closed.
static void runOnce(Session &session, const tessel_tensor_view *inputs,
                    size_t numInputs, const tessel_tensor_view *outputs,
                    size_t numOutputs) {
  check(session.guard.callOpen([&](tessel_session *handle) {
    return tessel_session_run(handle, inputs, numInputs, outputs, numOutputs);
  }));
}

static void run(Session &session, nb::handle inputs, nb::handle outputs) {
  Views inputViews(inputs, /*writable=*/false, "input");
  Views outputViews(outputs, /*writable=*/true, "output");
  runOnce(session, inputViews.data(), inputViews.size(), outputViews.data(),
          outputViews.size());
}

RunPlan::RunPlan(nb::list inputNames, nb::list inputCodes, nb::list outputNames,
                 nb::list outputShapes, nb::list outputDtypes, nb::object empty,
                 nb::object ndarray, int64_t batchMin, int64_t batchMax)
    : empty(std::move(empty)), ndarray(std::move(ndarray)), batchMin(batchMin),
      batchMax(batchMax) {
  size_t inputs = nb::len(inputNames), outputs = nb::len(outputNames);
  if (nb::len(inputCodes) != inputs || nb::len(outputShapes) != outputs ||
      nb::len(outputDtypes) != outputs)
    raiseError(invalidArgument, "RunPlan: lists of different lengths");
  for (size_t i = 0; i < inputs; ++i) {
    this->inputNames.push_back(nb::borrow(inputNames[i]));
    this->inputCodes.push_back(nb::cast<int32_t>(inputCodes[i]));
  }
  for (size_t i = 0; i < outputs; ++i) {
    this->outputNames.push_back(nb::borrow(outputNames[i]));
    this->outputShapes.push_back(nb::borrow(outputShapes[i]));
    this->outputDtypes.push_back(nb::borrow(outputDtypes[i]));
  }
}

/// Session.run in one call when `inputs` is a dict of exactly the plan's
/// inputs, each an ndarray (not a subclass) of its element type,
/// C-contiguous and aligned: the outputs made with numpy.empty, the run,
/// and the outputs by name. None, having run nothing, otherwise (the
/// Python layer then checks the inputs and explains). The Python calls
/// this replaces took about 1 us more per run.
static nb::object runNamed(Session &session, const RunPlan &plan,
                           nb::handle inputs) {
  size_t numInputs = plan.inputNames.size();
  if (!PyDict_CheckExact(inputs.ptr()) ||
      size_t(PyDict_Size(inputs.ptr())) != numInputs)
    return nb::none();
  std::vector<std::vector<int64_t>> shapes(numInputs + plan.outputNames.size());
  std::vector<tessel_tensor_view> inputViews(numInputs);
  std::vector<tessel_tensor_view> outputViews(plan.outputNames.size());
  // Fills `view` from `array`'s buffer when it has the element type `code`
  // (any when -1), is C-contiguous and aligned; else returns false.
  auto viewOf = [&](PyObject *array, bool writable, int32_t code,
                    std::vector<int64_t> &shape,
                    tessel_tensor_view &view) -> bool {
    Py_buffer buffer;
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(array, &buffer, flags) != 0) {
      PyErr_Clear();
      return false;
    }
    int32_t found = formatCode(buffer.format, buffer.itemsize);
    bool usable =
        found >= 0 && (code < 0 || found == code) &&
        PyBuffer_IsContiguous(&buffer, 'C') && buffer.itemsize > 0 &&
        reinterpret_cast<uintptr_t>(buffer.buf) % buffer.itemsize == 0;
    if (usable)
      fillView(buffer, found, shape, view);
    // Released now: `held` (the inputs) and `results` (the outputs) keep
    // the arrays, and so their memory, alive until the run is over.
    PyBuffer_Release(&buffer);
    return usable;
  };
  // Held through the run: another thread may change the caller's dict
  // while the GIL is released.
  std::vector<nb::object> held;
  held.reserve(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    PyObject *array =
        PyDict_GetItemWithError(inputs.ptr(), plan.inputNames[i].ptr());
    if (!array) {
      PyErr_Clear();
      return nb::none();
    }
    held.push_back(nb::borrow(array));
    if (Py_TYPE(array) !=
            reinterpret_cast<PyTypeObject *>(plan.ndarray.ptr()) ||
        plan.inputCodes[i] < 0 ||
        !viewOf(array, /*writable=*/false, plan.inputCodes[i], shapes[i],
                inputViews[i]))
      return nb::none();
  }
  // With a dynamic batch the outputs take the first input's (the runtime
  // checks that every input has it); without inputs, or when input 0 has
  // no dimension 0 or one outside the range, the checked path explains
  // (allocating nothing that large).
  bool batched = plan.batchMax != 0;
  if (batched && (numInputs == 0 || shapes[0].empty() ||
                  shapes[0][0] < plan.batchMin || shapes[0][0] > plan.batchMax))
    return nb::none();
  std::vector<nb::object> results;
  results.reserve(plan.outputNames.size());
  for (size_t i = 0; i < plan.outputNames.size(); ++i) {
    nb::object shape = plan.outputShapes[i];
    if (batched) {
      nb::list batched(shape);
      batched[0] = nb::int_(shapes[0][0]);
      shape = nb::tuple(batched);
    }
    results.push_back(plan.empty(shape, plan.outputDtypes[i]));
    if (!viewOf(results.back().ptr(), /*writable=*/true, -1,
                shapes[numInputs + i], outputViews[i]))
      raiseError(invalidArgument, "numpy.empty made an array Tessel cannot "
                                  "write output " +
                                      std::to_string(i) + " to");
  }
  runOnce(session, inputViews.data(), inputViews.size(), outputViews.data(),
          outputViews.size());
  nb::dict named;
  for (size_t i = 0; i < results.size(); ++i)
    named[plan.outputNames[i]] = results[i];
  return std::move(named);
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

tessel_status PendingRun::waitBlocking() {
  std::lock_guard<std::mutex> lock(mutex);
  tessel_status status = nullptr;
  if (stream) {
    status = tessel_stream_synchronize(stream);
    tessel_stream_release(stream);
    stream = nullptr;
  }
  return status;
}

/// PendingRun.wait, called by CPython directly: a stream's waiter is a
/// daemon thread, which may wake while the interpreter finalizes (see
/// blockWithoutGil).
static PyObject *pendingWait(PyObject *self, PyObject *) {
  PendingRun *pending = instanceOf<PendingRun>(self, "a PendingRun");
  if (!pending)
    return nullptr;
  tessel_status status =
      blockWithoutGil([pending] { return pending->waitBlocking(); });
  if (status)
    return setError(status);
  Py_RETURN_NONE;
}

static PyMethodDef pendingWaitDef = {
    "wait", pendingWait, METH_NOARGS,
    "Blocks (GIL released) until the run has happened; raises its error."};

static nb::dict cacheStats(Session &session) {
  tessel_cache_stats stats{};
  stats.struct_size = sizeof(stats);
  tessel_status status =
      session.guard.callOpen([&](tessel_session *handle) {
        return tessel_session_get_cache_stats(handle, &stats);
      });
  check(status);
  nb::dict out;
  out["hits"] = stats.hits;
  out["misses"] = stats.misses;
  out["evictions"] = stats.evictions;
  out["entries"] = stats.entries;
  out["bytes"] = stats.bytes;
  out["capacity_bytes"] = stats.capacity_bytes;
  return out;
}

void bindSession(nb::module_ &module) {
  nb::class_<Session>(module, "Session")
      .def_prop_ro("num_threads",
                   [](Session &session) {
                     return session.guard.callOpen(
                         tessel_session_num_threads);
                   })
      .def("run", &run, nb::arg("inputs"), nb::arg("outputs"),
           "Runs once on this thread (GIL released); the arrays are "
           "C-contiguous, in descriptor order.")
      .def("run_named", &runNamed, nb::arg("plan"), nb::arg("inputs"),
           "Session.run's fast path: the outputs by name, or None (nothing "
           "run) when `inputs` is not a dict of exactly the plan's inputs, "
           "each an ndarray of its type, C-contiguous and aligned.")
      .def("run_async", &runAsync, nb::arg("stream"), nb::arg("inputs"),
           nb::arg("outputs"),
           "Queues one run on `stream`; the arrays must stay alive until "
           "the returned PendingRun's wait() has returned.")
      .def("cache_stats", &cacheStats,
           "The counts of the session's result cache, a dict (all 0 "
           "without one).")
      .def("close", [](Session &session) { session.guard.close(); })
      .def_prop_ro("closed",
                   [](Session &session) { return session.guard.closed(); });

  nb::class_<RunPlan>(module, "RunPlan")
      .def(nb::init<nb::list, nb::list, nb::list, nb::list, nb::list,
                    nb::object, nb::object, int64_t, int64_t>(),
           nb::arg("input_names"), nb::arg("input_codes"),
           nb::arg("output_names"), nb::arg("output_shapes"),
           nb::arg("output_dtypes"), nb::arg("empty"), nb::arg("ndarray"),
           nb::arg("batch_min") = 0, nb::arg("batch_max") = 0,
           "What run_named checks and makes: per input its name and Tessel "
           "element type code (-1: never taken), per output its name, shape "
           "tuple and NumPy dtype; numpy.empty and numpy.ndarray. With a "
           "dynamic batch (batch_max not 0) dimension 0 of every output is "
           "the first input's, when in [batch_min, batch_max].");

  nb::class_<PendingRun> pendingRun(module, "PendingRun");
  addRawMethod(pendingRun, &pendingWaitDef);
}

} // namespace tessel::python
