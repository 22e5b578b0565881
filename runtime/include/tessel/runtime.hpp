//===- tessel/runtime.hpp - C++17 wrapper over the runtime C API -*- C++
//-*-===//
//
// Header-only RAII wrappers over tessel/runtime.h. They throw nothing: every
// fallible call returns a tessel::Status. Ownership and thread-safety are
// those of the C functions each method calls.
//
//   tessel::Model model;
//   if (tessel::Status s = tessel::Model::load("model.so", model); !s.ok())
//     std::cerr << s.message() << "\n";
//
//   tessel::Stream stream;
//   tessel::Stream::create(stream);
//   session.runAsync(stream, inputs, outputs);   // returns at once
//   tessel::Status s = stream.synchronize();      // the run's error, if any
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_HPP
#define TESSEL_RUNTIME_HPP

#include "tessel/runtime.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tessel {

/// Owns a tessel_status; a default-constructed Status is success.
class Status {
public:
  Status() = default;
  /// Takes ownership of `status` (NULL: success).
  explicit Status(tessel_status status) : status(status) {}
  Status(Status &&other) noexcept : status(other.release()) {}
  Status &operator=(Status &&other) noexcept {
    if (this != &other) {
      tessel_status_free(status);
      status = other.release();
    }
    return *this;
  }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  ~Status() { tessel_status_free(status); }

  bool ok() const { return status == nullptr; }
  tessel_status_code code() const { return tessel_status_get_code(status); }
  /// The message; "" on success. Valid while this Status lives.
  const char *message() const { return tessel_status_get_message(status); }
  /// Gives up ownership of the C status.
  tessel_status release() { return std::exchange(status, nullptr); }

private:
  tessel_status status = nullptr;
};

/// Owns one reference to a tessel_model.
class Model {
public:
  Model() = default;
  Model(Model &&other) noexcept : model(std::exchange(other.model, nullptr)) {}
  Model &operator=(Model &&other) noexcept {
    if (this != &other) {
      tessel_model_release(model);
      model = std::exchange(other.model, nullptr);
    }
    return *this;
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  ~Model() { tessel_model_release(model); }

  /// Loads the artifact at `path` into `out` (replacing what it held).
  static Status load(const std::string &path, Model &out) {
    tessel_model *loaded = nullptr;
    Status status(tessel_model_load(path.c_str(), &loaded));
    if (status.ok())
      out = Model(loaded);
    return status;
  }

  bool valid() const { return model != nullptr; }
  tessel_model *get() const { return model; }

  /// Borrowed from the model: valid while this Model (or a session) holds it.
  const tessel_model_desc *descriptor() const {
    return tessel_model_descriptor(model);
  }
  size_t numInputs() const { return tessel_model_num_inputs(model); }
  size_t numOutputs() const { return tessel_model_num_outputs(model); }
  const tessel_tensor_desc *input(size_t index) const {
    return tessel_model_input(model, index);
  }
  /// The value input `index` was fixed to at compile time, or nullptr.
  const void *inputFixedValue(size_t index) const {
    return tessel_model_input_fixed_value(model, index);
  }
  const tessel_tensor_desc *output(size_t index) const {
    return tessel_model_output(model, index);
  }
  /// Whether the artifact has a dynamic batch (tessel_model_batch_range):
  /// true with its range in `min` and `max`, else false with 0 in both.
  bool batchRange(int64_t &min, int64_t &max) const {
    return tessel_model_batch_range(model, &min, &max) != 0;
  }
  /// Whether the artifact has a padded dimension
  /// (tessel_model_padded_range): true with its range in `min` and `max`,
  /// else false with 0 in both.
  bool paddedRange(int64_t &min, int64_t &max) const {
    return tessel_model_padded_range(model, &min, &max) != 0;
  }

private:
  explicit Model(tessel_model *model) : model(model) {}
  tessel_model *model = nullptr;
};

/// Owns a tensor allocated by tessel_tensor_alloc.
class Tensor {
public:
  Tensor() = default;
  Tensor(Tensor &&other) noexcept : tensor(std::exchange(other.tensor, {})) {}
  Tensor &operator=(Tensor &&other) noexcept {
    if (this != &other) {
      tessel_tensor_free(&tensor);
      tensor = std::exchange(other.tensor, {});
    }
    return *this;
  }
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  ~Tensor() { tessel_tensor_free(&tensor); }

  /// Allocates a zeroed tensor of `dtype` and `shape` into `out`.
  static Status alloc(int32_t dtype, const std::vector<int64_t> &shape,
                      Tensor &out) {
    tessel_tensor_view view{};
    Status status(
        tessel_tensor_alloc(dtype, int32_t(shape.size()), shape.data(), &view));
    if (status.ok()) {
      out = Tensor();
      out.tensor = view;
    }
    return status;
  }
  /// Allocates a zeroed tensor matching a model input or output.
  static Status alloc(const tessel_tensor_desc &desc, Tensor &out) {
    return alloc(desc.dtype,
                 std::vector<int64_t>(desc.shape, desc.shape + desc.rank), out);
  }

