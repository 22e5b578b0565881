//===- BenchStats.h - Latency statistics for tessel-bench -------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_BENCHSTATS_H
#define TESSEL_TOOLS_TESSEL_BENCH_BENCHSTATS_H

#include <vector>

namespace tessel::bench {

/// Latency statistics of a set of samples, in the samples' unit.
struct Summary {
  double min = 0, max = 0, mean = 0, p50 = 0, p95 = 0, p99 = 0;
};

/// The `q`-quantile (0 <= q <= 1) of sorted samples by linear interpolation
/// between closest ranks (NumPy's default "linear" method). Empty input: 0.
double quantile(const std::vector<double> &sorted, double q);

/// Summarizes unsorted samples.
Summary summarize(std::vector<double> samples);

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_BENCHSTATS_H
