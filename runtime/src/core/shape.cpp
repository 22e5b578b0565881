//===- shape.cpp - Shapes: sizes and printing -----------------------------===//

#include "shape.h"

#include "tessel/runtime.h"

#include <limits>

namespace tessel::runtime {

std::string shapeError(int32_t dtype, int32_t rank, const int64_t *shape) {
  size_t elementSize = tessel_dtype_size(dtype);
  if (elementSize == 0)
    return "unknown element type code " + std::to_string(dtype);
  if (rank < 0 || rank > kMaxRank)
    return "rank " + std::to_string(rank) + " is outside [0, " +
           std::to_string(kMaxRank) + "]";
  if (rank > 0 && !shape)
    return "rank " + std::to_string(rank) + " but no shape";
  bool empty = false;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return "extent " + std::to_string(shape[i]) + " of dimension " +
             std::to_string(i) + " is negative";
    empty |= shape[i] == 0;
  }
  // A zero extent makes the tensor empty however large the others are.
  if (empty)
    return "";
  const uint64_t limit = std::numeric_limits<size_t>::max() / 2;
  uint64_t count = 1;
  bool overflow = false;
  for (int32_t i = 0; i < rank && !overflow; ++i)
    overflow =
        __builtin_mul_overflow(count, static_cast<uint64_t>(shape[i]), &count);
  uint64_t bytes = 0;
  if (overflow ||
      __builtin_mul_overflow(count, uint64_t(elementSize), &bytes) ||
      bytes > limit)
    return "the size of " + formatTensorType(dtype, rank, shape) +
           " overflows the address space";
  return "";
}

bool denseByteSize(int32_t dtype, int32_t rank, const int64_t *shape,
                   size_t &bytes) {
  if (!shapeError(dtype, rank, shape).empty())
    return false;
  uint64_t count = 1;
  for (int32_t i = 0; i < rank; ++i)
    count *= static_cast<uint64_t>(shape[i]);
  bytes = static_cast<size_t>(count * tessel_dtype_size(dtype));
  return true;
}

std::string formatTensorType(int32_t dtype, int32_t rank,
                             const int64_t *shape) {
  std::string text = tessel_dtype_name(dtype);
  text += '[';
  if (rank > 0 && !shape) {
    text += "?]";
    return text;
  }
  int32_t printed = rank < 0 ? 0 : (rank > kMaxRank ? kMaxRank : rank);
  for (int32_t i = 0; i < printed; ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  if (printed < rank)
    text += ",...";
  text += ']';
  return text;
}

} // namespace tessel::runtime