  /// The view; valid while this Tensor lives.
  const tessel_tensor_view &view() const { return tensor; }
  void *data() const { return tensor.data; }
  size_t sizeBytes() const { return tensor.size_bytes; }

private:
  tessel_tensor_view tensor{};
};

/// Owns a tessel_stream: an in-order queue of runs served by the runtime's
/// thread pool. Destroying it waits for the work queued on it.
class Stream {
public:
  Stream() = default;
  Stream(Stream &&other) noexcept
      : stream(std::exchange(other.stream, nullptr)) {}
  Stream &operator=(Stream &&other) noexcept {
    if (this != &other) {
      tessel_stream_release(stream);
      stream = std::exchange(other.stream, nullptr);
    }
    return *this;
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream() { tessel_stream_release(stream); }

  /// Creates a stream into `out` (replacing, after waiting for, what it
  /// held).
  static Status create(Stream &out) {
    tessel_stream *created = nullptr;
    Status status(tessel_stream_create(nullptr, &created));
    if (status.ok())
      out = Stream(created);
    return status;
  }

  bool valid() const { return stream != nullptr; }
  tessel_stream *get() const { return stream; }

  /// Waits for the work queued so far; the first error since the last call.
  Status synchronize() { return Status(tessel_stream_synchronize(stream)); }

private:
  explicit Stream(tessel_stream *stream) : stream(stream) {}
  tessel_stream *stream = nullptr;
};

/// Owns a tessel_event: a marker in a stream (see tessel_event_record).
class Event {
public:
  Event() = default;
  Event(Event &&other) noexcept : event(std::exchange(other.event, nullptr)) {}
  Event &operator=(Event &&other) noexcept {
    if (this != &other) {
      tessel_event_release(event);
      event = std::exchange(other.event, nullptr);
    }
    return *this;
  }
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event() { tessel_event_release(event); }

  /// Creates an event, not yet recorded, into `out`.
  static Status create(Event &out) {
    tessel_event *created = nullptr;
    Status status(tessel_event_create(&created));
    if (status.ok())
      out = Event(created);
    return status;
  }

  bool valid() const { return event != nullptr; }
  tessel_event *get() const { return event; }

  /// Marks the work queued on `stream` so far.
  Status record(const Stream &stream) {
    return Status(tessel_event_record(event, stream.get()));
  }
  /// Makes work queued on `stream` from now on wait for this event.
  Status waitOn(const Stream &stream) const {
    return Status(tessel_stream_wait_event(stream.get(), event));
  }
  /// Sets `ready` without blocking.
  Status query(bool &ready) const {
    int32_t flag = 0;
    Status status(tessel_event_query(event, &flag));
    if (status.ok())
      ready = flag != 0;
    return status;
  }
  /// Blocks until the event has completed.
  Status synchronize() const { return Status(tessel_event_synchronize(event)); }

private:
  explicit Event(tessel_event *event) : event(event) {}
  tessel_event *event = nullptr;
};

/// Owns a tessel_session.
class Session {
public:
  Session() = default;
  Session(Session &&other) noexcept
      : session(std::exchange(other.session, nullptr)) {}
  Session &operator=(Session &&other) noexcept {
    if (this != &other) {
      tessel_session_release(session);
      session = std::exchange(other.session, nullptr);
    }
    return *this;
  }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() { tessel_session_release(session); }

  /// Creates a session for `model` into `out`; `numThreads` 0 = all cores;
  /// `resultCacheBytes` 0 = no result cache (see tessel_session_options).
  static Status create(const Model &model, Session &out, int32_t numThreads = 0,
                       uint64_t resultCacheBytes = 0) {
    tessel_session_options options{sizeof(tessel_session_options), numThreads,
                                   resultCacheBytes};
    tessel_session *created = nullptr;
    Status status(tessel_session_create(model.get(), &options, &created));
    if (status.ok()) {
      out = Session();
      out.session = created;
    }
    return status;
  }

  bool valid() const { return session != nullptr; }
  tessel_session *get() const { return session; }
  int32_t numThreads() const { return tessel_session_num_threads(session); }

  /// The counts of the session's result cache (all 0 without one).
  Status cacheStats(tessel_cache_stats &out) const {
    out = tessel_cache_stats{};
    out.struct_size = sizeof(out);
    return Status(tessel_session_get_cache_stats(session, &out));
  }

  /// Runs once; views in descriptor order (see tessel_session_run).
  Status run(const tessel_tensor_view *inputs, size_t numInputs,
             const tessel_tensor_view *outputs, size_t numOutputs) {
    return Status(
        tessel_session_run(session, inputs, numInputs, outputs, numOutputs));
  }
  Status run(const std::vector<tessel_tensor_view> &inputs,
             const std::vector<tessel_tensor_view> &outputs) {
    return run(inputs.data(), inputs.size(), outputs.data(), outputs.size());
  }

  /// Queues one run on `stream` and returns at once; the buffers the views
  /// point at must live until it has run (see tessel_run_async). Argument
  /// errors come back now; errors of the run from stream.synchronize().
  Status runAsync(const Stream &stream, const tessel_tensor_view *inputs,
                  size_t numInputs, const tessel_tensor_view *outputs,
                  size_t numOutputs) {
    return Status(tessel_run_async(session, stream.get(), inputs, numInputs,
                                   outputs, numOutputs));
  }
  Status runAsync(const Stream &stream,
                  const std::vector<tessel_tensor_view> &inputs,
                  const std::vector<tessel_tensor_view> &outputs) {
    return runAsync(stream, inputs.data(), inputs.size(), outputs.data(),
                    outputs.size());
  }

private:
  tessel_session *session = nullptr;
};

} // namespace tessel

#endif // TESSEL_RUNTIME_HPP
