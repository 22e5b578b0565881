//===- element.cpp - Reading single elements ------------------------------===//

#include "tessel/tensor_io.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace tessel::io {

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits >> 15) << 31;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13); // inf or NaN
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign; // signed zero
  } else {
    // Subnormal: normalise the mantissa.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ff;
    result = sign | (uint32_t(113 - shift) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t widened = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

namespace {
template <typename T> T load(const void *data, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t *>(data) + index * sizeof(T),
              sizeof(T));
  return value;
}
} // namespace

double elementAsDouble(const void *data, int32_t dtype, size_t index) {
  switch (dtype) {
  case TESSEL_DTYPE_F32:
    return load<float>(data, index);
  case TESSEL_DTYPE_F64:
    return load<double>(data, index);
  case TESSEL_DTYPE_F16:
    return halfToFloat(load<uint16_t>(data, index));
  case TESSEL_DTYPE_BF16:
    return bfloat16ToFloat(load<uint16_t>(data, index));
  case TESSEL_DTYPE_I8:
    return load<int8_t>(data, index);
  case TESSEL_DTYPE_U8:
  case TESSEL_DTYPE_BOOL:
    return load<uint8_t>(data, index);
  case TESSEL_DTYPE_I16:
    return load<int16_t>(data, index);
  case TESSEL_DTYPE_U16:
    return load<uint16_t>(data, index);
  case TESSEL_DTYPE_I32:
    return load<int32_t>(data, index);
  case TESSEL_DTYPE_U32:
    return load<uint32_t>(data, index);
  case TESSEL_DTYPE_I64:
    return double(load<int64_t>(data, index));
  case TESSEL_DTYPE_U64:
    return double(load<uint64_t>(data, index));
  default:
    return std::numeric_limits<double>::quiet_NaN();
  }
}

} // namespace tessel::io
