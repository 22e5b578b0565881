//===- stream.cpp - Streams and asynchronous runs -------------------------===//

#include "stream.h"

#include "model.h"
#include "session.h"
#include "status.h"
#include "thread_pool.h"
#include "trace.h"

#include <utility>

using namespace tessel::runtime;

namespace tessel::runtime {

//===----------------------------------------------------------------------===//
// Marker
//===----------------------------------------------------------------------===//

bool Marker::done() const {
  std::lock_guard<std::mutex> lock(mutex);
  return isDone;
}

void Marker::wait() const {
  std::unique_lock<std::mutex> lock(mutex);
  completed.wait(lock, [&] { return isDone; });
}

void Marker::complete() {
  std::vector<std::function<void()>> toRun;
  {
    std::lock_guard<std::mutex> lock(mutex);
    isDone = true;
    toRun.swap(callbacks);
    completed.notify_all();
  }
  for (std::function<void()> &callback : toRun) {
    try {
      callback();
    } catch (...) {
      // Callbacks are the runtime's own and do not throw.
    }
  }
}

bool Marker::callWhenDone(std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex);
  if (isDone)
    return false;
  callbacks.push_back(std::move(callback));
  return true;
}

//===----------------------------------------------------------------------===//
// Stream
//===----------------------------------------------------------------------===//

Stream::Item::Item(Item &&other) noexcept
    : kind(other.kind), session(std::exchange(other.session, nullptr)),
      pointers(std::move(other.pointers)), batch(other.batch),
      length(other.length), marker(std::move(other.marker)),
      traceId(other.traceId) {}

Stream::Item &Stream::Item::operator=(Item &&other) noexcept {
  if (this != &other) {
    if (session)
      releaseSession(session);
    kind = other.kind;
    session = std::exchange(other.session, nullptr);
    pointers = std::move(other.pointers);
    batch = other.batch;
    length = other.length;
    marker = std::move(other.marker);
    traceId = other.traceId;
  }
  return *this;
}

Stream::Item::~Item() {
  if (session)
    releaseSession(session);
}

Stream::~Stream() { tessel_status_free(firstError); }

tessel_status Stream::enqueueRun(tessel_session *session,
                                 std::vector<void *> pointers, int64_t batch,
                                 int64_t length) {
  Item item;
  item.kind = Item::Kind::Run;
  retainSession(session);
  item.session = session;
  item.pointers = std::move(pointers);
  item.batch = batch;
  item.length = length;
  if (trace::enabled()) {
    // A span per run on the stream's track, from its enqueue to its end.
    item.traceId = trace::nextId();
    const char *model = session->model->desc->model_name;
    trace::asyncBegin("stream", "stream " + std::to_string(traceNumber),
                      item.traceId,
                      "\"model\": " + trace::quote(model ? model : ""));
  }
  return enqueue(std::move(item));
}

uint64_t Stream::nextTraceNumber() {
  static std::atomic<uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

tessel_status Stream::enqueueRecord(std::shared_ptr<Marker> marker) {
  bool idle;
  {
    std::lock_guard<std::mutex> lock(mutex);
    idle = !scheduled && queue.empty();
  }
  if (idle) { // everything queued before has run
    marker->complete();
    return nullptr;
  }
  Item item;
  item.kind = Item::Kind::Record;
  item.marker = std::move(marker);
  return enqueue(std::move(item));
}

tessel_status Stream::enqueueWait(std::shared_ptr<Marker> marker) {
  Item item;
  item.kind = Item::Kind::Wait;
  item.marker = std::move(marker);
  return enqueue(std::move(item));
}

tessel_status Stream::enqueue(Item item) {
  Item refused; // destroyed after the lock is released
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(item));
    ++submitted;
    if (scheduled || post()) {
      scheduled = true;
      return nullptr;
    }
    refused = std::move(queue.back());
    queue.pop_back();
    --submitted;
  }
  return makeStatus(TESSEL_OUT_OF_MEMORY,
                    "cannot queue work on the runtime's thread pool");
}

bool Stream::post() {
  try {
    std::shared_ptr<Stream> self = shared_from_this();
    return ThreadPool::get().submit([self] { self->step(); },
                                    /*urgent=*/false);
  } catch (...) {
    return false;
  }
}

