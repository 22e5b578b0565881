//===- status.cpp - tessel_status and its accessors
//------------------------===//

#include "status.h"

#include <cstring>

namespace tessel::runtime {

namespace {
// Returned when even a status cannot be allocated. Never freed.
tessel_status_s outOfMemorySentinel{TESSEL_OUT_OF_MEMORY, "out of memory"};
} // namespace

tessel_status outOfMemoryStatus() { return &outOfMemorySentinel; }

tessel_status makeStatus(tessel_status_code code, const std::string &message) {
  auto *status = new (std::nothrow) tessel_status_s{code, std::string()};
  if (!status)
    return outOfMemoryStatus();
  try {
    status->message = message;
  } catch (...) {
    delete status;
    return outOfMemoryStatus();
  }
  return status;
}

std::string quoted(const char *name) {
  return std::string("'") + (name ? name : "") + "'";
}

} // namespace tessel::runtime

using namespace tessel::runtime;

extern "C" {

tessel_status_code tessel_status_get_code(tessel_status status) {
  return status ? status->code : TESSEL_OK;
}

const char *tessel_status_get_message(tessel_status status) {
  return status ? status->message.c_str() : "";
}

void tessel_status_free(tessel_status status) {
  if (status != outOfMemoryStatus())
    delete status;
}

const char *tessel_status_code_name(tessel_status_code code) {
  // A C caller may pass any int. In C++, loading an enum outside its
  // enumerators' range is undefined, so the value is read as its bytes.
  int value;
  static_assert(sizeof(value) == sizeof(code), "a C enum is an int");
  std::memcpy(&value, &code, sizeof(value));
  switch (value) {
  case TESSEL_OK:
    return "ok";
  case TESSEL_INVALID_ARGUMENT:
    return "invalid argument";
  case TESSEL_NOT_FOUND:
    return "not found";
  case TESSEL_IO_ERROR:
    return "I/O error";
  case TESSEL_INVALID_ARTIFACT:
    return "invalid artifact";
  case TESSEL_INCOMPATIBLE:
    return "incompatible";
  case TESSEL_RUNTIME_ERROR:
    return "runtime error";
  case TESSEL_OUT_OF_MEMORY:
    return "out of memory";
  case TESSEL_DEADLINE_EXCEEDED:
    return "deadline exceeded";
  case TESSEL_RESOURCE_EXHAUSTED:
    return "resource exhausted";
  }
  return "unknown status code";
}

} // extern "C"
