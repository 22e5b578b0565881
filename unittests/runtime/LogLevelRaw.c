/*===- LogLevelRaw.c - A C caller's out-of-range log level ------*- C -*-===*
 *
 * In C any int converts to an enum; in C++ an enum value outside its range
 * is undefined behaviour, so LogTraceTest passes such values from here.
 *
 *===----------------------------------------------------------------------===*/

#include "tessel/runtime.h"

void tessel_test_set_log_level_raw(int level) {
  tessel_set_log_level((tessel_log_level)level);
}
