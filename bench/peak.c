/*===- peak.c - This CPU's FP32 FMA peak, measured -----------------------===*
 *
 * usage: peak [THREADS] [REPEATS] [fp32|vnni|bf16|amx]
 *
 * Runs 12 independent chains of packed FP32 FMAs (enough to cover the FMA
 * latency on every x86 core since Haswell) on the widest vectors the CPU
 * has: zmm with AVX-512F, else ymm with AVX2+FMA. Each of THREADS threads
 * (default 1) is pinned to its own CPU. Prints one JSON object:
 *   {"isa": "avx2", "threads": 1, "gflops": [r1, r2, ...], "best": max}
 * The benchmark reports its GFLOP/s against "best".
 * With `vnni`, the same 12 chains of vpdpbusd on zmm (AVX512-VNNI: 64
 * 8-bit multiply-adds each), in GOP/s (2 per multiply-add), the peak the
 * INT8 benchmarks (bench/int8_matmul.py) report against. With `bf16`, the
 * same chains of vdpbf16ps on zmm (AVX512-BF16: 32 bf16 multiply-adds each),
 * in GFLOP/s: half the FP32 rate on Emerald Rapids, twice it on Zen 4
 * (bench/notes/bf16-products.md). With `amx`, 4 independent accumulator
 * tiles of AMX-INT8 `tdpbssd` (16 x 16 x 64 8-bit multiply-adds each), in
 * GOP/s, after asking Linux for the tile state (arch_prctl).
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define FMA12(reg)                                                             \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "0\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "1\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "2\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "3\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "4\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "5\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "6\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "7\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "8\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "9\n\t"                       \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "10\n\t"                      \
  "vfmadd231ps %%" reg "14, %%" reg "15, %%" reg "11\n\t"
#define CLOBBERS                                                               \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",      \
      "xmm9", "xmm10", "xmm11", "xmm14", "xmm15"

/* Zeroes the registers the chains use (AVX-512F). */
#define ZERO_ZMM()                                                             \
  __asm__ volatile("vpxord %%zmm0, %%zmm0, %%zmm0\n\t"                        \
                   "vmovaps %%zmm0, %%zmm1\n\tvmovaps %%zmm0, %%zmm2\n\t"    \
                   "vmovaps %%zmm0, %%zmm3\n\tvmovaps %%zmm0, %%zmm4\n\t"    \
                   "vmovaps %%zmm0, %%zmm5\n\tvmovaps %%zmm0, %%zmm6\n\t"    \
                   "vmovaps %%zmm0, %%zmm7\n\tvmovaps %%zmm0, %%zmm8\n\t"    \
                   "vmovaps %%zmm0, %%zmm9\n\tvmovaps %%zmm0, %%zmm10\n\t"   \
                   "vmovaps %%zmm0, %%zmm11\n\tvmovaps %%zmm0, %%zmm14\n\t"  \
                   "vmovaps %%zmm0, %%zmm15" ::: CLOBBERS)

__attribute__((target("avx512f"))) static double zmmFma(long iterations) {
  ZERO_ZMM();
  double start = now();
  for (long i = 0; i < iterations; ++i)
    __asm__ volatile(FMA12("zmm") FMA12("zmm")::: CLOBBERS);
  return iterations * 24.0 * 16 * 2 / (now() - start) / 1e9;
}

/* 12 independent chains of `op` (a three-operand multiply-accumulate). */
#define CHAINS12(op, reg)                                                      \
  op " %%" reg "14, %%" reg "15, %%" reg "0\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "1\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "2\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "3\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "4\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "5\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "6\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "7\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "8\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "9\n\t"                               \
  op " %%" reg "14, %%" reg "15, %%" reg "10\n\t"                              \
  op " %%" reg "14, %%" reg "15, %%" reg "11\n\t"
#define DOT12(reg) CHAINS12("vpdpbusd", reg)

__attribute__((target("avx512f,avx512vnni"))) static double zmmVnni(
    long iterations) {
  ZERO_ZMM();
  double start = now();
  for (long i = 0; i < iterations; ++i)
    __asm__ volatile(DOT12("zmm") DOT12("zmm")::: CLOBBERS);
  return iterations * 24.0 * 64 * 2 / (now() - start) / 1e9;
}

#define BF16DOT12(reg) CHAINS12("vdpbf16ps", reg)

/* AVX512-BF16: each vdpbf16ps on zmm does 32 bf16 multiply-adds (2 per f32
 * lane), counted as 64 flops. */
__attribute__((target("avx512f,avx512bf16"))) static double zmmBf16(
    long iterations) {
  ZERO_ZMM();
  double start = now();
  for (long i = 0; i < iterations; ++i)
    __asm__ volatile(BF16DOT12("zmm") BF16DOT12("zmm")::: CLOBBERS);
  return iterations * 24.0 * 32 * 2 / (now() - start) / 1e9;
}

/* AMX-INT8: 4 accumulator tiles (tmm0-3) of 16 x 16 i32, each tdpbssd
 * 16 x 16 x 64 multiply-adds of the same operand tiles (tmm4, tmm5). The
 * tile configuration: palette 1, 16 rows of 64 bytes in tmm0-5. */
