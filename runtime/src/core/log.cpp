//===- log.cpp - The runtime's log ----------------------------------------===//

#include "log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tessel::runtime::log {

namespace {

const char *levelName(int level) {
  switch (level) {
  case TESSEL_LOG_ERROR:
    return "error";
  case TESSEL_LOG_WARN:
    return "warn";
  case TESSEL_LOG_INFO:
    return "info";
  default:
    return "debug";
  }
}

struct Sink {
  std::mutex mutex; // serialises delivery, and guards the callback
  tessel_log_fn callback = nullptr;
  void *userData = nullptr;
  std::atomic<int> level{TESSEL_LOG_WARN};

  Sink() {
    const char *value = std::getenv("TESSEL_LOG");
    if (!value || !*value)
      return;
    for (int l = TESSEL_LOG_ERROR; l <= TESSEL_LOG_DEBUG; ++l)
      if (std::strcmp(value, levelName(l)) == 0) {
        level.store(l, std::memory_order_relaxed);
        return;
      }
    std::fprintf(stderr,
                 "tessel[warn]: TESSEL_LOG='%s' is not a level (error, warn, "
                 "info, debug); using warn\n",
                 value);
  }
};

Sink &sink() {
  static Sink *instance = new Sink; // usable during static destruction
  return *instance;
}

/// TESSEL_LOG is read (and a bad value reported) when the library loads.
[[maybe_unused]] const bool sinkReady = (sink(), true);

} // namespace

bool enabled(Level level) {
  return int(level) <= sink().level.load(std::memory_order_relaxed);
}

void message(Level level, const std::string &text) {
  if (!enabled(level))
    return;
  Sink &s = sink();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.callback)
    s.callback(tessel_log_level(level), text.c_str(), s.userData);
  else
    std::fprintf(stderr, "tessel[%s]: %s\n", levelName(level), text.c_str());
}

} // namespace tessel::runtime::log

using namespace tessel::runtime;

extern "C" {

void tessel_set_log_callback(tessel_log_fn callback, void *user_data) {
  log::Sink &s = log::sink();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.callback = callback;
  s.userData = callback ? user_data : nullptr;
}

void tessel_set_log_level(tessel_log_level level) {
  // A C caller may pass any int. In C++, loading an enum outside its
  // enumerators' range is undefined, so the value is read as its bytes.
  int raw;
  static_assert(sizeof(raw) == sizeof(level), "a C enum is an int");
  std::memcpy(&raw, &level, sizeof(raw));
  int value = raw < TESSEL_LOG_ERROR   ? TESSEL_LOG_ERROR
              : raw > TESSEL_LOG_DEBUG ? TESSEL_LOG_DEBUG
                                       : raw;
  log::sink().level.store(value, std::memory_order_relaxed);
}

tessel_log_level tessel_get_log_level(void) {
  return tessel_log_level(log::sink().level.load(std::memory_order_relaxed));
}

} // extern "C"
