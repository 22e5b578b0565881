//===- ExternalData.cpp - Tensors stored beside the model -----------------===//
//
// ONNX keeps tensors of large models (protobuf caps a message at 2 GB) in
// files beside the .onnx: a TensorProto with data_location EXTERNAL names
// the file (`location`, relative to the model's directory), and where its
// bytes start and how many there are (`offset`, `length`). As ONNX's own
// checker does, a location must stay inside the model's directory: no
// absolute path, no `..`.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::tessel::onnx_import;

namespace {

bool parseNumber(const std::string &text, uint64_t &value) {
  return !text.empty() && !llvm::StringRef(text).getAsInteger(10, value);
}

} // namespace

std::unique_ptr<llvm::MemoryBuffer>
mlir::tessel::onnx_import::readExternalData(const onnx::TensorProto &tensor,
                                            llvm::StringRef dir,
                                            std::string &error) {
  const std::string what = "tensor '" + tensor.name() + "' (external data)";
  std::string location;
  uint64_t offset = 0, length = 0;
  bool hasLength = false;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      uint64_t &into = key == "offset" ? offset : length;
      if (!parseNumber(entry.value(), into)) {
        error = what + ": its " + key + " '" + entry.value() +
                "' is not a non-negative integer";
        return nullptr;
      }
      hasLength |= key == "length";
    }
    // "checksum" (an optional SHA-1) is not checked.
  }
  if (location.empty()) {
    error = what + " has no location";
    return nullptr;
  }
  llvm::SmallVector<llvm::StringRef> parts(llvm::sys::path::begin(location),
                                           llvm::sys::path::end(location));
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(parts, "..")) {
    error = what + ": its location '" + location +
            "' is outside the model's directory (an absolute path or '..')";
    return nullptr;
  }
  llvm::SmallString<256> path(dir.empty() ? "." : dir);
  llvm::sys::path::append(path, location);
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size)) {
    error = what + ": cannot read '" + path.str().str() + "': " + ec.message();
    return nullptr;
  }
  if (!hasLength)
    length = offset <= size ? size - offset : 0;
  if (offset > size || length > size - offset) {
    error = what + ": '" + path.str().str() + "' has " + std::to_string(size) +
            " bytes; the tensor needs " + std::to_string(length) +
            " at offset " + std::to_string(offset);
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, length, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer) {
    error = what + ": cannot read '" + path.str().str() +
            "': " + buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}
