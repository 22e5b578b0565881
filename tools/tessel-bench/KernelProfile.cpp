//===- KernelProfile.cpp - Where a model's runs spend their time ----------===//

#include "KernelProfile.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <elf.h>
#include <map>
#include <memory>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

namespace tessel::bench {

namespace {

#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kCanSample = true;
#else
constexpr bool kCanSample = false;
#endif

/// The samples: written by the signal handler, read once the timer is
/// disarmed. 2^21 samples (16 MiB) hold 35 minutes of runs at 1 ms; later
/// samples are dropped.
constexpr size_t kCapacity = size_t(1) << 21;
std::unique_ptr<uintptr_t[]> gSamples;
std::atomic<size_t> gCount{0};
std::atomic<bool> gInRun{false};
std::atomic<bool> gArmed{false};
timer_t gTimer;
struct sigaction gPreviousAction;

void onSample(int, siginfo_t *, void *context) {
  if (!gInRun.load(std::memory_order_relaxed))
    return;
  [[maybe_unused]] auto *uc = static_cast<ucontext_t *>(context);
  uintptr_t pc = 0;
#if defined(__x86_64__)
  pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  pc = static_cast<uintptr_t>(uc->uc_mcontext.pc);
#endif
  size_t index = gCount.fetch_add(1, std::memory_order_relaxed);
  if (index < kCapacity)
    gSamples[index] = pc;
}

/// Reads `size` bytes at `offset` of `file`; false past its end.
bool readAt(FILE *file, uint64_t offset, void *out, uint64_t size,
            uint64_t fileSize) {
  if (offset > fileSize || size > fileSize - offset)
    return false;
  return fseeko(file, static_cast<off_t>(offset), SEEK_SET) == 0 &&
         fread(out, 1, size, file) == size;
}

std::string realPath(const char *path) {
  char *resolved = realpath(path, nullptr);
  std::string result = resolved ? resolved : path;
  std::free(resolved);
  return result;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

SymbolTable SymbolTable::read(const std::string &path) {
  SymbolTable table;
  std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "rb"),
                                              &std::fclose);
  auto fail = [&](const std::string &why) {
    table.functions.clear();
    table.error = path + ": " + why;
    return table;
  };
  if (!file)
    return fail(std::strerror(errno));
  if (fseeko(file.get(), 0, SEEK_END) != 0)
    return fail("cannot seek");
  uint64_t fileSize = static_cast<uint64_t>(ftello(file.get()));
  Elf64_Ehdr header;
  if (!readAt(file.get(), 0, &header, sizeof(header), fileSize) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB)
    return fail("not a 64-bit little-endian ELF file");

  // The first loaded segment: symbol values are relative to its address.
  bool sawLoad = false;
  if (header.e_phentsize == sizeof(Elf64_Phdr))
    for (unsigned i = 0; i < header.e_phnum; ++i) {
      Elf64_Phdr segment;
      if (!readAt(file.get(), header.e_phoff + uint64_t(i) * sizeof(segment),
                  &segment, sizeof(segment), fileSize))
        return fail("truncated program headers");
      if (segment.p_type == PT_LOAD &&
          (!sawLoad || segment.p_vaddr < table.firstSegment)) {
        table.firstSegment = segment.p_vaddr;
        sawLoad = true;
      }
    }

  if (header.e_shentsize != sizeof(Elf64_Shdr))
    return fail("no section headers");
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (unsigned i = 0; i < header.e_shnum; ++i)
    if (!readAt(file.get(), header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr),
                &sections[i], sizeof(Elf64_Shdr), fileSize))
      return fail("truncated section headers");
  // The full symbol table, else the dynamic one (exported symbols only).
  const Elf64_Shdr *symbols = nullptr;
  for (unsigned type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (const Elf64_Shdr &section : sections)
      if (section.sh_type == type) {
        symbols = &section;
        break;
      }
    if (symbols)
      break;
  }
  if (!symbols || symbols->sh_link >= sections.size() ||
      symbols->sh_entsize != sizeof(Elf64_Sym))
    return fail("no symbol table");
  const Elf64_Shdr &strings = sections[symbols->sh_link];
  if (strings.sh_size > fileSize)
    return fail("truncated string table");
  std::vector<char> names(strings.sh_size + 1, '\0');
  if (!readAt(file.get(), strings.sh_offset, names.data(), strings.sh_size,
              fileSize))
    return fail("truncated string table");
  if (symbols->sh_size > fileSize)
    return fail("truncated symbol table");
  std::vector<Elf64_Sym> entries(symbols->sh_size / sizeof(Elf64_Sym));
  if (!readAt(file.get(), symbols->sh_offset, entries.data(),
              entries.size() * sizeof(Elf64_Sym), fileSize))
    return fail("truncated symbol table");
  for (const Elf64_Sym &symbol : entries) {
    if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_size == 0 ||
        symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings.sh_size)
      continue;
    table.functions.push_back({symbol.st_value,
                               symbol.st_value + symbol.st_size,
                               std::string(names.data() + symbol.st_name)});
  }
  std::sort(
      table.functions.begin(), table.functions.end(),
      [](const Function &a, const Function &b) { return a.start < b.start; });
  return table;
}

const SymbolTable::Function *SymbolTable::find(uint64_t offset) const {
  auto after = std::upper_bound(
      functions.begin(), functions.end(), offset,
      [](uint64_t at, const Function &f) { return at < f.start; });
  if (after == functions.begin())
    return nullptr;
  const Function &candidate = *std::prev(after);
  return offset < candidate.end ? &candidate : nullptr;
}