static double amxInt8(long iterations) {
  unsigned char config[64] = {0};
  config[0] = 1;
  for (int t = 0; t < 6; ++t) {
    config[16 + 2 * t] = 64; /* bytes per row (low byte of colsb[t]) */
    config[48 + t] = 16;     /* rows[t] */
  }
  __asm__ volatile("ldtilecfg %0\n\t"
                   "tilezero %%tmm0\n\ttilezero %%tmm1\n\t"
                   "tilezero %%tmm2\n\ttilezero %%tmm3\n\t"
                   "tilezero %%tmm4\n\ttilezero %%tmm5" ::"m"(config));
  double start = now();
  for (long i = 0; i < iterations; ++i)
    __asm__ volatile("tdpbssd %%tmm5, %%tmm4, %%tmm0\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm1\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm2\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm3\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm0\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm1\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm2\n\t"
                     "tdpbssd %%tmm5, %%tmm4, %%tmm3" ::);
  double seconds = now() - start;
  __asm__ volatile("tilerelease" ::);
  return iterations * 8.0 * 16 * 16 * 64 * 2 / seconds / 1e9;
}

__attribute__((target("avx2,fma"))) static double ymmFma(long iterations) {
  __asm__ volatile("vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
                   "vmovaps %%ymm0, %%ymm1\n\tvmovaps %%ymm0, %%ymm2\n\t"
                   "vmovaps %%ymm0, %%ymm3\n\tvmovaps %%ymm0, %%ymm4\n\t"
                   "vmovaps %%ymm0, %%ymm5\n\tvmovaps %%ymm0, %%ymm6\n\t"
                   "vmovaps %%ymm0, %%ymm7\n\tvmovaps %%ymm0, %%ymm8\n\t"
                   "vmovaps %%ymm0, %%ymm9\n\tvmovaps %%ymm0, %%ymm10\n\t"
                   "vmovaps %%ymm0, %%ymm11\n\tvmovaps %%ymm0, %%ymm14\n\t"
                   "vmovaps %%ymm0, %%ymm15" ::: CLOBBERS);
  double start = now();
  for (long i = 0; i < iterations; ++i)
    __asm__ volatile(FMA12("ymm") FMA12("ymm")::: CLOBBERS);
  return iterations * 24.0 * 8 * 2 / (now() - start) / 1e9;
}

typedef double (*KernelFn)(long);
struct Job {
  KernelFn kernel;
  long iterations;
  int cpu;
  double gflops;
};

static void *runJob(void *arg) {
  struct Job *job = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(job->cpu, &set);
  sched_setaffinity(0, sizeof(set), &set); /* best effort */
  job->gflops = job->kernel(job->iterations);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  int repeats = argc > 2 ? atoi(argv[2]) : 5;
  const char *kind = argc > 3 ? argv[3] : "fp32";
  int vnni = strcmp(kind, "vnni") == 0;
  int bf16 = strcmp(kind, "bf16") == 0;
  int amx = strcmp(kind, "amx") == 0;
  if (threads < 1 || threads > 256 || repeats < 1 ||
      (!vnni && !bf16 && !amx && strcmp(kind, "fp32") != 0)) {
    fprintf(stderr, "usage: peak [THREADS] [REPEATS] [fp32|vnni|bf16|amx]\n");
    return 2;
  }
  __builtin_cpu_init();
  KernelFn kernel;
  const char *isa;
  long iterations = 20000000; /* ~0.1-0.3 s per repeat */
  if (amx) {
    /* ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA: Linux grants the tile state
     * only on request (it also fails on a CPU without AMX). */
    if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
      fprintf(stderr, "peak: no AMX tile state (no AMX, or Linux < 5.16)\n");
      return 1;
    }
    kernel = amxInt8, isa = "amx-int8";
    iterations = 1000000;
  } else if (vnni) {
    if (!__builtin_cpu_supports("avx512vnni")) {
      fprintf(stderr, "peak: this CPU has no AVX512-VNNI\n");
      return 1;
    }
    kernel = zmmVnni, isa = "avx512vnni";
  } else if (bf16) {
    if (!__builtin_cpu_supports("avx512bf16")) {
      fprintf(stderr, "peak: this CPU has no AVX512-BF16\n");
      return 1;
    }
    kernel = zmmBf16, isa = "avx512bf16";
  } else if (__builtin_cpu_supports("avx512f")) {
    kernel = zmmFma, isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = ymmFma, isa = "avx2";
  } else {
    fprintf(stderr, "peak: this CPU has neither AVX-512F nor AVX2+FMA\n");
    return 1;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  int cpus[256], ncpus = 0;
  for (int c = 0; c < CPU_SETSIZE && ncpus < 256; ++c)
    if (CPU_ISSET(c, &allowed))
      cpus[ncpus++] = c;
  if (ncpus == 0)
    cpus[ncpus++] = 0;

  struct Job *jobs = calloc((size_t)threads, sizeof(struct Job));
  pthread_t *handles = calloc((size_t)threads, sizeof(pthread_t));
  printf("{\"isa\": \"%s\", \"threads\": %d, \"gflops\": [", isa, threads);
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    double total = 0;
    for (int t = 0; t < threads; ++t) {
      jobs[t] = (struct Job){kernel, iterations, cpus[t % ncpus], 0};
      pthread_create(&handles[t], NULL, runJob, &jobs[t]);
    }
    for (int t = 0; t < threads; ++t) {
      pthread_join(handles[t], NULL);
      total += jobs[t].gflops;
    }
    best = total > best ? total : best;
    printf("%s%.2f", r ? ", " : "", total);
  }
  printf("], \"best\": %.2f}\n", best);
  free(jobs);
  free(handles);
  return 0;
}
