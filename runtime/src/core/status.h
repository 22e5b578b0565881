//===- status.h - Building tessel_status objects ----------------*- C++ -*-===//
//
// Internal to the runtime library. Every C entry point runs its body through
// guard() so that no C++ exception crosses the C boundary.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_STATUS_H
#define TESSEL_RUNTIME_CORE_STATUS_H

#include "tessel/runtime.h"

#include <exception>
#include <new>
#include <string>

struct tessel_status_s {
  tessel_status_code code;
  std::string message;
};

namespace tessel::runtime {

/// Returns a new status owned by the caller. Never fails: when memory runs
/// out it returns a shared static out-of-memory status instead.
tessel_status makeStatus(tessel_status_code code, const std::string &message);

/// Returns the static out-of-memory status (tessel_status_free ignores it).
tessel_status outOfMemoryStatus();

/// Returns `'name'`.
std::string quoted(const char *name);

/// Runs `body` (which returns a tessel_status) and turns any escaping
/// exception into a status.
template <typename Body> tessel_status guard(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return outOfMemoryStatus();
  } catch (const std::exception &e) {
    return makeStatus(TESSEL_RUNTIME_ERROR,
                      std::string("internal runtime error: ") + e.what());
  } catch (...) {
    return makeStatus(TESSEL_RUNTIME_ERROR,
                      "internal runtime error: unknown exception");
  }
}

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_STATUS_H
