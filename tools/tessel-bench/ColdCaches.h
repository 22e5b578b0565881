//===- ColdCaches.h - Runs that start with cold caches ----------*- C++ -*-===//
//
// tessel-bench --cold: before each run, read a buffer larger than the
// last-level cache, so that the run reads its weights and inputs and
// writes its workspace from and to memory, as the early layers of a larger
// model find them (a layer timed alone otherwise runs from warm caches:
// MobileNetV2's first conv 0.23 ms alone, 0.40 ms with --cold, about
// 0.5 ms inside the model by perf samples).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_COLDCACHES_H
#define TESSEL_TOOLS_TESSEL_BENCH_COLDCACHES_H

#include <cstddef>
#include <vector>

namespace tessel::bench {

/// Bytes to read between runs: twice the largest cache CPU 0 sees
/// (sysfs), at least 64 MiB (when it reports none) and at most 1 GiB.
size_t coldCacheBytes();

class CacheFlusher {
public:
  explicit CacheFlusher(size_t bytes);
  /// Reads the whole buffer (written once, when made: a never-written
  /// buffer would read the kernel's one zero page and evict nothing).
  /// Reading evicts the run's lines without leaving dirty ones for the
  /// next run to write back.
  void flush();
  size_t bytes() const { return buffer.size() * sizeof(buffer[0]); }

private:
  std::vector<unsigned long> buffer;
};

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_COLDCACHES_H
