//===- ModelTest.cpp - Loading artifacts ----------------------------------===//

#include "TestUtil.h"

#include "tessel/runtime.hpp"
#include "tessel/seal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cpuid.h>
#include <cstddef>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tessel;
using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

StatusResult load(const std::string &path) {
  tessel_model *model = nullptr;
  StatusResult result = take(tessel_model_load(path.c_str(), &model));
  EXPECT_EQ(model == nullptr, result.code != TESSEL_OK) << result.message;
  tessel_model_release(model);
  return result;
}

TEST(ModelTest, LoadsAndDescribesTheAddFixture) {
  tessel_model *model = nullptr;
  StatusResult result = take(tessel_model_load(TESSEL_FIXTURE_ADD, &model));
  ASSERT_EQ(result.code, TESSEL_OK) << result.message;
  ASSERT_NE(model, nullptr);

  const tessel_model_desc *desc = tessel_model_descriptor(model);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(desc->abi_major, TESSEL_ABI_MAJOR);
  EXPECT_STREQ(desc->model_name, "add");
  EXPECT_STREQ(desc->entry_name, "add_entry");

  ASSERT_EQ(tessel_model_num_inputs(model), 2u);
  ASSERT_EQ(tessel_model_num_outputs(model), 1u);
  const tessel_tensor_desc *a = tessel_model_input(model, 0);
  ASSERT_NE(a, nullptr);
  EXPECT_STREQ(a->name, "a");
  EXPECT_EQ(a->dtype, TESSEL_DTYPE_F32);
  ASSERT_EQ(a->rank, 2);
  EXPECT_EQ(a->shape[0], 2);
  EXPECT_EQ(a->shape[1], 3);
  EXPECT_STREQ(tessel_model_input(model, 1)->name, "b");
  EXPECT_STREQ(tessel_model_output(model, 0)->name, "y");
  EXPECT_EQ(tessel_model_input(model, 2), nullptr);
  EXPECT_EQ(tessel_model_output(model, 1), nullptr);

  // Extra references keep the artifact loaded.
  tessel_model_retain(model);
  tessel_model_release(model);
  EXPECT_STREQ(tessel_model_input(model, 0)->name, "a");
  tessel_model_release(model);
}

TEST(ModelTest, AccessorsAcceptNull) {
  EXPECT_EQ(tessel_model_descriptor(nullptr), nullptr);
  EXPECT_EQ(tessel_model_num_inputs(nullptr), 0u);
  EXPECT_EQ(tessel_model_num_outputs(nullptr), 0u);
  EXPECT_EQ(tessel_model_input(nullptr, 0), nullptr);
  EXPECT_EQ(tessel_model_output(nullptr, 0), nullptr);
  tessel_model_retain(nullptr);
  tessel_model_release(nullptr);
}

TEST(ModelTest, RejectsNullArguments) {
  tessel_model *model = nullptr;
  EXPECT_EQ(take(tessel_model_load(TESSEL_FIXTURE_ADD, nullptr)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_model_load(nullptr, &model)).code,
            TESSEL_INVALID_ARGUMENT);
  EXPECT_EQ(take(tessel_model_load("", &model)).code, TESSEL_INVALID_ARGUMENT);
}

TEST(ModelTest, MissingFile) {
  StatusResult result = load("/nonexistent/dir/model.so");
  EXPECT_EQ(result.code, TESSEL_NOT_FOUND);
  EXPECT_EQ(result.message, "cannot open '/nonexistent/dir/model.so': No such "
                            "file or directory");
}

TEST(ModelTest, Directory) {
  TempDir dir;
  ASSERT_TRUE(dir.valid());
  StatusResult result = load(dir.path(""));
  EXPECT_EQ(result.code, TESSEL_IO_ERROR);
  EXPECT_THAT(result.message, HasSubstr("it is a directory"));
}

TEST(ModelTest, FifoIsRefusedWithoutWaiting) {
  // Opening a FIFO for reading blocks until a writer comes; the check must
  // not (a hang, before the runtime opened with O_NONBLOCK).
  TempDir dir;
  std::string path = dir.path("model.so");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  StatusResult result = load(path);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_EQ(result.message, "'" + path + "' is not a regular file");
}

