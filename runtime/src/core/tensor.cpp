//===- tensor.cpp - Tensors the runtime allocates -------------------------===//
//
// One 64-byte aligned block holds a copy of the shape followed by the data:
//
//   [shape: rank int64s, padded to 64 bytes][data: size_bytes, zeroed]
//
// so `view->shape` is the start of the block and tessel_tensor_free() needs
// nothing else.
//
//===----------------------------------------------------------------------===//

#include "shape.h"
#include "status.h"

#include <cstdlib>
#include <cstring>

using namespace tessel::runtime;

extern "C" {

tessel_status tessel_tensor_alloc(int32_t dtype, int32_t rank,
                                  const int64_t *shape,
                                  tessel_tensor_view *out) {
  return guard([&]() -> tessel_status {
    if (!out)
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_tensor_alloc: out is NULL");
    size_t bytes = 0;
    if (!denseByteSize(dtype, rank, shape, bytes))
      return makeStatus(TESSEL_INVALID_ARGUMENT,
                        "tessel_tensor_alloc: " +
                            shapeError(dtype, rank, shape));
    size_t shapeBytes = sizeof(int64_t) * size_t(rank);
    auto roundUp = [](size_t size) {
      return (size + kBufferAlignment - 1) / kBufferAlignment *
             kBufferAlignment;
    };
    size_t header = shapeBytes == 0 ? kBufferAlignment : roundUp(shapeBytes);
    size_t padded = roundUp(bytes);
    void *block = nullptr;
    if (posix_memalign(&block, kBufferAlignment, header + padded) != 0)
      return makeStatus(TESSEL_OUT_OF_MEMORY,
                        "tessel_tensor_alloc: cannot allocate " +
                            std::to_string(bytes) + " bytes for " +
                            formatTensorType(dtype, rank, shape));
    std::memset(block, 0, header + padded);
    auto *shapeCopy = static_cast<int64_t *>(block);
    if (rank > 0)
      std::memcpy(shapeCopy, shape, shapeBytes);
    out->data = static_cast<char *>(block) + header;
    out->dtype = dtype;
    out->rank = rank;
    out->shape = shapeCopy;
    out->size_bytes = bytes;
    return nullptr;
  });
}

void tessel_tensor_free(tessel_tensor_view *view) {
  if (!view || !view->shape)
    return;
  std::free(const_cast<int64_t *>(view->shape));
  *view = tessel_tensor_view{};
}

} // extern "C"
