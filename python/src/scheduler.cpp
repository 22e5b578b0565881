//===- scheduler.cpp - tessel._tessel_ext.Scheduler and Request -----------===//
//
// The batching scheduler (tessel/scheduler.h). The C API says when a request
// has completed only to a thread that waits for it (tessel_request_wait) or
// asks (tessel_request_query): it has no completion callback. So the Python
// layer (tessel/_scheduler.py) completes futures from its own daemon
// threads, each blocked here, with the GIL released, in wait_first, which
// CPython calls directly (see blockWithoutGil in handles.h).
//
//===----------------------------------------------------------------------===//

#include "objects.h"

#include "tessel/scheduler.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::python {

Request::~Request() {
  // Never blocks: the scheduler keeps what it needs of a request that has
  // not completed, and the Python layer keeps its buffers.
  tessel_request_release(request);
}

bool Request::done() const {
  int32_t flag = 0;
  tessel_status status = tessel_request_query(request, &flag);
  tessel_status_free(status); // Only for NULL arguments.
  return flag != 0;
}

nb::object Request::outcome() {
  if (!done())
    raiseError(invalidArgument, "the request has not completed");
  // Returns at once: the request has completed.
  tessel_status status = tessel_request_wait(request);
  if (!status)
    return nb::none();
  const char *name = tessel_status_code_name(tessel_status_get_code(status));
  nb::tuple result =
      nb::make_tuple(std::string(name ? name : "unknown error"),
                     std::string(tessel_status_get_message(status)));
  tessel_status_free(status);
  return std::move(result);
}

/// Request.wait, called by CPython directly (see blockWithoutGil): blocks,
/// GIL released, until the request has completed; raises its error.
static PyObject *requestWait(PyObject *self, PyObject *) {
  Request *request = instanceOf<Request>(self, "a Request");
  if (!request)
    return nullptr;
  tessel_request *handle = request->request;
  tessel_status status =
      blockWithoutGil([handle] { return tessel_request_wait(handle); });
  if (status)
    return setError(status);
  Py_RETURN_NONE;
}

/// wait_first(requests), called by CPython directly (see blockWithoutGil):
/// the indices of the requests that have completed, after waiting (GIL
/// released) for the first one when none has.
static PyObject *waitFirst(PyObject *, PyObject *argument) {
  // A tuple of its own: holds the Requests while the GIL is released.
  PyObject *requests = PySequence_Tuple(argument);
  if (!requests)
    return nullptr;
  PyObject *result = nullptr;
  try {
    Py_ssize_t count = PyTuple_GET_SIZE(requests);
    std::vector<tessel_request *> handles;
    handles.reserve(size_t(count));
    for (Py_ssize_t i = 0; i < count; ++i) {
      Request *request =
          instanceOf<Request>(PyTuple_GET_ITEM(requests, i), "Requests");
      if (!request) {
        Py_DECREF(requests);
        return nullptr;
      }
      handles.push_back(request->request);
    }
    std::vector<size_t> done;
    done.reserve(handles.size()); // No allocation while the GIL is released.
    auto sweep = [&] {
      for (size_t i = 0; i < handles.size(); ++i) {
        int32_t flag = 0;
        tessel_status_free(tessel_request_query(handles[i], &flag));
        if (flag)
          done.push_back(i);
      }
      return true;
    };
    sweep(); // Requests complete a batch at a time: often several at once.
    if (done.empty() && !handles.empty())
      blockWithoutGil([&] {
        tessel_status_free(tessel_request_wait(handles.front()));
        return sweep();
      });
    result = PyList_New(Py_ssize_t(done.size()));
    for (size_t i = 0; result && i < done.size(); ++i) {
      PyObject *index = PyLong_FromSize_t(done[i]);
      if (!index)
        Py_CLEAR(result);
      else
        PyList_SET_ITEM(result, Py_ssize_t(i), index);
    }
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
  }
  Py_DECREF(requests);
  return result;
}

static PyMethodDef requestWaitDef = {
    "wait", requestWait, METH_NOARGS,
    "Blocks (GIL released) until it has completed; raises its error."};
static PyMethodDef waitFirstDef = {
    "wait_first", waitFirst, METH_O,
    "The indices of the requests (a sequence of Requests) that have "
    "completed, after blocking (GIL released) until the first one has when "
    "none has."};

