//===- MachineInfo.cpp - The machine record of a benchmark ----------------===//

#include "MachineInfo.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sched.h>
#include <set>
#include <sstream>
#include <thread>

namespace tessel::bench {
namespace {

/// The flags that change what code Tessel or its peers generate, in the
/// order they are reported.
const char *const kCodegenFlags[] = {
    "sse4_2",      "avx",         "avx2",        "fma",      "f16c",
    "avx512f",     "avx512bw",    "avx512vl",    "avx512dq", "avx512cd",
    "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
    "amx_int8",    "amx_bf16",    "neon",        "asimd",    "sve"};

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t");
  size_t end = text.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

std::string readFile(const char *path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

} // namespace

void parseCpuInfo(const std::string &cpuinfo, MachineInfo &info) {
  std::istringstream lines(cpuinfo);
  std::string line;
  bool haveModel = false, haveFlags = false;
  std::set<std::string> present;
  while (std::getline(lines, line) && !(haveModel && haveFlags)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string key = trim(line.substr(0, colon));
    std::string value = trim(line.substr(colon + 1));
    if (!haveModel && key == "model name") {
      info.cpuModel = value;
      haveModel = true;
    } else if (!haveFlags && (key == "flags" || key == "Features")) {
      std::istringstream words(value);
      std::string word;
      while (words >> word)
        present.insert(word);
      haveFlags = true;
    }
  }
  if (info.cpuModel.empty())
    info.cpuModel = "unknown";
  info.flags.clear();
  for (const char *flag : kCodegenFlags)
    if (present.count(flag))
      info.flags.push_back(flag);
}

double parseLoadAverage(const std::string &loadavg) {
  char *end = nullptr;
  double value = std::strtod(loadavg.c_str(), &end);
  return end == loadavg.c_str() ? -1 : value;
}

MachineInfo readMachineInfo() {
  MachineInfo info;
  parseCpuInfo(readFile("/proc/cpuinfo"), info);
  info.loadAverage = parseLoadAverage(readFile("/proc/loadavg"));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    info.cores = CPU_COUNT(&set);
  else
    info.cores = static_cast<int>(std::thread::hardware_concurrency());
  return info;
}

} // namespace tessel::bench
