/*===- stream.c - How fast one core reads a buffer from the caches --------===*
 *
 * usage: stream BYTES [REPEATS]
 *
 * The floor under a model whose time is spent reading its weights (the MLP
 * at batch 1 reads each weight once, for one multiply-add): the time one
 * core takes to read BYTES that were read before but are no longer in its
 * L2. Each timed read is preceded by an untimed read of an 8 MiB buffer,
 * which evicts the L2 (as the other systems' calls do in the benchmark's
 * rotation) and, on a CPU whose L3 holds both, leaves the BYTES in the L3.
 * The read ORs 64-bit words into 8 independent accumulators: the compiler
 * vectorises it (bench.py builds it -O3 -march=native
 * -mprefer-vector-width=512), and nothing but the loads bounds it.
 * REPEATS (default 5) rounds of 200 timed reads; prints one JSON object:
 *   {"bytes": B, "p50_us": [r1, ...], "best_us": min, "gbytes_per_s": B/min}
 * with each round's p50.
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + 1e-3 * t.tv_nsec;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

__attribute__((noinline, noipa)) static uint64_t readAll(const uint64_t *p,
                                                  size_t words) {
  uint64_t a[8] = {0};
  size_t i = 0;
  for (; i + 8 <= words; i += 8)
    for (int k = 0; k < 8; ++k)
      a[k] |= p[i + k];
  for (; i < words; ++i)
    a[0] |= p[i];
  return a[0] | a[1] | a[2] | a[3] | a[4] | a[5] | a[6] | a[7];
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: stream BYTES [REPEATS]\n");
    return 2;
  }
  size_t bytes = strtoull(argv[1], NULL, 10);
  int repeats = argc > 2 ? atoi(argv[2]) : 5;
  enum { kRounds = 200 };
  const size_t evictBytes = (size_t)8 << 20;
  if (bytes < 64 || repeats < 1) {
    fprintf(stderr, "stream: BYTES must be >= 64, REPEATS >= 1\n");
    return 2;
  }
  size_t words = bytes / 8;
  uint64_t *data = aligned_alloc(64, (words * 8 + 63) / 64 * 64);
  uint64_t *evict = aligned_alloc(64, evictBytes);
  if (!data || !evict) {
    fprintf(stderr, "stream: out of memory\n");
    return 1;
  }
  // Distinct values: a page the kernel never wrote would read as its one
  // shared zero page.
  for (size_t i = 0; i < words; ++i)
    data[i] = i * 0x9E3779B97F4A7C15ull;
  memset(evict, 1, evictBytes);
  volatile uint64_t sink = 0;
  double times[kRounds], best = 1e300;
  printf("{\"bytes\": %zu, \"p50_us\": [", words * 8);
  for (int r = 0; r < repeats; ++r) {
    for (int i = 0; i < kRounds; ++i) {
      sink += readAll(evict, evictBytes / 8);
      double start = now_us();
      sink += readAll(data, words);
      times[i] = now_us() - start;
    }
    qsort(times, kRounds, sizeof(double), compare);
    double p50 = times[kRounds / 2];
    if (p50 < best)
      best = p50;
    printf("%s%.2f", r ? ", " : "", p50);
  }
  printf("], \"best_us\": %.2f, \"gbytes_per_s\": %.1f}\n", best,
         words * 8 / best / 1e3);
  return 0;
}
