//===- compare.cpp - Comparing tensors with tolerances --------------------===//

#include "tessel/tensor_io.hpp"

#include <cmath>

namespace tessel::io {

bool compareTensors(const tessel_tensor_view &actual,
                    const tessel_tensor_view &expected, double rtol,
                    double atol, Comparison &result, std::string &error) {
  result = Comparison();
  std::string actualType = formatTensorType(actual);
  std::string expectedType = formatTensorType(expected);
  if (actualType != expectedType) {
    error = "expected " + expectedType + ", got " + actualType;
    return false;
  }
  size_t elementSize = tessel_dtype_size(actual.dtype);
  if (elementSize == 0) {
    error = "cannot compare tensors of unknown element type";
    return false;
  }
  if (actual.size_bytes != expected.size_bytes ||
      actual.size_bytes % elementSize != 0) {
    error = "buffers of " + actualType + " differ in size";
    return false;
  }
  size_t count = actual.size_bytes / elementSize;
  result.count = int64_t(count);
  for (size_t i = 0; i < count; ++i) {
    double a = elementAsDouble(actual.data, actual.dtype, i);
    double e = elementAsDouble(expected.data, expected.dtype, i);
    if (std::isnan(a) || std::isnan(e)) {
      if (!(std::isnan(a) && std::isnan(e)))
        ++result.mismatches;
      continue;
    }
    double absError = std::fabs(a - e);
    bool match = (std::isinf(a) || std::isinf(e))
                     ? a == e
                     : absError <= atol + rtol * std::fabs(e);
    if (a == e)
      absError = 0; // equal infinities
    if (!match)
      ++result.mismatches;
    if (absError > result.maxAbsError)
      result.maxAbsError = absError;
    if (e != 0) {
      double relError = absError / std::fabs(e);
      if (relError > result.maxRelError)
        result.maxRelError = relError;
    }
  }
  return true;
}

} // namespace tessel::io
