//===- cpu_features.cpp - Does this host have the target's features? ------===//

#include "cpu_features.h"

#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TESSEL_X86 1
#endif

#if defined(__linux__) && defined(__x86_64__)
#include <cerrno>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessel::runtime {

namespace {

enum class Support { Yes, No, Unknown };

#ifdef TESSEL_X86
bool hasF16C() {
#if defined(__clang__) && __clang_major__ < 15
  // Old Clang cannot name f16c in __builtin_cpu_supports: read CPUID leaf 1
  // (ECX bit 29). F16C needs the AVX register state, which "avx" checks.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return false;
  return (ecx & (1u << 29)) && __builtin_cpu_supports("avx");
#else
  return __builtin_cpu_supports("f16c");
#endif
}
#endif

#ifdef TESSEL_X86
/// CPUID leaf 7, sub-leaf 0, EDX bit `bit`: AMX-BF16 22, AMX-TILE 24,
/// AMX-INT8 25. (The tile state itself is granted per process:
/// requestAmxTileState.)
bool hasLeaf7Edx(unsigned bit) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return false;
  return edx & (1u << bit);
}
#endif

/// Tests one LLVM feature name on this host. __builtin_cpu_supports also
/// checks that the OS saves the AVX / AVX-512 register state.
Support hostSupports(const std::string &name) {
#ifdef TESSEL_X86
  __builtin_cpu_init();
#define TESSEL_FEATURE(llvmName, gccName)                                      \
  if (name == llvmName)                                                        \
    return __builtin_cpu_supports(gccName) ? Support::Yes : Support::No;
  TESSEL_FEATURE("avx", "avx")
  TESSEL_FEATURE("avx2", "avx2")
  TESSEL_FEATURE("fma", "fma")
  TESSEL_FEATURE("avx512f", "avx512f")
  TESSEL_FEATURE("avx512bw", "avx512bw")
  TESSEL_FEATURE("avx512vl", "avx512vl")
  TESSEL_FEATURE("avx512dq", "avx512dq")
  TESSEL_FEATURE("avx512vnni", "avx512vnni")
  TESSEL_FEATURE("avx512bf16", "avx512bf16")
  TESSEL_FEATURE("bmi", "bmi")
  TESSEL_FEATURE("bmi2", "bmi2")
  TESSEL_FEATURE("popcnt", "popcnt")
  TESSEL_FEATURE("sse4.1", "sse4.1")
  TESSEL_FEATURE("sse4.2", "sse4.2")
#undef TESSEL_FEATURE
  if (name == "f16c")
    return hasF16C() ? Support::Yes : Support::No;
  if (name == "amx-tile")
    return hasLeaf7Edx(24) ? Support::Yes : Support::No;
  if (name == "amx-int8")
    return hasLeaf7Edx(25) ? Support::Yes : Support::No;
  if (name == "amx-bf16")
    return hasLeaf7Edx(22) ? Support::Yes : Support::No;
#endif
  (void)name;
  return Support::Unknown;
}

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(" \t\n\r");
  if (begin == std::string::npos)
    return "";
  size_t end = text.find_last_not_of(" \t\n\r");
  return text.substr(begin, end - begin + 1);
}

} // namespace

std::vector<std::string> missingCpuFeatures(const char *targetFeatures) {
  std::vector<std::string> missing;
  if (!targetFeatures)
    return missing;
  // As in LLVM, a later entry for the same feature overrides an earlier one.
  std::vector<std::pair<std::string, bool>> requests;
  const char *cursor = targetFeatures;
  while (true) {
    const char *comma = std::strchr(cursor, ',');
    size_t length = comma ? size_t(comma - cursor) : std::strlen(cursor);
    std::string feature = trim(std::string(cursor, length));
    if (feature.size() > 1 && (feature[0] == '+' || feature[0] == '-')) {
      std::string name = feature.substr(1);
      auto it = std::find_if(requests.begin(), requests.end(),
                             [&](const auto &r) { return r.first == name; });
      if (it == requests.end())
        requests.emplace_back(name, feature[0] == '+');
      else
        it->second = feature[0] == '+';
    }
    if (!comma)
      break;
    cursor = comma + 1;
  }
  for (const auto &[name, enabled] : requests)
    if (enabled && hostSupports(name) == Support::No)
      missing.push_back(name);
  return missing;
}

std::string requestAmxTileState() {
#if defined(__linux__) && defined(__x86_64__)
  // Linux's uapi/asm/prctl.h and fpu/xstate.h values (the header may be
  // older than the feature).
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static std::once_flag once;
  static std::string refusal;
  std::call_once(once, [] {
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
      refusal = std::string("the kernel refused the AMX tile state "
                            "(arch_prctl(ARCH_REQ_XCOMP_PERM, "
                            "XFEATURE_XTILEDATA): ") +
                std::strerror(errno) +
                "); Linux grants it from 5.16 on, on CPUs with AMX";
  });
  return refusal;
#else
  return "this runtime asks for the AMX tile state on Linux x86-64 only";
#endif
}

} // namespace tessel::runtime