static Scheduler *createScheduler(nb::list models, int32_t maxBatch,
                                  int64_t windowUs, int32_t queueLimit,
                                  int32_t maxConcurrentBatches,
                                  int32_t numThreads,
                                  uint64_t resultCacheBytes,
                                  int64_t targetP99Us) {
  std::vector<Model *> owners;
  for (nb::handle model : models)
    owners.push_back(nb::cast<Model *>(model));
  tessel_scheduler_options options{};
  options.struct_size = sizeof(options);
  options.max_batch = maxBatch;
  options.window_us = windowUs;
  options.queue_limit = queueLimit;
  options.max_concurrent_batches = maxConcurrentBatches;
  options.num_threads = numThreads;
  options.result_cache_bytes = resultCacheBytes;
  options.target_p99_us = targetP99Us;
  tessel_scheduler *scheduler = nullptr;
  tessel_status status = nullptr;
  size_t closedIndex = owners.size();
  {
    nb::gil_scoped_release noGil;
    // Every model held open (shared locks only, so no lock order to keep)
    // while the scheduler takes its own references.
    std::vector<Guarded<tessel_model>::Use> uses;
    std::vector<tessel_model *> handles;
    for (size_t i = 0; i < owners.size() && closedIndex == owners.size();
         ++i) {
      uses.push_back(owners[i]->guard.use());
      handles.push_back(uses.back().handle);
      if (!handles.back())
        closedIndex = i;
    }
    if (closedIndex == owners.size())
      status = tessel_scheduler_create(handles.data(), handles.size(),
                                       &options, &scheduler);
  }
  if (closedIndex != owners.size())
    raiseError(invalidArgument, "model " + std::to_string(closedIndex) +
                                    " ('" + owners[closedIndex]->name +
                                    "') is closed");
  check(status);
  return new Scheduler(scheduler);
}

static Request *submit(Scheduler &scheduler, nb::handle inputs,
                       nb::handle outputs, int32_t priority,
                       int64_t deadlineUs) {
  Views inputViews(inputs, /*writable=*/false, "input");
  Views outputViews(outputs, /*writable=*/true, "output");
  tessel_request_options options{sizeof(tessel_request_options), priority,
                                 deadlineUs};
  tessel_request *request = nullptr;
  // With the GIL held: submitting never blocks (it copies the views and
  // queues the request), and the Python layer calls this holding its
  // submission lock, which other threads would queue up behind while this
  // one waited to take the GIL back.
  check(scheduler.guard.callOpenNow([&](tessel_scheduler *handle) {
    return tessel_scheduler_submit(handle, inputViews.data(),
                                   inputViews.size(), outputViews.data(),
                                   outputViews.size(), &options, &request);
  }));
  return new Request(request);
}

static nb::dict stats(Scheduler &scheduler) {
  tessel_scheduler_stats stats{};
  stats.struct_size = sizeof(stats);
  check(scheduler.guard.callOpen([&](tessel_scheduler *handle) {
    return tessel_scheduler_get_stats(handle, &stats);
  }));
  nb::dict out;
  out["submitted"] = stats.submitted;
  out["rejected"] = stats.rejected;
  out["completed"] = stats.completed;
  out["deadline_exceeded"] = stats.deadline_exceeded;
  out["batches"] = stats.batches;
  out["model_runs"] = stats.model_runs;
  out["padded_rows"] = stats.padded_rows;
  out["cache_hits"] = stats.cache_hits;
  out["cache_misses"] = stats.cache_misses;
  out["cache_evictions"] = stats.cache_evictions;
  out["target_misses"] = stats.target_misses;
  return out;
}

static nb::list batchSizes(Scheduler &scheduler) {
  std::vector<int64_t> sizes = scheduler.guard.callOpen(
      [](tessel_scheduler *handle) {
        std::vector<int64_t> out;
        for (size_t i = 0, e = tessel_scheduler_num_models(handle); i < e; ++i)
          out.push_back(tessel_scheduler_batch_size(handle, i));
        return out;
      });
  nb::list out;
  for (int64_t size : sizes)
    out.append(size);
  return out;
}

void bindScheduler(nb::module_ &module) {
  nb::class_<Scheduler>(module, "Scheduler")
      .def_static("create", &createScheduler, nb::arg("models"),
                  nb::arg("max_batch"), nb::arg("window_us"),
                  nb::arg("queue_limit"), nb::arg("max_concurrent_batches"),
                  nb::arg("num_threads"), nb::arg("result_cache_bytes"),
                  nb::arg("target_p99_us"),
                  "tessel_scheduler_create over the extension Models; the "
                  "options as tessel_scheduler_options (0: the default).")
      .def("submit", &submit, nb::arg("inputs"), nb::arg("outputs"),
           nb::arg("priority"), nb::arg("deadline_us"),
           "Queues one request (GIL released while it is handed over); the "
           "arrays must stay alive and the inputs unchanged until it has "
           "completed.")
      .def("stats", &stats, "tessel_scheduler_stats as a dict.")
      .def("batch_sizes", &batchSizes, "The models' batch sizes, ascending.")
      .def("close", [](Scheduler &scheduler) { scheduler.guard.close(); },
           "tessel_scheduler_release (GIL released): waits until every "
           "queued request has completed.")
      .def_prop_ro("closed", [](Scheduler &scheduler) {
        return scheduler.guard.closed();
      });

  nb::class_<Request> request(module, "Request");
  request
      .def("done", &Request::done, "Whether it has completed; never blocks.")
      .def("outcome", &Request::outcome,
           "None (the outputs are written) or (code name, message); only "
           "once done.");
  addRawMethod(request, &requestWaitDef);

  nb::object function = nb::steal(PyCFunction_NewEx(
      &waitFirstDef, nullptr, nb::str("tessel._tessel_ext").ptr()));
  if (!function.is_valid())
    throw nb::python_error();
  module.attr("wait_first") = function;
}

} // namespace tessel::python
