//===- library.cpp - Artifacts loaded from the file that was checked ------===//

#include "library.h"
#include "log.h"
#include "model.h"
#include "status.h"
#include "trace.h"

#include "tessel/seal.h"

#include <cerrno>
#include <elf.h>
#include <link.h>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace tessel::runtime {

namespace {

std::string loaderName(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

std::string lastDlError() {
  const char *error = dlerror();
  return error ? error : "unknown error";
}

/// Every artifact file loaded now, by device and inode.
struct Registry {
  std::mutex mutex;
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<CheckedLibrary>> loaded;
};

Registry &registry() {
  static Registry *instance = new Registry; // outlives static destructors
  return *instance;
}

/// Closes a descriptor on every path out, unless released.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

bool readAt(int fd, uint64_t offset, void *out, uint64_t size) {
  auto *bytes = static_cast<char *>(out);
  while (size > 0) {
    ssize_t got = ::pread(fd, bytes, size_t(size), off_t(offset));
    if (got <= 0)
      return false;
    bytes += got;
    offset += uint64_t(got);
    size -= uint64_t(got);
  }
  return true;
}

/// The parallel-loop bodies of the ELF file `fd`: symbol value -> name.
std::map<uint64_t, std::string> readLoopSymbols(int fd) {
  std::map<uint64_t, std::string> loops;
  ElfW(Ehdr) header;
  if (!readAt(fd, 0, &header, sizeof(header)) ||
      header.e_shentsize != sizeof(ElfW(Shdr)))
    return loops;
  std::vector<ElfW(Shdr)> sections(header.e_shnum);
  if (!readAt(fd, header.e_shoff, sections.data(),
              sections.size() * sizeof(ElfW(Shdr))))
    return loops;
  for (const ElfW(Shdr) &table : sections) {
    if (table.sh_type != SHT_SYMTAB || table.sh_link >= sections.size() ||
        table.sh_entsize != sizeof(ElfW(Sym)))
      continue;
    const ElfW(Shdr) &strings = sections[table.sh_link];
    std::vector<char> names(strings.sh_size + 1, '\0');
    std::vector<ElfW(Sym)> symbols(table.sh_size / sizeof(ElfW(Sym)));
    if (!readAt(fd, strings.sh_offset, names.data(), strings.sh_size) ||
        !readAt(fd, table.sh_offset, symbols.data(),
                symbols.size() * sizeof(ElfW(Sym))))
      return loops;
    static const std::string kBody = "tessel_parallel_body_";
    for (const ElfW(Sym) &symbol : symbols) {
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC ||
          symbol.st_name >= strings.sh_size)
        continue;
      std::string name = names.data() + symbol.st_name;
      if (name.compare(0, kBody.size(), kBody) != 0)
        continue;
      size_t colon = name.find(':');
      loops[symbol.st_value] =
          colon == std::string::npos || colon + 1 == name.size()
              ? "parallel loop " + name.substr(kBody.size())
              : name.substr(colon + 1);
    }
  }
  return loops;
}

} // namespace

std::string CheckedLibrary::loopName(const void *address) {
  std::call_once(symbolsRead, [&] {
    struct link_map *map = nullptr;
    if (fd < 0 || !handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 ||
        !map)
      return;
    for (auto &[value, name] : readLoopSymbols(fd))
      loops[uintptr_t(map->l_addr + value)] = std::move(name);
  });
  auto it = loops.find(uintptr_t(address));
  if (it != loops.end())
    return it->second;
  char text[32];
  std::snprintf(text, sizeof(text), "parallel loop %p", address);
  return text;
}

