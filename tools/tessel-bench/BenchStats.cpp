//===- BenchStats.cpp - Latency statistics for tessel-bench ---------------===//

#include "BenchStats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessel::bench {

double quantile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return 0;
  q = std::clamp(q, 0.0, 1.0);
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

Summary summarize(std::vector<double> samples) {
  Summary summary;
  if (samples.empty())
    return summary;
  std::sort(samples.begin(), samples.end());
  summary.min = samples.front();
  summary.max = samples.back();
  summary.mean = std::accumulate(samples.begin(), samples.end(), 0.0) /
                 static_cast<double>(samples.size());
  summary.p50 = quantile(samples, 0.50);
  summary.p95 = quantile(samples, 0.95);
  summary.p99 = quantile(samples, 0.99);
  return summary;
}

} // namespace tessel::bench
