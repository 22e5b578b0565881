//===- internal.h - Helpers shared by the tensor file formats ---*- C++ -*-===//

#ifndef TESSEL_RUNTIME_IO_INTERNAL_H
#define TESSEL_RUNTIME_IO_INTERNAL_H

#include "tessel/tensor_io.hpp"

namespace tessel::io {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the tensor file readers assume a little-endian host");

/// Checks that `view` describes a dense tensor that can be written out: a
/// known dtype, a non-negative shape, size_bytes equal to the dense size and
/// data present.
bool checkWritableView(const tessel_tensor_view &view, std::string &error);

/// Computes the element count of `shape` and the byte size for elements of
/// `elementSize` bytes; fails when an extent is negative or the size does not
/// fit in half the address space. The error names `shape`.
bool checkedSizes(const std::vector<int64_t> &shape, size_t elementSize,
                  uint64_t &count, uint64_t &bytes, std::string &error);

/// Fails when a bool tensor holds a byte other than 0 or 1.
bool checkBoolBytes(const uint8_t *data, size_t size, std::string &error);

} // namespace tessel::io

#endif // TESSEL_RUNTIME_IO_INTERNAL_H
