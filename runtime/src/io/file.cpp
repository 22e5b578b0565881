//===- file.cpp - Whole-file reads and writes, and format dispatch --------===//

#include "tessel/tensor_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace tessel::io {

namespace {
std::string systemError(const char *what) {
  return std::string(what) + ": " + std::strerror(errno);
}

/// Closes a FILE when it goes out of scope.
struct FileCloser {
  std::FILE *file;
  ~FileCloser() {
    if (file)
      std::fclose(file);
  }
};
} // namespace

bool readFileBytes(const std::string &path, std::vector<uint8_t> &bytes,
                   std::string &error) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    error = systemError("cannot open file");
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    error = "cannot open file: it is a directory";
    return false;
  }
  FileCloser closer{std::fopen(path.c_str(), "rb")};
  if (!closer.file) {
    error = systemError("cannot open file");
    return false;
  }
  bytes.clear();
  if (S_ISREG(info.st_mode))
    bytes.reserve(size_t(info.st_size));
  uint8_t buffer[1 << 16];
  while (true) {
    size_t got = std::fread(buffer, 1, sizeof(buffer), closer.file);
    bytes.insert(bytes.end(), buffer, buffer + got);
    if (got < sizeof(buffer))
      break;
  }
  if (std::ferror(closer.file)) {
    error = systemError("cannot read file");
    return false;
  }
  return true;
}

bool writeFileBytes(const std::string &path, const void *data, size_t size,
                    std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = systemError("cannot create file");
    return false;
  }
  bool ok = size == 0 || std::fwrite(data, 1, size, file) == size;
  if (!ok)
    error = systemError("cannot write file");
  if (std::fclose(file) != 0 && ok) {
    error = systemError("cannot write file");
    ok = false;
  }
  return ok;
}

bool readTensorFile(const std::string &path, HostTensor &out,
                    std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  static const char kNpyMagic[] = "\x93NUMPY";
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), kNpyMagic, 6) == 0)
    return parseNpy(bytes.data(), bytes.size(), out, error);
  if (parseTensorProto(bytes.data(), bytes.size(), out, error))
    return true;
  error = "not a .npy file, and not an ONNX TensorProto: " + error;
  return false;
}

bool readNpy(const std::string &path, HostTensor &out, std::string &error) {
  std::vector<uint8_t> bytes;
  return readFileBytes(path, bytes, error) &&
         parseNpy(bytes.data(), bytes.size(), out, error);
}

bool readTensorProto(const std::string &path, HostTensor &out,
                     std::string &error) {
  std::vector<uint8_t> bytes;
  return readFileBytes(path, bytes, error) &&
         parseTensorProto(bytes.data(), bytes.size(), out, error);
}

bool writeNpy(const std::string &path, const tessel_tensor_view &tensor,
              std::string &error) {
  std::vector<uint8_t> bytes;
  return encodeNpy(tensor, bytes, error) &&
         writeFileBytes(path, bytes.data(), bytes.size(), error);
}

bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error) {
  return writeNpy(path, tensor.view(), error);
}

bool writeTensorProto(const std::string &path, const tessel_tensor_view &tensor,
                      const std::string &name, std::string &error) {
  std::vector<uint8_t> bytes;
  return encodeTensorProto(tensor, name, bytes, error) &&
         writeFileBytes(path, bytes.data(), bytes.size(), error);
}

} // namespace tessel::io
