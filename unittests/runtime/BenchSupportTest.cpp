//===- BenchSupportTest.cpp - tessel-bench's statistics and machine record ===//

#include "BenchStats.h"
#include "KernelProfile.h"
#include "MachineInfo.h"

#include "tessel/runtime.h"

#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace tessel::bench;

TEST(BenchStats, QuantileInterpolatesLikeNumPy) {
  // numpy.percentile([1, 2, 3, 4], [0, 50, 95, 100]) = 1, 2.5, 3.85, 4.
  std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.5), 2.5);
  EXPECT_NEAR(quantile(sorted, 0.95), 3.85, 1e-12);
  EXPECT_DOUBLE_EQ(quantile(sorted, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.99), 7.0);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0.0);
}

TEST(BenchStats, SummarizeSortsItsSamples) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i)
    samples.push_back(i);
  Summary s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_NEAR(s.p95, 95.05, 1e-9);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
}

TEST(MachineInfo, ParsesTheFirstProcessorsModelAndCodegenFlags) {
  const char *cpuinfo = "processor\t: 0\n"
                        "vendor_id\t: AuthenticAMD\n"
                        "model name\t: AMD EPYC 7B13 64-Core Processor\n"
                        "flags\t\t: fpu sse4_2 avx fma avx2 f16c bmi2\n"
                        "\n"
                        "processor\t: 1\n"
                        "model name\t: something else\n"
                        "flags\t\t: avx512f\n";
  MachineInfo info;
  parseCpuInfo(cpuinfo, info);
  EXPECT_EQ(info.cpuModel, "AMD EPYC 7B13 64-Core Processor");
  EXPECT_EQ(info.flags,
            (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "f16c"}));
}

TEST(MachineInfo, UnknownWhenCpuInfoSaysNothing) {
  MachineInfo info;
  parseCpuInfo("", info);
  EXPECT_EQ(info.cpuModel, "unknown");
  EXPECT_TRUE(info.flags.empty());
}

TEST(MachineInfo, LoadAverage) {
  EXPECT_DOUBLE_EQ(parseLoadAverage("0.73 1.70 1.98 2/345 6789\n"), 0.73);
  EXPECT_DOUBLE_EQ(parseLoadAverage("garbage"), -1);
}

TEST(MachineInfo, ReadsThisMachine) {
  MachineInfo info = readMachineInfo();
  EXPECT_GE(info.cores, 1);
  EXPECT_FALSE(info.cpuModel.empty());
}

TEST(KernelProfile, DescribesArtifactFunctions) {
  EXPECT_EQ(describeSymbol("tessel_parallel_body_3:/b/Conv+/b/Relu"),
            "/b/Conv+/b/Relu (parallel body 3)");
  EXPECT_EQ(describeSymbol("tessel_parallel_body_12"), "parallel body 12");
  EXPECT_EQ(describeSymbol("tessel_parallel_body_7:"), "parallel body 7");
  EXPECT_EQ(describeSymbol("tessel_model_entry"),
            "tessel_model_entry (serial kernels and glue)");
  EXPECT_EQ(describeSymbol("memcpy"), "memcpy");
}

TEST(KernelProfile, FindsAFunctionOfALoadedLibrary) {
  // The runtime library, as the loader mapped it: a sample at an address
  // inside tessel_session_run resolves to it.
  Dl_info info;
  auto *fn = reinterpret_cast<void *>(&tessel_session_run);
  ASSERT_TRUE(dladdr(fn, &info));
  ASSERT_NE(info.dli_fname, nullptr);
  SymbolTable table = SymbolTable::read(info.dli_fname);
  ASSERT_TRUE(table.error.empty()) << table.error;
  ASSERT_FALSE(table.functions.empty());
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t offset = reinterpret_cast<uintptr_t>(fn) -
                    reinterpret_cast<uintptr_t>(info.dli_fbase) +
                    (table.firstSegment & ~(page - 1));
  const SymbolTable::Function *found = table.find(offset + 1);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "tessel_session_run");
  EXPECT_EQ(table.find(0), nullptr);
}

TEST(KernelProfile, RefusesFilesThatAreNotElf) {
  char path[] = "/tmp/tessel-profile-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "not an ELF file at all", 22), 22);
  close(fd);
  SymbolTable table = SymbolTable::read(path);
  EXPECT_NE(table.error.find("not a 64-bit little-endian ELF file"),
            std::string::npos)
      << table.error;
  EXPECT_TRUE(table.functions.empty());
  std::remove(path);
  SymbolTable missing = SymbolTable::read("/nonexistent/model.so");
  EXPECT_NE(missing.error.find("/nonexistent/model.so"), std::string::npos);
}

TEST(KernelProfile, SamplesOnlyInsideRuns) {
  KernelProfiler profiler;
  std::string error;
  ASSERT_TRUE(profiler.start(1000, error)) << error;
  KernelProfiler second;
  EXPECT_FALSE(second.start(1000, error));
  EXPECT_EQ(error, "another profile is being taken");
  auto spin = [](std::chrono::milliseconds length) {
    auto until = std::chrono::steady_clock::now() + length;
    volatile unsigned sink = 0;
    while (std::chrono::steady_clock::now() < until)
      sink = sink + 1;
  };
  spin(std::chrono::milliseconds(30)); // outside a run: not kept
  EXPECT_EQ(profiler.attribute("/nonexistent/model.so").samples, 0u);
  profiler.begin();
  spin(std::chrono::milliseconds(50));
  profiler.end();
  profiler.stop();
  Profile profile = profiler.attribute("/nonexistent/model.so");
  EXPECT_GT(profile.samples, 0u);
  uint64_t attributed = 0;
  for (const ProfileEntry &item : profile.items)
    attributed += item.samples;
  EXPECT_EQ(attributed, profile.samples);
  // Stopped: another profiler may start.
  ASSERT_TRUE(second.start(1000, error)) << error;
  second.stop();
}