std::string describeSymbol(const std::string &symbol) {
  static const std::string kBody = "tessel_parallel_body_";
  if (symbol.compare(0, kBody.size(), kBody) == 0) {
    size_t colon = symbol.find(':');
    std::string number = symbol.substr(
        kBody.size(),
        colon == std::string::npos ? std::string::npos : colon - kBody.size());
    if (colon == std::string::npos || colon + 1 == symbol.size())
      return "parallel body " + number;
    return symbol.substr(colon + 1) + " (parallel body " + number + ")";
  }
  if (symbol == "tessel_model_entry")
    return "tessel_model_entry (serial kernels and glue)";
  return symbol;
}

KernelProfiler::~KernelProfiler() { stop(); }

bool KernelProfiler::start(unsigned intervalMicros, std::string &error) {
  if (!kCanSample) {
    error = "--profile reads the interrupted program counter, which this "
            "build does not know how to do on this architecture";
    return false;
  }
  if (intervalMicros == 0) {
    error = "the sampling interval must be at least 1 us";
    return false;
  }
  bool expected = false;
  if (!gArmed.compare_exchange_strong(expected, true)) {
    error = "another profile is being taken";
    return false;
  }
  if (!gSamples)
    gSamples.reset(new uintptr_t[kCapacity]);
  gCount.store(0);
  gInRun.store(false);

  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = &onSample;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, &gPreviousAction) != 0) {
    error = std::string("sigaction(SIGPROF): ") + std::strerror(errno);
    gArmed.store(false);
    return false;
  }
  struct sigevent event;
  std::memset(&event, 0, sizeof(event));
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event.sigev_notify_thread_id = static_cast<pid_t>(syscall(SYS_gettid));
  // Wall-clock time: a run descheduled by the host is charged where it
  // stopped, as a timer around the whole run charges it.
  if (timer_create(CLOCK_MONOTONIC, &event, &gTimer) != 0) {
    error = std::string("timer_create: ") + std::strerror(errno);
    sigaction(SIGPROF, &gPreviousAction, nullptr);
    gArmed.store(false);
    return false;
  }
  struct itimerspec spec;
  spec.it_interval.tv_sec = intervalMicros / 1000000;
  spec.it_interval.tv_nsec = long(intervalMicros % 1000000) * 1000;
  spec.it_value = spec.it_interval;
  if (timer_settime(gTimer, 0, &spec, nullptr) != 0) {
    error = std::string("timer_settime: ") + std::strerror(errno);
    timer_delete(gTimer);
    sigaction(SIGPROF, &gPreviousAction, nullptr);
    gArmed.store(false);
    return false;
  }
  armed = true;
  return true;
}

void KernelProfiler::begin() { gInRun.store(true, std::memory_order_relaxed); }

void KernelProfiler::end() { gInRun.store(false, std::memory_order_relaxed); }

void KernelProfiler::stop() {
  if (!armed)
    return;
  gInRun.store(false);
  timer_delete(gTimer);
  // A SIGPROF still pending must not find SIGPROF's default action, which
  // ends the process: ignore it unless someone had a handler.
  if (gPreviousAction.sa_handler == SIG_DFL &&
      !(gPreviousAction.sa_flags & SA_SIGINFO)) {
    struct sigaction ignore;
    std::memset(&ignore, 0, sizeof(ignore));
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPROF, &ignore, nullptr);
  } else {
    sigaction(SIGPROF, &gPreviousAction, nullptr);
  }
  armed = false;
  gArmed.store(false);
}

Profile KernelProfiler::attribute(const std::string &artifactPath) const {
  Profile profile;
  size_t taken = std::min(gCount.load(), kCapacity);
  profile.samples = taken;
  SymbolTable symbols = SymbolTable::read(artifactPath);
  std::string artifact = realPath(artifactPath.c_str());
  long page = sysconf(_SC_PAGESIZE);
  uint64_t firstPage =
      symbols.firstSegment & ~static_cast<uint64_t>(page > 0 ? page - 1 : 0);
  std::map<std::string, bool> inArtifact; // by the loader's file name
  std::map<std::string, uint64_t> counts;
  for (size_t i = 0; i < taken; ++i) {
    uintptr_t pc = gSamples[i];
    Dl_info info;
    std::string key = "[unknown]";
    if (dladdr(reinterpret_cast<void *>(pc), &info) && info.dli_fname &&
        *info.dli_fname) {
      auto known = inArtifact.find(info.dli_fname);
      if (known == inArtifact.end())
        known =
            inArtifact
                .emplace(info.dli_fname, realPath(info.dli_fname) == artifact)
                .first;
      if (known->second) {
        uint64_t offset =
            pc - reinterpret_cast<uintptr_t>(info.dli_fbase) + firstPage;
        const SymbolTable::Function *function = symbols.find(offset);
        key = function ? function->name : "[" + baseName(artifact) + "]";
      } else {
        key = "[" + baseName(info.dli_fname) + "]";
      }
    }
    ++counts[key];
  }
  for (const auto &[symbol, samples] : counts)
    profile.items.push_back(
        {symbol[0] == '[' ? symbol : describeSymbol(symbol), symbol, samples});
  std::stable_sort(profile.items.begin(), profile.items.end(),
                   [](const ProfileEntry &a, const ProfileEntry &b) {
                     return a.samples > b.samples;
                   });
  return profile;
}

} // namespace tessel::bench
