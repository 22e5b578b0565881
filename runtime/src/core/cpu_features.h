//===- cpu_features.h - Does the host have the target features? -*- C++ -*-===//
//
// Internal to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_CPU_FEATURES_H
#define TESSEL_RUNTIME_CORE_CPU_FEATURES_H

#include <string>
#include <vector>

namespace tessel::runtime {

/// Parses an LLVM target feature string ("+avx2,+fma,-avx512f") and returns
/// the features it enables that this host lacks, in order of first
/// appearance. As in LLVM, a later `+f` or `-f` overrides an earlier one.
/// Features the runtime cannot test are ignored. A NULL or empty string needs
/// nothing.
std::vector<std::string> missingCpuFeatures(const char *targetFeatures);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_CPU_FEATURES_H
