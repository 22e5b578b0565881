//===- tessel_ext.cpp - The extension module tessel._tessel_ext -----------===//
//
// nanobind bindings of the runtime's C API (tessel/runtime.h and
// tessel/scheduler.h) for the Python package `tessel`, which is the public
// API: this module is private.
//
//===----------------------------------------------------------------------===//

#include "objects.h"

NB_MODULE(_tessel_ext, module) {
  using namespace tessel::python;
  module.doc() = "Private: the runtime's C API for the tessel package.";
  // Handles still open at exit are the process's to reclaim.
  nb::set_leak_warnings(false);
  module.def("runtime_version", [] { return tessel_runtime_version(); });
  module.def("runtime_num_threads",
             [] { return tessel_runtime_num_threads(); });
  bindModel(module);
  bindSession(module);
  bindStream(module);
  bindScheduler(module);
}
