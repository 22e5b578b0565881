//===- trace.cpp - A Chrome trace-format timeline of the runtime ----------===//

#include "trace.h"

#include "build_info.h"
#include "log.h"
#include "status.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace tessel::runtime::trace {

std::atomic<bool> gEnabled{false};

namespace {

using Clock = std::chrono::steady_clock;

/// The recording, guarded by `mutex`. Never destroyed: pool workers may
/// record while the process exits.
struct Recording {
  std::mutex mutex;
  std::string path;
  // Read by now() without the mutex, while start() may set it.
  std::atomic<Clock::rep> origin{Clock::now().time_since_epoch().count()};
  std::vector<std::string> events; // JSON objects, in recording order
  std::map<int, std::string> names; // track -> thread name, kept across traces
};

Recording &recording() {
  static Recording *instance = new Recording;
  return *instance;
}

std::atomic<uint64_t> gNextId{1};
std::atomic<int> gNextTrack{1};

/// The calling thread's track id.
thread_local int tTrack = 0;

/// The calling thread's track id; a thread first seen gets its Linux
/// thread id as name until nameThread() gives a better one.
int track() {
  if (!tTrack) {
    tTrack = gNextTrack.fetch_add(1, std::memory_order_relaxed);
    Recording &r = recording();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.names.emplace(tTrack, "thread " + std::to_string(long(gettid())));
  }
  return tTrack;
}

std::string common(const char *phase, const char *category,
                   const std::string &name, double ts) {
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer),
                "\"ph\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f", phase,
                int(getpid()), track(), ts);
  return "{\"name\": " + quote(name) + ", \"cat\": " + quote(category) +
         ", " + buffer;
}

void record(std::string event) {
  Recording &r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (enabled())
    r.events.push_back(std::move(event));
}

std::string withArgs(std::string event, const std::string &args) {
  if (!args.empty())
    event += ", \"args\": {" + args + "}";
  return event + "}";
}

/// TESSEL_TRACE=FILE starts a trace when the library loads; it is written
/// at exit unless tessel_trace_stop wrote it before.
struct FromEnvironment {
  FromEnvironment() {
    const char *path = std::getenv("TESSEL_TRACE");
    if (!path || !*path)
      return;
    std::string error;
    if (!start(path, error))
      log::message(log::Warn, "TESSEL_TRACE: " + error);
  }
  ~FromEnvironment() {
    std::string error;
    if (stop(error) == Stopped::WriteFailed)
      log::message(log::Error, "TESSEL_TRACE: " + error);
  }
} fromEnvironment;

} // namespace

double now() {
  Clock::time_point origin{Clock::duration(
      recording().origin.load(std::memory_order_relaxed))};
  return std::chrono::duration<double, std::micro>(Clock::now() - origin)
      .count();
}

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      out += escape;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

void nameThread(const std::string &name) {
  int id = track();
  Recording &r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.names[id] = name;
}

void complete(const char *category, const std::string &name, double start,
              double end, const std::string &args) {
  char duration[48];
  std::snprintf(duration, sizeof(duration), ", \"dur\": %.3f",
                end > start ? end - start : 0.0);
  record(withArgs(common("X", category, name, start) + duration, args));
}

void asyncBegin(const char *category, const std::string &name, uint64_t id,
                const std::string &args) {
  record(withArgs(common("b", category, name, now()) +
                      ", \"id\": " + std::to_string(id),
                  args));
}

void asyncEnd(const char *category, const std::string &name, uint64_t id,
              const std::string &args) {
  record(withArgs(common("e", category, name, now()) +
                      ", \"id\": " + std::to_string(id),
                  args));
}

uint64_t nextId() { return gNextId.fetch_add(1, std::memory_order_relaxed); }

bool start(const std::string &path, std::string &error) {
  Recording &r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (enabled()) {
    error = "a trace is already recording into '" + r.path + "'";
    return false;
  }
  r.path = path;
  r.origin.store(Clock::now().time_since_epoch().count(),
                 std::memory_order_relaxed);
  r.events.clear();
  gEnabled.store(true, std::memory_order_relaxed);
  return true;
}

Stopped stop(std::string &error) {
  Recording &r = recording();
  std::vector<std::string> events;
  std::map<int, std::string> names;
  std::string path;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!enabled())
      return Stopped::NotRecording;
    gEnabled.store(false, std::memory_order_relaxed);
    events.swap(r.events);
    names = r.names;
    path = r.path;
  }
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return Stopped::WriteFailed;
  }
  std::fprintf(file, "{\"traceEvents\": [\n");
  std::fprintf(file,
               "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
               "\"tid\": 0, \"args\": {\"name\": \"tessel runtime\"}}",
               int(getpid()));
  for (const auto &[id, name] : names)
    std::fprintf(file,
                 ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
                 "\"tid\": %d, \"args\": {\"name\": %s}}",
                 int(getpid()), id, quote(name).c_str());
  for (const std::string &event : events)
    std::fprintf(file, ",\n%s", event.c_str());
  std::fprintf(file,
               "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": "
               "{\"tessel_version\": %s, \"tessel_revision\": %s}}\n",
               quote(build::release()).c_str(),
               quote(build::gitRevision()).c_str());
  bool written = std::ferror(file) == 0;
  written = std::fclose(file) == 0 && written;
  if (!written) {
    error = "cannot write '" + path + "'";
    return Stopped::WriteFailed;
  }
  log::message(log::Info, "trace written to '" + path + "' (" +
                              std::to_string(events.size()) + " events)");
  return Stopped::Written;
}

} // namespace tessel::runtime::trace

using namespace tessel::runtime;

extern "C" {

tessel_status tessel_trace_start(const char *path) {
  return guard([&]() -> tessel_status {
    if (!path || !*path)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_trace_start: the path is NULL or empty");
    std::string error;
    if (!trace::start(path, error))
      return makeStatus(TESSEL_INVALID_ARGUMENT, "tessel_trace_start: " + error);
    return nullptr;
  });
}

tessel_status tessel_trace_stop(void) {
  return guard([&]() -> tessel_status {
    std::string error;
    switch (trace::stop(error)) {
    case trace::Stopped::Written:
      return nullptr;
    case trace::Stopped::NotRecording:
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_trace_stop: no trace is recording");
    case trace::Stopped::WriteFailed:
      break;
    }
    return makeStatus(TESSEL_IO_ERROR, "tessel_trace_stop: " + error);
  });
}

} // extern "C"
