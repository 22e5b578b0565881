//===- MachineInfo.h - The machine record of a benchmark --------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_MACHINEINFO_H
#define TESSEL_TOOLS_TESSEL_BENCH_MACHINEINFO_H

#include <string>
#include <vector>

namespace tessel::bench {

/// What a benchmark result needs to say about the machine it ran on.
struct MachineInfo {
  std::string cpuModel; ///< "model name" of /proc/cpuinfo, or "unknown"
  int cores = 0;        ///< logical CPUs this process may run on
  /// The CPU flags that decide code generation (vector widths, FMA, dot
  /// products), in a fixed order; only those the CPU has.
  std::vector<std::string> flags;
  double loadAverage = -1; ///< 1-minute load average, -1 if unknown
};

/// Parses /proc/cpuinfo text (the first processor's "model name" and
/// "flags") into `info`.
void parseCpuInfo(const std::string &cpuinfo, MachineInfo &info);

/// Parses /proc/loadavg text; -1 when it cannot.
double parseLoadAverage(const std::string &loadavg);

/// Reads /proc/cpuinfo, /proc/loadavg and the process's CPU affinity.
MachineInfo readMachineInfo();

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_MACHINEINFO_H
