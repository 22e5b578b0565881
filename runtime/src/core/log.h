//===- log.h - The runtime's log ----------------------------------*- C++ -*-===//
//
// Internal to the runtime library. Messages at or below the level go to the
// callback set with tessel_set_log_callback, or else to stderr as
// "tessel[LEVEL]: message". The level is TESSEL_LOG (error, warn, info or
// debug; default warn), read once, or tessel_set_log_level.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_LOG_H
#define TESSEL_RUNTIME_CORE_LOG_H

#include "tessel/runtime.h"

#include <string>

namespace tessel::runtime::log {

enum Level {
  Error = TESSEL_LOG_ERROR,
  Warn = TESSEL_LOG_WARN,
  Info = TESSEL_LOG_INFO,
  Debug = TESSEL_LOG_DEBUG
};

/// Whether a message at `level` would be delivered: build costly messages
/// only when it is.
bool enabled(Level level);

void message(Level level, const std::string &text);

} // namespace tessel::runtime::log

#endif // TESSEL_RUNTIME_CORE_LOG_H
