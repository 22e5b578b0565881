//===- BenchSupportTest.cpp - tessel-bench's statistics and machine record ===//

#include "BenchStats.h"
#include "MachineInfo.h"

#include <gtest/gtest.h>

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
