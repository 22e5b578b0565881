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

/// Asks Linux, once per process, for the AMX tile state
/// (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); every thread of
/// the process may then run tile instructions. Empty when granted, else why
/// not ("this kernel does not grant AMX tile state to processes: ...").
std::string requestAmxTileState();

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_CPU_FEATURES_H
