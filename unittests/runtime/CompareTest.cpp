//===- CompareTest.cpp - Elements, printing and tolerant comparison -------===//

#include "tessel/tensor_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tessel;
using namespace tessel::io;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(ElementTest, HalfAndBfloat16) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14)); // smallest normal
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc0a0), -5.0f);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7fc0)));
}

TEST(ElementTest, AsDouble) {
  int8_t i8[] = {-128, 127};
  uint16_t u16[] = {65535};
  int64_t i64[] = {-(int64_t(1) << 53)};
  uint32_t u32[] = {4000000000u};
  EXPECT_EQ(elementAsDouble(i8, TESSEL_DTYPE_I8, 0), -128.0);
  EXPECT_EQ(elementAsDouble(i8, TESSEL_DTYPE_I8, 1), 127.0);
  EXPECT_EQ(elementAsDouble(u16, TESSEL_DTYPE_U16, 0), 65535.0);
  EXPECT_EQ(elementAsDouble(i64, TESSEL_DTYPE_I64, 0), -9007199254740992.0);
  EXPECT_EQ(elementAsDouble(u32, TESSEL_DTYPE_U32, 0), 4e9);
  EXPECT_TRUE(std::isnan(elementAsDouble(i8, 8, 0)));
}

TEST(FormatTest, TensorTypes) {
  EXPECT_EQ(formatTensorType(TESSEL_DTYPE_F32, {1, 3, 224, 224}),
            "float32[1,3,224,224]");
  EXPECT_EQ(formatTensorType(TESSEL_DTYPE_BOOL, {}), "bool[]");
  const int64_t shape[] = {4};
  tessel_tensor_view view{nullptr, TESSEL_DTYPE_I64, 1, shape, 0};
  EXPECT_EQ(formatTensorType(view), "int64[4]");
}

TEST(FormatTest, Values) {
  float floats[10];
  for (int i = 0; i < 10; ++i)
    floats[i] = float(i) * 0.5f;
  const int64_t ten[] = {10};
  tessel_tensor_view view{floats, TESSEL_DTYPE_F32, 1, ten, sizeof(floats)};
  EXPECT_EQ(formatValues(view, 8), "[0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, ...]");
  EXPECT_EQ(formatValues(view, 10), "[0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]");
  EXPECT_EQ(formatValues(view, 0), "[...]");
  floats[0] = float(kNaN);
  floats[1] = -float(kInf);
  floats[2] = 1.0f / 3.0f;
  EXPECT_EQ(formatValues(view, 3), "[nan, -inf, 0.333333, ...]");

  int64_t big[] = {INT64_MIN, 9007199254740993};
  const int64_t two[] = {2};
  EXPECT_EQ(formatValues({big, TESSEL_DTYPE_I64, 1, two, sizeof(big)}, 8),
            "[-9223372036854775808, 9007199254740993]");
  uint8_t flags[] = {1, 0};
  EXPECT_EQ(formatValues({flags, TESSEL_DTYPE_BOOL, 1, two, 2}, 8),
            "[true, false]");
  uint16_t halves[] = {0x3c00, 0xb800};
  EXPECT_EQ(formatValues({halves, TESSEL_DTYPE_F16, 1, two, 4}, 8),
            "[1, -0.5]");
  int8_t bytes[] = {-7, 100};
  EXPECT_EQ(formatValues({bytes, TESSEL_DTYPE_I8, 1, two, 2}, 8), "[-7, 100]");
  EXPECT_EQ(formatValues({nullptr, TESSEL_DTYPE_I8, 1, two, 2}, 8), "[?]");
}

struct Compared {
  bool ok;
  Comparison result;
  std::string error;
};

