//===- handles.h - Runtime handles and errors for the Python binding ------===//
//
// What every file of the extension shares: raising tessel.TesselError from a
// tessel_status, a runtime handle that Python may close while other threads
// use it, and the views over NumPy arrays handed to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PYTHON_SRC_HANDLES_H
#define TESSEL_PYTHON_SRC_HANDLES_H

#include "tessel/runtime.h"

#include <nanobind/nanobind.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessel::python {

namespace nb = nanobind;

/// The C API's name of TESSEL_INVALID_ARGUMENT, for the binding's own errors.
inline constexpr const char *invalidArgument = "invalid argument";

/// Raises tessel.TesselError(codeName, message). Call with the GIL held.
[[noreturn]] void raiseError(const char *codeName, const std::string &message);

/// Raises the TesselError that `status` describes, after freeing it; does
/// nothing on success (NULL). Takes ownership. Call with the GIL held.
void check(tessel_status status);

/// True while the interpreter runs; false once it is finalizing, when a
/// destructor must neither release the GIL nor wait for the runtime.
bool interpreterAlive();

/// Runs `block()`, which must not throw, with the GIL released, and returns
/// what it returns. For the waits of the package's daemon threads (stream
/// and scheduler waiters), which may wake while the interpreter finalizes:
/// taking the GIL back then ends the thread (Python 3.13 and older call
/// pthread_exit there), and the unwinding that ends it aborts the process
/// if it meets a noexcept frame, such as the destructor of
/// nb::gil_scoped_release, or a catch (...) that does not rethrow, such as
/// nanobind's dispatcher. So call this only from a function that CPython
/// calls directly (a PyMethodDef function: addRawMethod) and that holds
/// no Python references in C++ objects across the call: the unwinding then
/// meets only that frame and the interpreter's, as in any C extension.
template <typename Block> auto blockWithoutGil(Block &&block) {
  PyThreadState *state = PyEval_SaveThread();
  auto result = block();
  PyEval_RestoreThread(state);
  return result;
}

/// For a PyMethodDef function: sets the TesselError that `status` (not
/// NULL) describes, after freeing it, and returns NULL.
PyObject *setError(tessel_status status);

/// Adds `def` (of static storage, METH_NOARGS or METH_O) to the nanobind
/// class `cls` as a method that CPython calls directly, bypassing
/// nanobind's dispatcher (see blockWithoutGil).
void addRawMethod(nb::handle cls, PyMethodDef *def);

/// The C++ object of a nanobind instance of `T` (or of a subclass); NULL,
/// with a TypeError set, for anything else. Never throws.
template <typename T> T *instanceOf(PyObject *object, const char *what) {
  T *pointer = nullptr;
  if (!nb::try_cast<T *>(nb::handle(object), pointer, /*convert=*/false) ||
      !pointer) {
    PyErr_Format(PyExc_TypeError, "expected %s", what);
    return nullptr;
  }
  return pointer;
}

/// The Tessel element type of a buffer from its struct-module `format` and
/// `itemsize` (Py_buffer's fields); -1 when Tessel has none.
int32_t formatCode(const char *format, Py_ssize_t itemsize);

/// Points `view` at `buffer`'s memory as element type `code`, its shape
/// copied into `shape` (which must outlive the view).
void fillView(const Py_buffer &buffer, int32_t code,
              std::vector<int64_t> &shape, tessel_tensor_view &view);

/// An owned runtime handle that one thread may close while others use it.
/// Uses and the close take the lock with the GIL released, and never take
/// the GIL while holding it, so runs and waits do not hold the GIL.
template <typename T> class Guarded {
public:
  using Release = void (*)(T *);

  Guarded(T *handle, Release release, const char *kind)
      : handle(handle), release(release), kind(kind) {}
  Guarded(const Guarded &) = delete;
  Guarded &operator=(const Guarded &) = delete;
  ~Guarded() {
    if (!handle)
      return;
    if (!interpreterAlive())
      return; // The process is ending: leave the handle to it.
    close();
  }

  /// Holds the handle open while alive; `handle` is NULL once closed.
  struct Use {
    std::shared_lock<std::shared_mutex> lock;
    T *handle;
  };
  /// Call with the GIL released.
  Use use() {
    std::shared_lock<std::shared_mutex> lock(mutex);
    T *current = handle;
    return {std::move(lock), current};
  }

  /// Calls `call(handle)` with the GIL released and the handle held open,
  /// and returns what it returns; raises "the <kind> is closed" instead
  /// when it is. Call with the GIL held.
  template <typename Call> auto callOpen(Call &&call) {
    decltype(call(std::declval<T *>())) result{};
    bool isClosed = false;
    {
      nb::gil_scoped_release noGil;
      Use current = use();
      isClosed = !current.handle;
      if (!isClosed)
        result = call(current.handle);
    }
    if (isClosed)
      raiseClosed();
    return result;
  }

  /// As callOpen, for calls that never block, without releasing the GIL:
  /// while no close is under way, calls `call(handle)` at once, so that
  /// what the caller does before and after happens in one piece with
  /// respect to other Python threads. While a close is under way it waits
  /// as callOpen does (GIL released), then raises "the <kind> is closed".
  template <typename Call> auto callOpenNow(Call &&call) {
    {
      std::shared_lock<std::shared_mutex> lock(mutex, std::try_to_lock);
      if (lock.owns_lock()) {
        if (!handle)
          raiseClosed();
        return call(handle);
      }
    }
    return callOpen(std::forward<Call>(call));
  }

  /// Releases the handle, waiting (GIL released) for current uses and for
  /// what the release itself waits for. Later calls are no-ops.
  void close() {
    nb::gil_scoped_release noGil;
    std::unique_lock<std::shared_mutex> lock(mutex);
    if (T *current = std::exchange(handle, nullptr))
      release(current);
  }

  bool closed() {
    std::shared_lock<std::shared_mutex> lock(mutex);
    return handle == nullptr;
  }

  /// Raises "the <kind> is closed". Call with the GIL held.
  [[noreturn]] void raiseClosed() const {
    raiseError(invalidArgument, std::string("the ") + kind + " is closed");
  }

private:
  std::shared_mutex mutex;
  T *handle;
  Release release;
  const char *kind;
};

/// Views over NumPy arrays, checked to be C-contiguous CPU arrays of a
/// Tessel element type. They borrow the arrays' memory: keep the arrays
/// alive while the views are used. Build them with the GIL held.
class Views {
public:
  /// `arrays` is a sequence of ndarrays; `writable` for outputs. `what` is
  /// "input" or "output", for messages.
  Views(nb::handle arrays, bool writable, const char *what);

  const tessel_tensor_view *data() const { return views.data(); }
  size_t size() const { return views.size(); }

private:
  std::vector<std::vector<int64_t>> shapes;
  std::vector<tessel_tensor_view> views;
};

} // namespace tessel::python

#endif // TESSEL_PYTHON_SRC_HANDLES_H
