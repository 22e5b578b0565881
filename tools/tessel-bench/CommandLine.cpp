//===- CommandLine.cpp - Argument parsing shared by the bench tools -------===//

#include "CommandLine.h"

#include <cerrno>
#include <cstdlib>

bool tessel::bench::parseLong(const char *text, long minimum, long &out) {
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < minimum)
    return false;
  out = value;
  return true;
}
