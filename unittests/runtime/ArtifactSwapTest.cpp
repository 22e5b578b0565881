//===- ArtifactSwapTest.cpp - The runtime loads the file it checked -------===//
//
// This executable defines dlopen (it is linked with its symbols exported), so
// the runtime's call to dlopen comes here first. Armed, the hook replaces the
// artifact's path with another file after the runtime has checked it and
// before the loader opens anything: the window a path-based load leaves
// open. The real dlopen then runs on whatever name the runtime gave.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <dlfcn.h>
#include <filesystem>
#include <string>

using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

/// When non-empty, the next dlopen first renames `swapFrom` over `swapTo`.
std::string swapFrom, swapTo;
int dlopenCalls = 0;

} // namespace

extern "C" void *dlopen(const char *file, int mode) {
  using DlopenFn = void *(*)(const char *, int);
  static DlopenFn real =
      reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  ++dlopenCalls;
  if (!swapFrom.empty()) {
    std::rename(swapFrom.c_str(), swapTo.c_str());
    swapFrom.clear();
  }
  return real(file, mode);
}

namespace {

std::string modelName(tessel_model *model) {
  return tessel_model_descriptor(model)->model_name;
}

void copy(const char *from, const std::string &to) {
  std::filesystem::copy_file(from, to,
                             std::filesystem::copy_options::overwrite_existing);
}

TEST(ArtifactSwapTest, LoadsTheFileItCheckedWhenThePathIsSwapped) {
  TempDir dir;
  ASSERT_TRUE(dir.valid());
  std::string path = dir.path("model.so");
  copy(TESSEL_FIXTURE_ADD, path);
  // Sealed or not, the swapped-in file must never be what runs: an unsealed
  // one would be refused by the check, a sealed one is a different model.
  for (const char *other : {TESSEL_FIXTURE_AND}) {
    SCOPED_TRACE(other);
    copy(TESSEL_FIXTURE_ADD, path);
    copy(other, dir.path("other.so"));
    swapFrom = dir.path("other.so");
    swapTo = path;
    int callsBefore = dlopenCalls;
    tessel_model *model = nullptr;
    StatusResult result = take(tessel_model_load(path.c_str(), &model));
    ASSERT_EQ(result.code, TESSEL_OK) << result.message;
    EXPECT_GT(dlopenCalls, callsBefore) << "the hook did not run";
    EXPECT_TRUE(swapFrom.empty()) << "the path was not swapped";
    EXPECT_EQ(modelName(model), "add");
    tessel_model_release(model);
  }
}

TEST(ArtifactSwapTest, ASwappedPathIsCheckedAgainOnTheNextLoad) {
  TempDir dir;
  ASSERT_TRUE(dir.valid());
  std::string path = dir.path("model.so");
  copy(TESSEL_FIXTURE_ADD, path);
  copy(TESSEL_FIXTURE_UNSEALED, dir.path("other.so"));
  swapFrom = dir.path("other.so");
  swapTo = path;
  tessel_model *model = nullptr;
  ASSERT_EQ(take(tessel_model_load(path.c_str(), &model)).code, TESSEL_OK);
  EXPECT_EQ(modelName(model), "add");
  tessel_model_release(model);
  // The unsealed file now at the path is refused, not served from the
  // library loaded before.
  StatusResult again = take(tessel_model_load(path.c_str(), &model));
  EXPECT_EQ(again.code, TESSEL_INVALID_ARTIFACT);
  EXPECT_THAT(again.message, HasSubstr("seal"));
}

// The loader knows each library by the /proc/self/fd name it was opened
// with. A second model of the same file shares the first's library, and
// releasing the first must not free that name's descriptor for another
// artifact while the library stays loaded.
TEST(ArtifactSwapTest, AFreedDescriptorNeverNamesAnotherArtifact) {
  tessel_model *first = nullptr, *second = nullptr, *third = nullptr;
  ASSERT_EQ(take(tessel_model_load(TESSEL_FIXTURE_ADD, &first)).code,
            TESSEL_OK);
  ASSERT_EQ(take(tessel_model_load(TESSEL_FIXTURE_ADD, &second)).code,
            TESSEL_OK);
  tessel_model_release(first);
  ASSERT_EQ(take(tessel_model_load(TESSEL_FIXTURE_AND, &third)).code,
            TESSEL_OK);
  EXPECT_EQ(modelName(second), "add");
  EXPECT_EQ(modelName(third), "and");
  tessel_model_release(second);
  tessel_model_release(third);

  // Loaded and released in turn, each file is itself.
  for (int round = 0; round < 3; ++round)
    for (const char *fixture : {TESSEL_FIXTURE_ADD, TESSEL_FIXTURE_AND}) {
      tessel_model *model = nullptr;
      ASSERT_EQ(take(tessel_model_load(fixture, &model)).code, TESSEL_OK);
      EXPECT_EQ(modelName(model), fixture == std::string(TESSEL_FIXTURE_ADD)
                                      ? "add"
                                      : "and");
      tessel_model_release(model);
    }
}

} // namespace