tessel_status CheckedLibrary::mapWeights(const tessel_model_desc *desc,
                                         const std::string &artifactPath) {
  const char *name = weightsFileName(desc);
  if (!name)
    return nullptr;
  std::lock_guard<std::mutex> lock(weightsMutex);
  if (weights)
    return nullptr;
  size_t slash = artifactPath.rfind('/');
  std::string path = slash == std::string::npos
                         ? name
                         : artifactPath.substr(0, slash + 1) + name;
  const std::string refused = "'" + artifactPath + "' keeps its weights in '" +
                              path + "', which ";
  Descriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) {
    int error = errno;
    return makeStatus(error == ENOENT ? TESSEL_NOT_FOUND : TESSEL_IO_ERROR,
                      refused + "cannot be opened: " + std::strerror(error) +
                          " (keep the weights file beside the artifact, "
                          "under the name tessel-compile gave it)");
  }
  struct stat info;
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode))
    return makeStatus(TESSEL_INVALID_ARTIFACT, refused + "is not a regular file");
  if (uint64_t(info.st_size) != desc->weights_file_size)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      refused + "has " + std::to_string(info.st_size) +
                          " bytes; the artifact was compiled with " +
                          std::to_string(desc->weights_file_size) +
                          " (truncated or replaced: restore it or recompile)");
  size_t size = size_t(info.st_size);
  void *mapped = size ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, file.fd, 0)
                      : nullptr;
  if (size && mapped == MAP_FAILED) {
    int error = errno;
    return makeStatus(TESSEL_IO_ERROR,
                      refused + "cannot be mapped: " + std::strerror(error));
  }
  double start = trace::enabled() ? trace::now() : 0;
  std::vector<uint64_t> scratch((size + TESSEL_WEIGHTS_CHUNK - 1) /
                                TESSEL_WEIGHTS_CHUNK);
  uint64_t checksum = tessel_weights_checksum(mapped, size, scratch.data());
  if (trace::enabled())
    trace::complete("model", "weights checksum", start, trace::now(),
                    "\"bytes\": " + std::to_string(size));
  if (checksum != desc->weights_file_checksum) {
    if (size)
      ::munmap(mapped, size);
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      refused + "has changed since it was compiled (its "
                                "checksum differs from the one the artifact "
                                "records): restore it or recompile");
  }
  weights = mapped;
  weightsSize = size;
  *desc->weights_base = mapped;
  log::message(log::Info, "mapped the weights file '" + path + "' (" +
                              std::to_string(size) + " bytes)");
  return nullptr;
}

CheckedLibrary::~CheckedLibrary() {
  {
    Registry &known = registry();
    std::lock_guard<std::mutex> lock(known.mutex);
    auto it = known.loaded.find({device, inode});
    if (it != known.loaded.end() && it->second.expired())
      known.loaded.erase(it);
  }
  if (handle)
    dlclose(handle);
  if (weights)
    ::munmap(const_cast<void *>(weights), weightsSize);
  if (fd < 0)
    return;
  // Still loaded (another reference from outside the runtime, or an object
  // the loader cannot unload): its name must keep meaning this file, so the
  // descriptor stays open for the rest of the process.
  std::string name = loaderName(fd);
  if (void *still = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    dlclose(still);
    return;
  }
  ::close(fd);
}

tessel_status loadCheckedLibrary(const std::string &path,
                                 std::shared_ptr<CheckedLibrary> &out) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer; it is
  // refused as not a regular file. Regular files ignore the flag.
  Descriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) {
    int error = errno;
    return makeStatus(error == ENOENT ? TESSEL_NOT_FOUND : TESSEL_IO_ERROR,
                      "cannot open '" + path + "': " + std::strerror(error));
  }
  if (tessel_status status = checkArtifactFile(file.fd, path))
    return status;
  struct stat info;
  if (::fstat(file.fd, &info) != 0) {
    int error = errno;
    return makeStatus(TESSEL_IO_ERROR,
                      "cannot read '" + path + "': " + std::strerror(error));
  }

  Registry &known = registry();
  std::lock_guard<std::mutex> lock(known.mutex);
  auto key = std::make_pair(info.st_dev, info.st_ino);
  auto it = known.loaded.find(key);
  if (it != known.loaded.end())
    if (std::shared_ptr<CheckedLibrary> shared = it->second.lock()) {
      out = std::move(shared);
      return nullptr;
    }

  std::string name = loaderName(file.fd);
  struct stat named;
  if (::stat(name.c_str(), &named) != 0 || named.st_dev != info.st_dev ||
      named.st_ino != info.st_ino)
    return makeStatus(TESSEL_IO_ERROR,
                      "cannot load '" + path + "': the runtime loads an "
                      "artifact through the descriptor it checked, as " +
                          name + ", and /proc is not mounted here");
  dlerror();
  void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      "cannot load '" + path + "': " + lastDlError());
  auto library = std::make_shared<CheckedLibrary>();
  library->handle = handle;
  library->fd = file.release();
  library->device = info.st_dev;
  library->inode = info.st_ino;
  known.loaded[key] = library;
  out = std::move(library);
  return nullptr;
}

} // namespace tessel::runtime