TEST(ModelTest, NotAnElfFile) {
  TempDir dir;
  std::string path = dir.path("model.so");
  writeFile(path, "this is not a shared object\n");
  StatusResult result = load(path);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_EQ(result.message, "'" + path + "' is not an ELF shared object");

  writeFile(path, "");
  EXPECT_EQ(load(path).code, TESSEL_INVALID_ARTIFACT);
  writeFile(path, "\x7f"
                  "EL");
  EXPECT_EQ(load(path).code, TESSEL_INVALID_ARTIFACT);
}

TEST(ModelTest, RelocatableObjectIsNotASharedObject) {
  StatusResult result = load(TESSEL_FIXTURE_OBJECT);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_THAT(result.message,
              HasSubstr("is not an ELF shared object: it is a relocatable "
                        "object"));
}

/// `image` with the seal tessel-compile appends (tessel/seal.h).
std::string sealed(const std::string &image) {
  unsigned char seal[TESSEL_SEAL_SIZE];
  tessel_seal_make(image.data(), image.size(), seal);
  return image + std::string(reinterpret_cast<char *>(seal), sizeof(seal));
}

/// The fixture's bytes before its seal.
std::string unsealedImage(const std::string &bytes) {
  return bytes.substr(0, bytes.size() - TESSEL_SEAL_SIZE);
}

TEST(ModelTest, TruncatedSharedObject) {
  std::string bytes = readFile(TESSEL_FIXTURE_ADD);
  ASSERT_GT(bytes.size(), 4096u);
  TempDir dir;
  // Cut anywhere, the seal is gone.
  for (size_t size :
       {size_t(64), size_t(1000), bytes.size() / 2, bytes.size() - 1}) {
    std::string path = dir.path("truncated" + std::to_string(size) + ".so");
    writeFile(path, bytes.substr(0, size));
    StatusResult result = load(path);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << size;
    EXPECT_THAT(result.message,
                HasSubstr("'" + path +
                          "' is not a Tessel artifact, or is truncated: it "
                          "does not end in the seal tessel-compile writes"))
        << size;
  }
  // Cut and sealed again: the segments still do not fit.
  std::string image = unsealedImage(bytes);
  for (size_t size : {size_t(64), size_t(1000), image.size() / 2}) {
    std::string path = dir.path("resealed" + std::to_string(size) + ".so");
    writeFile(path, sealed(image.substr(0, size)));
    StatusResult result = load(path);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << size;
    EXPECT_THAT(result.message,
                HasSubstr("'" + path + "' is truncated or corrupt: "))
        << size;
  }
  std::string badHeaders = image;
  badHeaders[offsetof(ElfW(Ehdr), e_phentsize)] = 7;
  std::string path = dir.path("bad-headers.so");
  writeFile(path, sealed(badHeaders));
  EXPECT_THAT(load(path).message,
              HasSubstr("is truncated or corrupt: it has no valid program "
                        "headers"));
}

TEST(ModelTest, SealIsChecked) {
  std::string bytes = readFile(TESSEL_FIXTURE_ADD);
  TempDir dir;
  // Any bit flipped in the image changes its checksum.
  for (size_t at : {size_t(EI_NIDENT + 8), bytes.size() / 2,
                    bytes.size() - TESSEL_SEAL_SIZE - 1}) {
    std::string flipped = bytes;
    flipped[at] ^= 0x10;
    std::string path = dir.path("flipped" + std::to_string(at) + ".so");
    writeFile(path, flipped);
    StatusResult result = load(path);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << at;
    EXPECT_THAT(result.message,
                HasSubstr("'" + path + "' is corrupt: its checksum is 0x"))
        << at;
  }
  // A seal recording another size.
  std::string resized = bytes;
  resized[bytes.size() - TESSEL_SEAL_SIZE + 16] ^= 1;
  std::string path = dir.path("resized.so");
  writeFile(path, resized);
  EXPECT_THAT(load(path).message,
              HasSubstr("is truncated or corrupt: its seal records "));
  // A seal of a version this runtime does not read.
  std::string version = bytes;
  version[bytes.size() - TESSEL_SEAL_SIZE + 8] = 2;
  path = dir.path("version.so");
  writeFile(path, version);
  StatusResult result = load(path);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("has a seal of version 2; this runtime reads 1"));
  // A shared object linked elsewhere (no seal at all).
  result = load(TESSEL_FIXTURE_UNSEALED);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_THAT(result.message,
              HasSubstr("is not a Tessel artifact, or is truncated: it does "
                        "not end in the seal"));
}

