//===- elf_check.cpp - Is this file a loadable shared object? -------------===//
//
// dlopen's messages for files that are not shared objects are cryptic
// ("invalid ELF header"), and a truncated one can crash the process with
// SIGBUS when the loader touches a mapped page past the end of the file, so
// the header and the program headers are checked first.
//
//===----------------------------------------------------------------------===//

#include "model.h"
#include "status.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <link.h>
#include <memory>
#include <sys/stat.h>
#include <vector>

namespace tessel::runtime {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__i386__)
constexpr uint16_t kHostMachine = EM_386;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
#else
constexpr uint16_t kHostMachine = EM_NONE; // not checked
#endif

constexpr unsigned char kHostClass =
    sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif

const char *machineName(uint16_t machine) {
  switch (machine) {
  case EM_X86_64:
    return "x86_64";
  case EM_AARCH64:
    return "aarch64";
  case EM_386:
    return "i386";
  case EM_ARM:
    return "arm";
  case EM_PPC64:
    return "ppc64";
  case EM_RISCV:
    return "riscv";
  default:
    return nullptr;
  }
}

std::string describeMachine(uint16_t machine) {
  const char *name = machineName(machine);
  return name ? name : "machine " + std::to_string(machine);
}

const char *elfTypeName(uint16_t type) {
  switch (type) {
  case ET_REL:
    return "a relocatable object";
  case ET_EXEC:
    return "an executable";
  case ET_CORE:
    return "a core dump";
  default:
    return "an ELF file of unknown type";
  }
}

} // namespace

/// Checks that every segment the program headers describe lies inside the
/// file: the loader maps them, and touching a page past the end of a mapped
/// file raises SIGBUS instead of an error.
tessel_status checkSegments(std::FILE *file, uint64_t fileSize,
                            const std::string &path) {
  const std::string truncated = "'" + path + "' is truncated or corrupt: ";
  ElfW(Ehdr) header;
  if (fileSize < sizeof(header) || std::fseek(file, 0, SEEK_SET) != 0 ||
      std::fread(&header, sizeof(header), 1, file) != 1)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "it ends inside the ELF header");
  if (header.e_phnum == 0 || header.e_phentsize != sizeof(ElfW(Phdr)))
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "it has no valid program headers");
  uint64_t tableEnd =
      uint64_t(header.e_phoff) + uint64_t(header.e_phnum) * sizeof(ElfW(Phdr));
  if (tableEnd < header.e_phoff || tableEnd > fileSize)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "its program headers end at byte " +
                          std::to_string(tableEnd) + ", the file has " +
                          std::to_string(fileSize));
  std::vector<ElfW(Phdr)> segments(header.e_phnum);
  if (std::fseek(file, long(header.e_phoff), SEEK_SET) != 0 ||
      std::fread(segments.data(), sizeof(ElfW(Phdr)), segments.size(), file) !=
          segments.size())
    return makeStatus(TESSEL_IO_ERROR, "cannot read '" + path + "'");
  for (const ElfW(Phdr) & segment : segments) {
    if (segment.p_type == PT_NULL || segment.p_filesz == 0)
      continue;
    uint64_t segmentEnd = uint64_t(segment.p_offset) + segment.p_filesz;
    if (segmentEnd < segment.p_offset || segmentEnd > fileSize)
      return makeStatus(TESSEL_INVALID_ARTIFACT,
                        truncated + "a segment ends at byte " +
                            std::to_string(segmentEnd) + ", the file has " +
                            std::to_string(fileSize));
  }
  return nullptr;
}

tessel_status checkArtifactFile(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    int error = errno;
    return makeStatus(error == ENOENT ? TESSEL_NOT_FOUND : TESSEL_IO_ERROR,
                      "cannot open '" + path + "': " + std::strerror(error));
  }
  if (S_ISDIR(info.st_mode))
    return makeStatus(TESSEL_IO_ERROR,
                      "cannot open '" + path + "': it is a directory");
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    int error = errno;
    return makeStatus(TESSEL_IO_ERROR,
                      "cannot open '" + path + "': " + std::strerror(error));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> closer(file, std::fclose);

  // e_ident, e_type and e_machine sit at the same offsets in both classes.
  unsigned char ident[EI_NIDENT + 4] = {};
  size_t got = std::fread(ident, 1, sizeof(ident), file);
  if (std::ferror(file))
    return makeStatus(TESSEL_IO_ERROR, "cannot read '" + path + "'");

  const std::string notShared = "'" + path + "' is not an ELF shared object";
  if (got < sizeof(ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0)
    return makeStatus(TESSEL_INVALID_ARTIFACT, notShared);
  if (ident[EI_CLASS] != kHostClass)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' is a " +
                          (ident[EI_CLASS] == ELFCLASS64 ? "64" : "32") +
                          "-bit ELF file; this host needs " +
                          (kHostClass == ELFCLASS64 ? "64" : "32") + "-bit");
  if (ident[EI_DATA] != kHostData)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' has the other byte order than this host");

  uint16_t type, machine;
  std::memcpy(&type, ident + EI_NIDENT, 2);
  std::memcpy(&machine, ident + EI_NIDENT + 2, 2);
  if (type != ET_DYN)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      notShared + ": it is " + elfTypeName(type));
  if (kHostMachine != EM_NONE && machine != kHostMachine)
    return makeStatus(TESSEL_INCOMPATIBLE, "'" + path + "' was built for " +
                                               describeMachine(machine) +
                                               "; this host is " +
                                               describeMachine(kHostMachine));
  return checkSegments(file, uint64_t(info.st_size), path);
}

} // namespace tessel::runtime
