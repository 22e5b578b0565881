//===- format.cpp - HostTensor and printing tensors -----------------------===//

#include "internal.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace tessel::io {

int64_t HostTensor::numElements() const {
  // A zero extent empties the tensor however large the others are (their
  // product may not even fit in 64 bits); the readers bound the rest.
  uint64_t count = 1;
  for (int64_t extent : shape) {
    if (extent == 0)
      return 0;
    count *= uint64_t(extent);
  }
  return int64_t(count);
}

tessel_tensor_view HostTensor::view() {
  return tessel_tensor_view{bytes.data(), dtype, int32_t(shape.size()),
                            shape.data(), bytes.size()};
}

tessel_tensor_view HostTensor::view() const {
  return tessel_tensor_view{const_cast<uint8_t *>(bytes.data()), dtype,
                            int32_t(shape.size()), shape.data(), bytes.size()};
}

namespace {
std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}
} // namespace

std::string formatTensorType(int32_t dtype, const std::vector<int64_t> &shape) {
  return tessel_dtype_name(dtype) + formatShape(shape);
}

std::string formatTensorType(const tessel_tensor_view &view) {
  if (view.rank > 0 && !view.shape)
    return std::string(tessel_dtype_name(view.dtype)) + "[?]";
  std::vector<int64_t> shape;
  if (view.rank > 0)
    shape.assign(view.shape, view.shape + view.rank);
  return formatTensorType(view.dtype, shape);
}

namespace {

std::string formatElement(const void *data, int32_t dtype, size_t index) {
  char buffer[64];
  const auto *bytes = static_cast<const uint8_t *>(data);
  switch (dtype) {
  case TESSEL_DTYPE_BOOL:
    return bytes[index] ? "true" : "false";
  case TESSEL_DTYPE_I64: {
    int64_t value;
    std::memcpy(&value, bytes + index * 8, 8);
    std::snprintf(buffer, sizeof(buffer), "%" PRId64, value);
    return buffer;
  }
  case TESSEL_DTYPE_U64: {
    uint64_t value;
    std::memcpy(&value, bytes + index * 8, 8);
    std::snprintf(buffer, sizeof(buffer), "%" PRIu64, value);
    return buffer;
  }
  case TESSEL_DTYPE_I8:
  case TESSEL_DTYPE_U8:
  case TESSEL_DTYPE_I16:
  case TESSEL_DTYPE_U16:
  case TESSEL_DTYPE_I32:
  case TESSEL_DTYPE_U32:
    std::snprintf(buffer, sizeof(buffer), "%.0f",
                  elementAsDouble(data, dtype, index));
    return buffer;
  default:
    std::snprintf(buffer, sizeof(buffer), "%.6g",
                  elementAsDouble(data, dtype, index));
    return buffer;
  }
}

} // namespace

std::string formatValues(const tessel_tensor_view &tensor, size_t maxValues) {
  size_t elementSize = tessel_dtype_size(tensor.dtype);
  if (elementSize == 0 || (!tensor.data && tensor.size_bytes > 0))
    return "[?]";
  size_t count = tensor.size_bytes / elementSize;
  size_t shown = count < maxValues ? count : maxValues;
  std::string text = "[";
  for (size_t i = 0; i < shown; ++i) {
    if (i)
      text += ", ";
    text += formatElement(tensor.data, tensor.dtype, i);
  }
  if (shown < count)
    text += shown ? ", ...]" : "...]";
  else
    text += ']';
  return text;
}

bool checkedSizes(const std::vector<int64_t> &shape, size_t elementSize,
                  uint64_t &count, uint64_t &bytes, std::string &error) {
  count = 1;
  bool overflow = false, empty = false;
  for (int64_t extent : shape) {
    if (extent < 0) {
      error = "negative extent " + std::to_string(extent) + " in shape " +
              formatShape(shape);
      return false;
    }
    empty |= extent == 0;
    overflow |= __builtin_mul_overflow(count, uint64_t(extent), &count);
  }
  // An empty tensor, however large the other extents. (Not `count == 0`: a
  // product that wraps to exactly 2^64, like 16^16, is 0 too.)
  if (empty) {
    count = 0;
    overflow = false;
  }
  if (overflow ||
      __builtin_mul_overflow(count, uint64_t(elementSize), &bytes) ||
      bytes > SIZE_MAX / 2) {
    error = "shape " + formatShape(shape) + " is too large";
    return false;
  }
  return true;
}

bool checkWritableView(const tessel_tensor_view &view, std::string &error) {
  size_t elementSize = tessel_dtype_size(view.dtype);
  if (elementSize == 0) {
    error = "unknown element type code " + std::to_string(view.dtype);
    return false;
  }
  if (view.rank < 0 || size_t(view.rank) > kMaxFileRank ||
      (view.rank > 0 && !view.shape)) {
    error = "invalid rank " + std::to_string(view.rank);
    return false;
  }
  std::vector<int64_t> shape(view.shape, view.shape + view.rank);
  uint64_t count = 0, bytes = 0;
  if (!checkedSizes(shape, elementSize, count, bytes, error))
    return false;
  if (view.size_bytes != bytes) {
    error = "size_bytes is " + std::to_string(view.size_bytes) + ", but " +
            formatTensorType(view.dtype, shape) + " holds " +
            std::to_string(bytes);
    return false;
  }
  if (bytes > 0 && !view.data) {
    error = "the tensor's data is NULL";
    return false;
  }
  return true;
}

bool checkBoolBytes(const uint8_t *data, size_t size, std::string &error) {
  for (size_t i = 0; i < size; ++i) {
    if (data[i] > 1) {
      error = "bool element " + std::to_string(i) + " is " +
              std::to_string(data[i]) + ", not 0 or 1";
      return false;
    }
  }
  return true;
}

} // namespace tessel::io