TEST(ModelTest, SealChecksumIsXxh64) {
  // XXH64's published value for the empty input, and one computed with the
  // reference implementation (python's xxhash) for 100 bytes 0..99.
  EXPECT_EQ(tessel_xxh64("", 0), 0xef46db3751d8e999ull);
  std::string bytes;
  for (int i = 0; i < 100; ++i)
    bytes.push_back(char(i));
  EXPECT_EQ(tessel_xxh64(bytes.data(), bytes.size()), 0x6ac1e58032166597ull);
}

TEST(ModelTest, UnresolvedSymbolFailsToLoad) {
  StatusResult result = load(TESSEL_FIXTURE_UNDEFINED);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_THAT(result.message, HasSubstr(std::string("cannot load '") +
                                        TESSEL_FIXTURE_UNDEFINED + "': "));
  EXPECT_THAT(result.message, HasSubstr("tessel_fixture_missing_function"));
}

TEST(ModelTest, ElfForAnotherMachineOrClass) {
  std::string bytes = readFile(TESSEL_FIXTURE_ADD);
  ASSERT_GT(bytes.size(), size_t(EI_NIDENT + 4));
  TempDir dir;

  std::string otherMachine = bytes;
  uint16_t machine = EM_X86_64;
#if defined(__x86_64__)
  machine = EM_AARCH64;
#endif
  std::memcpy(&otherMachine[EI_NIDENT + 2], &machine, 2);
  std::string path = dir.path("other-machine.so");
  writeFile(path, otherMachine);
  StatusResult result = load(path);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message, HasSubstr("was built for "));

  std::string otherClass = bytes;
  otherClass[EI_CLASS] = sizeof(void *) == 8 ? ELFCLASS32 : ELFCLASS64;
  path = dir.path("other-class.so");
  writeFile(path, otherClass);
  result = load(path);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message, HasSubstr("-bit ELF file"));
}

TEST(ModelTest, MissingSymbol) {
  StatusResult result = load(TESSEL_FIXTURE_NO_SYMBOL);
  EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_EQ(result.message, std::string("'") + TESSEL_FIXTURE_NO_SYMBOL +
                                "' is not a Tessel artifact: it does not "
                                "export tessel_model_v1");
}

TEST(ModelTest, WrongAbiMajor) {
  StatusResult result = load(TESSEL_FIXTURE_ABI2);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message, HasSubstr("was built for artifact ABI 2." +
                                        std::to_string(TESSEL_ABI_MINOR) +
                                        ", but this runtime reads ABI 1." +
                                        std::to_string(TESSEL_ABI_MINOR) +
                                        " (the major must match)"));
}

TEST(ModelTest, NonCpuTarget) {
  StatusResult result = load(TESSEL_FIXTURE_CUDA);
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message, HasSubstr("targets 'cuda'"));
}

TEST(ModelTest, BogusDescriptors) {
  struct Case {
    const char *path;
    const char *message;
  } cases[] = {
      {TESSEL_FIXTURE_BOGUS1, "input 0 'a': unknown element type code 42"},
      {TESSEL_FIXTURE_BOGUS2, "struct_size 16 is smaller than ABI 1.0's"},
      {TESSEL_FIXTURE_BOGUS3, "the entry function is NULL"},
      {TESSEL_FIXTURE_BOGUS4,
       "input 0 'a': extent -3 of dimension 1 is negative"},
      {TESSEL_FIXTURE_BOGUS5, "input 1 'a' appears twice"},
  };
  for (const Case &c : cases) {
    StatusResult result = load(c.path);
    EXPECT_EQ(result.code, TESSEL_INVALID_ARTIFACT) << c.path;
    EXPECT_THAT(result.message, HasSubstr("has an invalid descriptor: "));
    EXPECT_THAT(result.message, HasSubstr(c.message));
  }
}

