//===- RandomInputs.cpp - Seeded random input tensors ---------------------===//

#include "RandomInputs.h"

#include <cmath>
#include <cstring>

namespace tessel::bench {

/// Fills `tensor` (already sized) with seeded random values for its dtype.
void fillRandom(io::HostTensor &tensor, std::mt19937_64 &rng) {
  int64_t n = tensor.numElements();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 3);
  uint8_t *bytes = tensor.bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (tensor.dtype) {
    case TESSEL_DTYPE_F32: {
      float v = static_cast<float>(real(rng));
      std::memcpy(bytes + 4 * i, &v, 4);
      break;
    }
    case TESSEL_DTYPE_F64: {
      double v = real(rng);
      std::memcpy(bytes + 8 * i, &v, 8);
      break;
    }
    case TESSEL_DTYPE_F16:
    case TESSEL_DTYPE_BF16: {
      // Exactly representable halves in [-1, 1): k/8 for k in [-8, 7].
      int k = static_cast<int>(std::floor(real(rng) * 8.0));
      float f = static_cast<float>(k) / 8.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t half;
      if (tensor.dtype == TESSEL_DTYPE_BF16) {
        half = static_cast<uint16_t>(bits >> 16);
      } else {
        uint32_t sign = (bits >> 16) & 0x8000u;
        int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
        uint32_t mantissa = (bits >> 13) & 0x3ffu;
        half = f == 0.0f ? static_cast<uint16_t>(sign)
                         : static_cast<uint16_t>(
                               sign | (static_cast<uint32_t>(exponent) << 10) |
                               mantissa);
      }
      std::memcpy(bytes + 2 * i, &half, 2);
      break;
    }
    case TESSEL_DTYPE_BOOL:
      bytes[i] = static_cast<uint8_t>(small(rng) & 1);
      break;
    default: {
      // Integers: little-endian, the value fits in the lowest byte.
      size_t size = tessel_dtype_size(tensor.dtype);
      std::memset(bytes + size * i, 0, size);
      bytes[size * i] = static_cast<uint8_t>(small(rng));
      break;
    }
    }
  }
}

} // namespace tessel::bench