void Stream::step() {
  for (;;) {
    Item item;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (queue.empty()) { // not reached: a step is posted for an item
        scheduled = false;
        progress.notify_all();
        return;
      }
      item = std::move(queue.front());
      queue.pop_front();
    }
    tessel_status error = nullptr;
    switch (item.kind) {
    case Item::Kind::Run:
      error = guard([&] {
        return runModel(item.session, item.pointers, item.batch, item.length);
      });
      if (item.traceId && trace::enabled()) {
        try {
          trace::asyncEnd("stream", "stream " + std::to_string(traceNumber),
                          item.traceId,
                          error ? "\"failed\": true" : std::string());
        } catch (...) { // out of memory: the span stays open
        }
      }
      break;
    case Item::Kind::Record:
      item.marker->complete();
      break;
    case Item::Kind::Wait: {
      std::shared_ptr<Marker> marker = std::move(item.marker);
      bool parked = false;
      try {
        std::shared_ptr<Stream> self = shared_from_this();
        parked = marker->callWhenDone([self] {
          if (self->finishItem(nullptr))
            self->step();
        });
      } catch (...) {
        marker->wait(); // out of memory: hold this thread instead
      }
      if (parked)
        return; // the marker's completion finishes this item
      break;
    }
    }
    item = Item(); // drop the session before the run counts as done
    if (!finishItem(error))
      return;
  }
}

bool Stream::finishItem(tessel_status error) {
  tessel_status dropped = nullptr;
  bool runNextHere = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++finished;
    if (error && !firstError) {
      firstError = error;
    } else if (error) {
      ++laterErrors;
      dropped = error;
    }
    if (queue.empty())
      scheduled = false;
    else if (!post())
      runNextHere = true; // out of memory: keep going on this thread
    progress.notify_all();
  }
  tessel_status_free(dropped);
  return runNextHere;
}

tessel_status Stream::synchronize() {
  tessel_status error = nullptr;
  uint64_t others = 0;
  {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t target = submitted;
    progress.wait(lock, [&] { return finished >= target; });
    error = std::exchange(firstError, nullptr);
    others = std::exchange(laterErrors, 0);
  }
  if (error && others > 0 && error != outOfMemoryStatus()) {
    try {
      error->message += " (and " + std::to_string(others) + " later error" +
                        (others == 1 ? "" : "s") + " on this stream)";
    } catch (...) {
    }
  }
  return error;
}

} // namespace tessel::runtime

extern "C" {

int32_t tessel_runtime_num_threads(void) {
  return ThreadPool::configuredSize();
}

tessel_status tessel_stream_create(const tessel_stream_options *options,
                                   tessel_stream **out_stream) {
  return guard([&]() -> tessel_status {
    if (!out_stream)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_stream_create: out_stream is NULL");
    if (options) {
      constexpr size_t kOptionsSizeV1 =
          offsetof(tessel_stream_options, flags) + sizeof(uint32_t);
      if (options->struct_size < kOptionsSizeV1)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_stream_create: options->struct_size is " +
                              std::to_string(options->struct_size) +
                              "; set it to sizeof(tessel_stream_options)");
      if (options->flags != 0)
        return makeStatus(TESSEL_INVALID_ARGUMENT,
                          "tessel_stream_create: options->flags is " +
                              std::to_string(options->flags) +
                              "; no flags are defined, use 0");
    }
    if (ThreadPool::get().size() == 0)
      return makeStatus(TESSEL_RUNTIME_ERROR,
                        "tessel_stream_create: the runtime's thread pool "
                        "could not start any thread");
    auto stream = std::make_unique<tessel_stream>();
    stream->stream = std::make_shared<Stream>();
    *out_stream = stream.release();
    return nullptr;
  });
}

void tessel_stream_release(tessel_stream *stream) {
  if (!stream)
    return;
  try {
    tessel_status_free(stream->stream->synchronize());
  } catch (...) {
    // Could not wait: the work still holds the stream's state, so dropping
    // the handle is safe.
  }
  delete stream;
}

tessel_status tessel_stream_synchronize(tessel_stream *stream) {
  return guard([&]() -> tessel_status {
    if (!stream)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_stream_synchronize: stream is NULL");
    return stream->stream->synchronize();
  });
}

tessel_status tessel_run_async(tessel_session *session, tessel_stream *stream,
                               const tessel_tensor_view *inputs,
                               size_t num_inputs,
                               const tessel_tensor_view *outputs,
                               size_t num_outputs) {
  return guard([&]() -> tessel_status {
    if (!session)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_run_async: session is NULL");
    if (!stream)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_run_async: stream is NULL");
    int64_t batch = 1, length = 0;
    if (tessel_status status = checkRunArguments(
            session, inputs, num_inputs, outputs, num_outputs, batch, length))
      return status;
    std::vector<void *> pointers =
        collectDataPointers(inputs, num_inputs, outputs, num_outputs);
    return stream->stream->enqueueRun(session, std::move(pointers), batch,
                                      length);
  });
}

} // extern "C"
