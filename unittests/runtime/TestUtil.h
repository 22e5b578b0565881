//===- TestUtil.h - Helpers for the runtime's unit tests --------*- C++ -*-===//

#ifndef TESSEL_UNITTESTS_RUNTIME_TESTUTIL_H
#define TESSEL_UNITTESTS_RUNTIME_TESTUTIL_H

#include "tessel/runtime.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tessel::test {

/// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/tessel-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()))
      dir = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!dir.empty())
      std::filesystem::remove_all(dir, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  bool valid() const { return !dir.empty(); }
  std::string path(const std::string &name) const { return dir + "/" + name; }

private:
  std::string dir;
};

inline void writeFile(const std::string &path, const std::string &contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Frees a C status and returns its code and message.
struct StatusResult {
  tessel_status_code code;
  std::string message;
};
inline StatusResult take(tessel_status status) {
  StatusResult result{tessel_status_get_code(status),
                      tessel_status_get_message(status)};
  tessel_status_free(status);
  return result;
}

/// The path of an ONNX backend test's data file, e.g.
/// onnxNodeFile("test_relu", "input_0.pb"); "" when the suite is absent.
inline std::string onnxNodeFile(const std::string &test,
                                const std::string &file) {
  std::string path = std::string(TESSEL_ONNX_NODE_TESTS) + "/" + test +
                     "/test_data_set_0/" + file;
  return std::filesystem::exists(path) ? path : "";
}

} // namespace tessel::test

#endif // TESSEL_UNITTESTS_RUNTIME_TESTUTIL_H
