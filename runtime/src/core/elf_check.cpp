//===- elf_check.cpp - Is this file a loadable shared object? -------------===//
//
// dlopen's messages for files that are not shared objects are cryptic
// ("invalid ELF header"), a truncated one can crash the process with SIGBUS
// when the loader touches a mapped page past the end of the file, and the
// loader trusts everything else it reads. So before dlopen the file is
// checked: its ELF header, the seal tessel-compile appends (size and XXH64
// checksum of the whole image: any bit flipped is refused), and that the
// program headers' segments lie inside the image.
//
//===----------------------------------------------------------------------===//

#include "model.h"
#include "status.h"

#include "tessel/seal.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

std::string hex(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof(text), "0x%016llx", (unsigned long long)value);
  return text;
}

/// Checks that every segment the program headers describe lies inside the
/// image: the loader maps them, and touching a page past the end of a mapped
/// file raises SIGBUS instead of an error.
tessel_status checkSegments(const unsigned char *data, uint64_t size,
                            const std::string &path) {
  const std::string truncated = "'" + path + "' is truncated or corrupt: ";
  ElfW(Ehdr) header;
  if (size < sizeof(header))
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "it ends inside the ELF header");
  std::memcpy(&header, data, sizeof(header));
  if (header.e_phnum == 0 || header.e_phentsize != sizeof(ElfW(Phdr)))
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "it has no valid program headers");
  uint64_t tableEnd =
      uint64_t(header.e_phoff) + uint64_t(header.e_phnum) * sizeof(ElfW(Phdr));
  if (tableEnd < header.e_phoff || tableEnd > size)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      truncated + "its program headers end at byte " +
                          std::to_string(tableEnd) + ", the image has " +
                          std::to_string(size));
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    ElfW(Phdr) segment;
    std::memcpy(&segment, data + header.e_phoff + i * sizeof(ElfW(Phdr)),
                sizeof(segment));
    if (segment.p_type == PT_NULL || segment.p_filesz == 0)
      continue;
    uint64_t segmentEnd = uint64_t(segment.p_offset) + segment.p_filesz;
    if (segmentEnd < segment.p_offset || segmentEnd > size)
      return makeStatus(TESSEL_INVALID_ARTIFACT,
                        truncated + "a segment ends at byte " +
                            std::to_string(segmentEnd) + ", the image has " +
                            std::to_string(size));
  }
  return nullptr;
}

/// Checks the seal `tessel-compile` appends (tessel/seal.h): present, of a
/// known version, sizing the image exactly, and with a matching checksum.
tessel_status checkSeal(const unsigned char *data, uint64_t size,
                        const std::string &path) {
  const std::string notTessel =
      "'" + path + "' is not a Tessel artifact, or is truncated: ";
  if (size < TESSEL_SEAL_SIZE ||
      std::memcmp(data + size - TESSEL_SEAL_SIZE, TESSEL_SEAL_MAGIC, 8) != 0)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      notTessel + "it does not end in the seal tessel-compile "
                                  "writes (a shared object linked elsewhere, "
                                  "or compiled before artifacts were sealed: "
                                  "recompile it)");
  const unsigned char *seal = data + size - TESSEL_SEAL_SIZE;
  uint32_t version = tessel_seal_load32(seal + 8);
  if (version != TESSEL_SEAL_VERSION)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' has a seal of version " +
                          std::to_string(version) + "; this runtime reads " +
                          std::to_string(TESSEL_SEAL_VERSION));
  uint64_t image = size - TESSEL_SEAL_SIZE;
  uint64_t recorded = tessel_seal_load64(seal + 16);
  if (recorded != image)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      "'" + path +
                          "' is truncated or corrupt: its seal "
                          "records " +
                          std::to_string(recorded) + " bytes, the file holds " +
                          std::to_string(image) + " before the seal");
  uint64_t expected = tessel_seal_load64(seal + 24);
  uint64_t actual = tessel_xxh64(data, size_t(image));
  if (expected != actual)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      "'" + path + "' is corrupt: its checksum is " +
                          hex(actual) + ", its seal records " + hex(expected));
  return nullptr;
}

} // namespace

tessel_status checkArtifactImage(const unsigned char *data, uint64_t size,
                                 const std::string &path) {
  // e_ident, e_type and e_machine sit at the same offsets in both classes.
  const std::string notShared = "'" + path + "' is not an ELF shared object";
  if (size < EI_NIDENT + 4 || std::memcmp(data, ELFMAG, SELFMAG) != 0)
    return makeStatus(TESSEL_INVALID_ARTIFACT, notShared);
  if (data[EI_CLASS] != kHostClass)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' is a " +
                          (data[EI_CLASS] == ELFCLASS64 ? "64" : "32") +
                          "-bit ELF file; this host needs " +
                          (kHostClass == ELFCLASS64 ? "64" : "32") + "-bit");
  if (data[EI_DATA] != kHostData)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' has the other byte order than this host");

  uint16_t type, machine;
  std::memcpy(&type, data + EI_NIDENT, 2);
  std::memcpy(&machine, data + EI_NIDENT + 2, 2);
  if (type != ET_DYN)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      notShared + ": it is " + elfTypeName(type));
  if (kHostMachine != EM_NONE && machine != kHostMachine)
    return makeStatus(TESSEL_INCOMPATIBLE, "'" + path + "' was built for " +
                                               describeMachine(machine) +
                                               "; this host is " +
                                               describeMachine(kHostMachine));
  if (tessel_status status = checkSeal(data, size, path))
    return status;
  return checkSegments(data, size - TESSEL_SEAL_SIZE, path);
}

tessel_status checkArtifactFile(int fd, const std::string &path) {
  struct stat info;
  bool statted = ::fstat(fd, &info) == 0;
  if (!statted || !S_ISREG(info.st_mode)) {
    if (statted && S_ISDIR(info.st_mode))
      return makeStatus(TESSEL_IO_ERROR,
                        "cannot open '" + path + "': it is a directory");
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      "'" + path + "' is not a regular file");
  }
  uint64_t size = uint64_t(info.st_size);
  if (size == 0)
    return makeStatus(TESSEL_INVALID_ARTIFACT,
                      "'" + path +
                          "' is not an ELF shared object: it is empty");
  void *mapped = ::mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) {
    int error = errno;
    return makeStatus(TESSEL_IO_ERROR,
                      "cannot read '" + path + "': " + std::strerror(error));
  }
  tessel_status status = checkArtifactImage(
      static_cast<const unsigned char *>(mapped), size, path);
  ::munmap(mapped, size_t(size));
  return status;
}

} // namespace tessel::runtime