Compared compare(std::vector<double> actual, std::vector<double> expected,
                 double rtol = 1e-3, double atol = 1e-5) {
  const int64_t shape[] = {int64_t(actual.size())};
  const int64_t expectedShape[] = {int64_t(expected.size())};
  tessel_tensor_view a{actual.data(), TESSEL_DTYPE_F64, 1, shape,
                       actual.size() * 8};
  tessel_tensor_view e{expected.data(), TESSEL_DTYPE_F64, 1, expectedShape,
                       expected.size() * 8};
  Compared compared;
  compared.ok =
      compareTensors(a, e, rtol, atol, compared.result, compared.error);
  return compared;
}

TEST(CompareTest, AllcloseRule) {
  Compared c = compare({1.0, 2.0, 3.0}, {1.0, 2.0, 3.0});
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_TRUE(c.result.ok());
  EXPECT_EQ(c.result.count, 3);
  EXPECT_EQ(c.result.maxAbsError, 0.0);

  // |a - e| <= atol + rtol * |e|: 100.05 vs 100 is within 1e-3 * 100.
  c = compare({100.05, 0.0}, {100.0, 1e-6});
  EXPECT_TRUE(c.result.ok());
  EXPECT_NEAR(c.result.maxAbsError, 0.05, 1e-12);
  EXPECT_NEAR(c.result.maxRelError, 1.0, 1e-12); // 1e-6 vs 0
  c = compare({100.2, 0.0, 5.0}, {100.0, 1e-4, 5.0});
  EXPECT_EQ(c.result.mismatches, 2);
  EXPECT_FALSE(c.result.ok());
  EXPECT_NEAR(c.result.maxAbsError, 0.2, 1e-9);

  c = compare({1.0}, {1.5}, 0.0, 0.5);
  EXPECT_TRUE(c.result.ok());
  c = compare({1.0}, {1.5}, 0.0, 0.0);
  EXPECT_EQ(c.result.mismatches, 1);
}

TEST(CompareTest, NaNAndInfinity) {
  Compared c = compare({kNaN, 1.0, kInf, -kInf}, {kNaN, 1.0, kInf, -kInf});
  EXPECT_TRUE(c.result.ok());
  EXPECT_EQ(c.result.maxAbsError, 0.0);
  c = compare({kNaN, 1.0}, {1.0, kNaN});
  EXPECT_EQ(c.result.mismatches, 2);
  c = compare({kInf, 1e308}, {-kInf, kInf}, 1.0, 1.0);
  EXPECT_EQ(c.result.mismatches, 2);
  EXPECT_EQ(c.result.maxAbsError, kInf);
}

TEST(CompareTest, IntegersUseTheSameRule) {
  const int64_t shape[] = {3};
  int64_t a[] = {1000, 5, -3};
  int64_t e[] = {1001, 5, -3};
  tessel_tensor_view av{a, TESSEL_DTYPE_I64, 1, shape, sizeof(a)};
  tessel_tensor_view ev{e, TESSEL_DTYPE_I64, 1, shape, sizeof(e)};
  Comparison result;
  std::string error;
  ASSERT_TRUE(compareTensors(av, ev, 0.0, 0.0, result, error)) << error;
  EXPECT_EQ(result.mismatches, 1);
  EXPECT_EQ(result.maxAbsError, 1.0);
  ASSERT_TRUE(compareTensors(av, ev, 1e-3, 1e-5, result, error));
  EXPECT_EQ(result.mismatches, 0); // 1 <= 1e-5 + 1e-3 * 1001
}

TEST(CompareTest, TypesMustMatch) {
  Compared c = compare({1.0, 2.0}, {1.0});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.error, "expected float64[1], got float64[2]");

  const int64_t shape[] = {1};
  float f = 1.0f;
  double d = 1.0;
  Comparison result;
  std::string error;
  EXPECT_FALSE(compareTensors({&f, TESSEL_DTYPE_F32, 1, shape, 4},
                              {&d, TESSEL_DTYPE_F64, 1, shape, 8}, 0, 0, result,
                              error));
  EXPECT_EQ(error, "expected float64[1], got float32[1]");
}

} // namespace
