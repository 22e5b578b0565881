//===- KernelProfile.h - Where a model's runs spend their time --*- C++ -*-===//
//
// tessel-bench --profile: samples the program counter of the thread that
// calls the model, every `intervalMicros` of wall-clock time while a run is
// in progress (a POSIX timer delivering SIGPROF to that thread), then
// attributes each sample to a function of the artifact, read from its ELF
// symbol table. tessel-compile names the functions of parallel loops after
// the model nodes they compute (`tessel_parallel_body_N:NODE+NODE...`);
// the rest of the compiled code (serial kernels and the glue between
// kernels) is `tessel_model_entry`. Samples outside the artifact are
// attributed to their library (the runtime, libc). With several threads,
// only the calling thread is sampled: the share of its time spent waiting
// for the others shows as the runtime's or libc's.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_KERNELPROFILE_H
#define TESSEL_TOOLS_TESSEL_BENCH_KERNELPROFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::bench {

/// One function (or library) of a profile and its samples.
struct ProfileEntry {
  std::string name;   ///< what to show: the model nodes, or the symbol
  std::string symbol; ///< the function, or "[library]" outside the artifact
  uint64_t samples = 0;
};

struct Profile {
  uint64_t samples = 0;            ///< the samples kept, all inside runs
  std::vector<ProfileEntry> items; ///< most samples first
};

/// The functions of an ELF shared object: [start, end) offsets from its
/// load address and their names. Empty (and `error` set) when the file is
/// not a readable 64-bit little-endian ELF file with a symbol table.
struct SymbolTable {
  struct Function {
    uint64_t start, end;
    std::string name;
  };
  std::vector<Function> functions; ///< sorted by start
  uint64_t firstSegment = 0;       ///< p_vaddr of the first PT_LOAD
  std::string error;

  static SymbolTable read(const std::string &path);
  /// The function containing `offset`, or null.
  const Function *find(uint64_t offset) const;
};

/// What the profile shows for an artifact function: for a parallel body
/// `tessel_parallel_body_N:NODES`, "NODES (parallel body N)"; for
/// `tessel_model_entry`, that it holds serial kernels and glue; else the
/// symbol itself.
std::string describeSymbol(const std::string &symbol);

class KernelProfiler {
public:
  KernelProfiler() = default;
  KernelProfiler(const KernelProfiler &) = delete;
  KernelProfiler &operator=(const KernelProfiler &) = delete;
  ~KernelProfiler();

  /// Arms the timer for the calling thread (one profiler at a time). False
  /// (with `error`) when the platform has no such timer or program counter
  /// access, or another profiler is armed.
  bool start(unsigned intervalMicros, std::string &error);
  /// Samples are kept only between begin() and end() (around each run).
  void begin();
  void end();
  void stop();

  /// Attributes the samples to the functions of `artifactPath` (the file
  /// the runtime loaded) and to the libraries outside it.
  Profile attribute(const std::string &artifactPath) const;

private:
  bool armed = false;
};

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_KERNELPROFILE_H
