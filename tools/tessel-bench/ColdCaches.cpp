//===- ColdCaches.cpp - Runs that start with cold caches ------------------===//

#include "ColdCaches.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace tessel::bench {

namespace {

/// The size of the largest cache CPU 0 sees, from sysfs ("32768K"), or 0.
size_t lastLevelCacheBytes() {
  size_t best = 0;
  int bestLevel = 0;
  for (int index = 0; index < 16; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream levelFile(dir + "/level"), sizeFile(dir + "/size");
    int level = 0;
    std::string size;
    if (!(levelFile >> level) || !(sizeFile >> size) || size.empty())
      continue;
    size_t scale = 1;
    switch (size.back()) {
    case 'K':
      scale = size_t(1) << 10;
      break;
    case 'M':
      scale = size_t(1) << 20;
      break;
    case 'G':
      scale = size_t(1) << 30;
      break;
    default:
      break;
    }
    size_t bytes = std::strtoull(size.c_str(), nullptr, 10) * scale;
    if (level > bestLevel || (level == bestLevel && bytes > best)) {
      bestLevel = level;
      best = bytes;
    }
  }
  return best;
}

} // namespace

size_t coldCacheBytes() {
  // sysconf's LEVEL3_CACHE_SIZE is no help here: on a many-chiplet EPYC it
  // reports every chiplet's L3 together (320 MiB for a core that sees 32).
  constexpr size_t kMinimum = size_t(64) << 20, kMaximum = size_t(1) << 30;
  return std::clamp(2 * lastLevelCacheBytes(), kMinimum, kMaximum);
}

CacheFlusher::CacheFlusher(size_t bytes)
    : buffer(std::max<size_t>(1, bytes / sizeof(unsigned long)), 1) {}

void CacheFlusher::flush() {
  unsigned long sum = 0;
  for (unsigned long word : buffer)
    sum += word;
  // The sum is stored: the compiler keeps the reads.
  volatile unsigned long sink = sum;
  (void)sink;
}

} // namespace tessel::bench
