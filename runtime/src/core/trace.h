//===- trace.h - A Chrome trace-format timeline of the runtime -*- C++ -*-===//
//
// Internal to the runtime library. With TESSEL_TRACE=FILE.json in the
// environment when the library loads (or between tessel_trace_start and
// tessel_trace_stop), the runtime records what it does: model loads,
// runs (per session), each parallel loop of compiled code (named after
// the model nodes it computes) on every thread that worked on it, stream
// items from enqueue to completion, and the batching scheduler's requests
// and batches. The file is written at tessel_trace_stop or at exit, in the
// Chrome trace event format (JSON), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. docs/runtime.md, "Tracing", lists the events.
//
// When tracing is off, each instrumentation point costs one relaxed atomic
// load.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_TRACE_H
#define TESSEL_RUNTIME_CORE_TRACE_H

#include <atomic>
#include <cstdint>
#include <string>

namespace tessel::runtime::trace {

extern std::atomic<bool> gEnabled;

inline bool enabled() { return gEnabled.load(std::memory_order_relaxed); }

/// Microseconds since the trace started (steady clock).
double now();

/// A quoted, escaped JSON string.
std::string quote(const std::string &text);

/// Names the calling thread's track (once per thread is enough).
void nameThread(const std::string &name);

/// A span on the calling thread's track ("X" event). `args` is the body of
/// a JSON object ("\"k\": 1, ...") or empty.
void complete(const char *category, const std::string &name, double start,
              double end, const std::string &args = {});

/// The start and end of a span that may begin and end on different threads
/// ("b"/"e" async events, matched by category, name and `id`).
void asyncBegin(const char *category, const std::string &name, uint64_t id,
                const std::string &args = {});
void asyncEnd(const char *category, const std::string &name, uint64_t id,
              const std::string &args = {});

/// A fresh id for asyncBegin/asyncEnd.
uint64_t nextId();

/// Starts recording into `path` (written by stop()). False, with `error`,
/// when a trace is already recording.
bool start(const std::string &path, std::string &error);

enum class Stopped { Written, NotRecording, WriteFailed };

/// Stops recording and writes the file (`error` says why it could not).
Stopped stop(std::string &error);

/// A span on the calling thread from construction to destruction, recorded
/// only when tracing was on at construction.
class Span {
public:
  Span(const char *category, std::string name, std::string args = {})
      : on(enabled()) {
    if (on) {
      this->category = category;
      this->name = std::move(name);
      this->args = std::move(args);
      begin = now();
    }
  }
  ~Span() {
    if (on)
      complete(category, name, begin, now(), args);
  }
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;

  void setArgs(std::string value) { args = std::move(value); }

private:
  bool on;
  const char *category = nullptr;
  std::string name, args;
  double begin = 0;
};

} // namespace tessel::runtime::trace

#endif // TESSEL_RUNTIME_CORE_TRACE_H