TEST(ModelTest, CpuFeaturesTheHostLacks) {
  // The fixture asks for +avx2,+fma,+avx512f,+avx512bw and -avx512dq.
  std::string missing;
  __builtin_cpu_init();
  auto need = [&](bool supported, const char *name) {
    if (!supported)
      missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(__builtin_cpu_supports("avx2"), "avx2");
  need(__builtin_cpu_supports("fma"), "fma");
  need(__builtin_cpu_supports("avx512f"), "avx512f");
  need(__builtin_cpu_supports("avx512bw"), "avx512bw");

  StatusResult result = load(TESSEL_FIXTURE_AVX512);
  if (missing.empty()) {
    EXPECT_EQ(result.code, TESSEL_OK) << result.message;
    return;
  }
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("needs CPU features this host lacks: " + missing +
                        " (compiled for x86-64 with "));
  EXPECT_THAT(result.message, ::testing::Not(HasSubstr("avx512dq,")));
}

/// Whether this host has AMX-TILE and AMX-INT8 (CPUID leaf 7, EDX bits 24
/// and 25).
static bool hostHasAmx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return false;
  return (edx & (1u << 24)) && (edx & (1u << 25));
}

TEST(ModelTest, AmxArtifactNeedsTheFeaturesAndTheTileState) {
  // On an AMX host the runtime is granted the tile state (Linux 5.16 and
  // later) and loads the artifact; elsewhere the features are missing.
  StatusResult result = load(TESSEL_FIXTURE_AMX);
  if (hostHasAmx()) {
    EXPECT_EQ(result.code, TESSEL_OK) << result.message;
    return;
  }
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("needs CPU features this host lacks: "));
  EXPECT_THAT(result.message, HasSubstr("amx-tile"));
}

TEST(ModelTest, AmxTileStateRefusedIsAnError) {
  // The flag alone: the features check passes, and only the request for
  // the tile state tells an AMX host from the others.
  StatusResult result = load(TESSEL_FIXTURE_AMX_FLAG);
  if (hostHasAmx()) {
    EXPECT_EQ(result.code, TESSEL_OK) << result.message;
    return;
  }
  EXPECT_EQ(result.code, TESSEL_INCOMPATIBLE);
  EXPECT_THAT(result.message,
              HasSubstr("runs AMX tile instructions, and the kernel refused "
                        "the AMX tile state"));
}

TEST(ModelTest, LaterFeatureEntriesOverrideEarlierOnes) {
  // +avx512f,+avx512vnni are both withdrawn later in the string.
  StatusResult result = load(TESSEL_FIXTURE_FEATURES_OVERRIDDEN);
  EXPECT_EQ(result.code, TESSEL_OK) << result.message;
}

TEST(ModelTest, RelativePathIsNotSearchedOnTheLibraryPath) {
  std::string fixture = TESSEL_FIXTURE_ADD;
  size_t slash = fixture.rfind('/');
  ASSERT_NE(slash, std::string::npos);
  char previous[4096];
  ASSERT_NE(getcwd(previous, sizeof(previous)), nullptr);
  ASSERT_EQ(chdir(fixture.substr(0, slash).c_str()), 0);
  StatusResult result = load(fixture.substr(slash + 1));
  ASSERT_EQ(chdir(previous), 0);
  EXPECT_EQ(result.code, TESSEL_OK) << result.message;
}

TEST(ModelTest, CxxWrapper) {
  Model model;
  EXPECT_FALSE(model.valid());
  Status status = Model::load(TESSEL_FIXTURE_ADD, model);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(model.valid());
  EXPECT_EQ(model.numInputs(), 2u);
  EXPECT_EQ(model.numOutputs(), 1u);
  EXPECT_STREQ(model.input(1)->name, "b");
  EXPECT_STREQ(model.output(0)->name, "y");
  EXPECT_EQ(model.descriptor()->num_inputs, 2u);

  Model moved = std::move(model);
  EXPECT_TRUE(moved.valid());
  Status failed = Model::load("/nonexistent.so", moved);
  EXPECT_EQ(failed.code(), TESSEL_NOT_FOUND);
  EXPECT_TRUE(moved.valid()); // a failed load leaves the target alone
}

} // namespace
