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

bool tessel::bench::parseDouble(const char *text, double minimum,
                                double maximum, double &out) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text, &end);
  // (The negated comparisons also refuse NaN.)
  if (errno != 0 || end == text || *end != '\0' || !(value >= minimum) ||
      !(value <= maximum))
    return false;
  out = value;
  return true;
}
