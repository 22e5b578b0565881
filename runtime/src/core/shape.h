//===- shape.h - Shapes: sizes and printing ---------------------*- C++ -*-===//
//
// Internal to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_SHAPE_H
#define TESSEL_RUNTIME_CORE_SHAPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessel::runtime {

/// The largest rank the runtime accepts.
constexpr int32_t kMaxRank = 16;

/// The alignment of every buffer the runtime allocates.
constexpr size_t kBufferAlignment = 64;

/// Computes the dense size in bytes of a `dtype` tensor with `rank` extents
/// at `shape`. Returns false when the dtype is unknown, the rank is outside
/// [0, kMaxRank], `shape` is NULL with a non-zero rank, an extent is negative,
/// or the size does not fit in half the address space.
bool denseByteSize(int32_t dtype, int32_t rank, const int64_t *shape,
                   size_t &bytes);

/// Returns the reason denseByteSize() failed, as a phrase ("rank 17 is
/// outside [0, 16]"), or "" when it succeeds.
std::string shapeError(int32_t dtype, int32_t rank, const int64_t *shape);

/// Prints a tensor type as `float32[1,3,224,224]` (`float32[]` for rank 0).
/// Prints at most kMaxRank extents; a NULL shape prints as `[?]`.
std::string formatTensorType(int32_t dtype, int32_t rank, const int64_t *shape);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_SHAPE_H
