//===- TensorFuzzing.h - The contract the tensor-file harnesses check -*- C++
//-*-===//
//
// Shared by the .npy and TensorProto harnesses. A violation aborts, which
// libFuzzer reports as a crash with the input that caused it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FUZZ_TENSORFUZZING_H
#define TESSEL_FUZZ_TENSORFUZZING_H

#include "tessel/tensor_io.hpp"

#include <cstdio>
#include <cstdlib>

namespace tessel::fuzz {

[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr, "fuzz contract violated: %s\n", what);
  std::abort();
}

/// The reader's contract: it refuses with a message, or returns a tensor
/// whose bytes match its shape and element type, which the matching writer
/// encodes and the reader reads back identically.
template <typename Parse, typename Encode>
void checkReader(const uint8_t *data, size_t size, Parse parse, Encode encode) {
  io::HostTensor tensor;
  std::string error;
  if (!parse(data, size, tensor, error)) {
    if (error.empty())
      fail("a refusal without a message");
    return;
  }
  if (tensor.shape.size() > io::kMaxFileRank)
    fail("a rank above kMaxFileRank");
  // A zero extent makes the tensor empty however large the others are (as
  // the runtime's shape checks have it).
  uint64_t count = 1;
  bool overflow = false, empty = false;
  for (int64_t extent : tensor.shape) {
    if (extent < 0)
      fail("a negative extent");
    empty |= extent == 0;
    overflow |= __builtin_mul_overflow(count, uint64_t(extent), &count);
  }
  if (empty) {
    count = 0;
    overflow = false;
  }
  size_t elementSize = tessel_dtype_size(tensor.dtype);
  if (elementSize == 0)
    fail("an element type without a size");
  uint64_t bytes = 0;
  overflow |= __builtin_mul_overflow(count, uint64_t(elementSize), &bytes);
  if (overflow || bytes != tensor.bytes.size())
    fail("the byte count does not match the shape");
  if (uint64_t(tensor.numElements()) != count)
    fail("numElements() does not match the shape");

  std::vector<uint8_t> encoded;
  if (!encode(tensor, encoded, error)) {
    if (error.empty())
      fail("a writer refusal without a message");
    return;
  }
  io::HostTensor again;
  if (!parse(encoded.data(), encoded.size(), again, error))
    fail("the reader refuses what the writer wrote");
  if (again.dtype != tensor.dtype || again.shape != tensor.shape ||
      again.bytes != tensor.bytes)
    fail("a write and a read change the tensor");
}

} // namespace tessel::fuzz

#endif // TESSEL_FUZZ_TENSORFUZZING_H
