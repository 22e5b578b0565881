//===- TensorProtoTest.cpp - Reading ONNX TensorProto files ---------------===//

#include "TestUtil.h"

#include "tessel/tensor_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace tessel;
using namespace tessel::io;
using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

/// Appends protobuf fields, for building test messages by hand.
class Proto {
public:
  Proto &varint(uint32_t field, uint64_t value) {
    tag(field, 0);
    raw(value);
    return *this;
  }
  Proto &fixed32(uint32_t field, uint32_t value) {
    tag(field, 5);
    bytes.append(reinterpret_cast<const char *>(&value), 4);
    return *this;
  }
  Proto &fixed64(uint32_t field, uint64_t value) {
    tag(field, 1);
    bytes.append(reinterpret_cast<const char *>(&value), 8);
    return *this;
  }
  Proto &string(uint32_t field, const std::string &value) {
    tag(field, 2);
    raw(value.size());
    bytes += value;
    return *this;
  }
  Proto &packedVarints(uint32_t field, const std::vector<uint64_t> &values) {
    Proto payload;
    for (uint64_t value : values)
      payload.raw(value);
    return string(field, payload.bytes);
  }
  Proto &tag(uint32_t field, uint32_t wireType) {
    raw((uint64_t(field) << 3) | wireType);
    return *this;
  }
  Proto &raw(uint64_t value) {
    while (value >= 0x80) {
      bytes += char(value | 0x80);
      value >>= 7;
    }
    bytes += char(value);
    return *this;
  }
  std::string bytes;
};

bool parse(const std::string &bytes, HostTensor &out, std::string &error) {
  return parseTensorProto(reinterpret_cast<const uint8_t *>(bytes.data()),
                          bytes.size(), out, error);
}

HostTensor parsed(const std::string &bytes) {
  HostTensor tensor;
  std::string error;
  EXPECT_TRUE(parse(bytes, tensor, error)) << error;
  return tensor;
}

std::string parseError(const std::string &bytes) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(parse(bytes, tensor, error));
  return error;
}

template <typename T> T element(const HostTensor &tensor, size_t index) {
  T value;
  EXPECT_LE((index + 1) * sizeof(T), tensor.bytes.size());
  std::memcpy(&value, tensor.bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

HostTensor readSuiteFile(const std::string &test, const std::string &file) {
  HostTensor tensor;
  std::string path = onnxNodeFile(test, file);
  if (path.empty())
    return tensor;
  std::string error;
  EXPECT_TRUE(readTensorProto(path, tensor, error)) << path << ": " << error;
  return tensor;
}

#define REQUIRE_SUITE(test, file)                                              \
  if (onnxNodeFile(test, file).empty())                                        \
  GTEST_SKIP() << "the ONNX test suite is not installed at "                   \
               << TESSEL_ONNX_NODE_TESTS

TEST(TensorProtoTest, ReadsSuiteFloat32) {
  REQUIRE_SUITE("test_relu", "input_0.pb");
  HostTensor x = readSuiteFile("test_relu", "input_0.pb");
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, TESSEL_DTYPE_F32);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{3, 4, 5}));
  ASSERT_EQ(x.bytes.size(), 60u * 4);
  const float first[] = {1.76405239f, 0.400157213f, 0.97873801f,
                         2.24089313f, 1.867558f,    -0.977277875f};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(element<float>(x, i), first[i]) << i;
  EXPECT_EQ(element<float>(x, 59), -0.362741172f);
  double sum = 0;
  for (size_t i = 0; i < 60; ++i)
    sum += element<float>(x, i);
  EXPECT_NEAR(sum, 4.60003779, 1e-6);

  HostTensor y = readSuiteFile("test_relu", "output_0.pb");
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(element<float>(y, 5), 0.0f);
}

TEST(TensorProtoTest, ReadsSuiteFloat16) {
  REQUIRE_SUITE("test_cast_FLOAT_to_FLOAT16", "output_0.pb");
  HostTensor out = readSuiteFile("test_cast_FLOAT_to_FLOAT16", "output_0.pb");
  EXPECT_EQ(out.name, "output");
  EXPECT_EQ(out.dtype, TESSEL_DTYPE_F16);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{3, 4}));
  const uint16_t bits[] = {0x3864, 0x39b9, 0x38d2, 0x385c, 0x36c7, 0x392b,
                           0x3700, 0x3b22, 0x3bb6, 0x3623, 0x3a55, 0x383b};
  for (size_t i = 0; i < 12; ++i)
    EXPECT_EQ(element<uint16_t>(out, i), bits[i]) << i;
  EXPECT_EQ(elementAsDouble(out.bytes.data(), out.dtype, 0), 0.548828125);
  EXPECT_EQ(elementAsDouble(out.bytes.data(), out.dtype, 6), 0.4375);
}

TEST(TensorProtoTest, ReadsSuiteInt64) {
  REQUIRE_SUITE("test_mod_mixed_sign_int64", "input_0.pb");
  HostTensor x = readSuiteFile("test_mod_mixed_sign_int64", "input_0.pb");
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, TESSEL_DTYPE_I64);
  EXPECT_EQ(x.shape, std::vector<int64_t>{6});
  const int64_t values[] = {-4, 7, 5, 4, -7, 8};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(element<int64_t>(x, i), values[i]) << i;
}

TEST(TensorProtoTest, ReadsSuiteBool) {
  REQUIRE_SUITE("test_and2d", "input_0.pb");
  HostTensor x = readSuiteFile("test_and2d", "input_0.pb");
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, TESSEL_DTYPE_BOOL);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{3, 4}));
  const uint8_t values[] = {1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1};
  EXPECT_EQ(std::vector<uint8_t>(x.bytes.begin(), x.bytes.end()),
            std::vector<uint8_t>(values, values + 12));
}

TEST(TensorProtoTest, ReadsSuiteFloat64) {
  REQUIRE_SUITE("test_cast_FLOAT_to_DOUBLE", "output_0.pb");
  HostTensor out = readSuiteFile("test_cast_FLOAT_to_DOUBLE", "output_0.pb");
  EXPECT_EQ(out.dtype, TESSEL_DTYPE_F64);
  EXPECT_EQ(element<double>(out, 0), 0.5680445432662964);
  EXPECT_EQ(element<double>(out, 3), 0.08712930232286453);
}

TEST(TensorProtoTest, EveryProperPrefixOfASuiteFileFails) {
  REQUIRE_SUITE("test_relu", "input_0.pb");
  std::string bytes = readFile(onnxNodeFile("test_relu", "input_0.pb"));
  HostTensor tensor;
  std::string error;
  for (size_t size = 0; size < bytes.size(); ++size)
    EXPECT_FALSE(parse(bytes.substr(0, size), tensor, error)) << size;
  EXPECT_TRUE(parse(bytes, tensor, error)) << error;
}

// Typed fields, as protobuf itself serializes them: onnx.helper.make_tensor
// without raw=True (dims unpacked, data packed).
TEST(TensorProtoTest, ReadsTypedFieldsAsProtobufWritesThem) {
  HostTensor f = parsed(std::string(
      "\x08\x02\x10\x01\x22\x08\x00\x00\xc0\x3f\x00\x00\x00\xc0\x42\x01\x66",
      17));
  EXPECT_EQ(f.name, "f");
  EXPECT_EQ(f.shape, std::vector<int64_t>{2});
  EXPECT_EQ(element<float>(f, 0), 1.5f);
  EXPECT_EQ(element<float>(f, 1), -2.0f);

  HostTensor i8 = parsed(std::string("\x08\x03\x10\x03\x2a\x0c\xff\xff\xff\xff"
                                     "\xff\xff\xff\xff\xff\x01\x02\x7f\x42\x02"
                                     "\x69\x38",
                                     22));
  EXPECT_EQ(i8.dtype, TESSEL_DTYPE_I8);
  EXPECT_EQ(element<int8_t>(i8, 0), -1);
  EXPECT_EQ(element<int8_t>(i8, 1), 2);
  EXPECT_EQ(element<int8_t>(i8, 2), 127);

  HostTensor h = parsed(std::string(
      "\x08\x02\x10\x0a\x2a\x05\x80\x78\x80\xf0\x02\x42\x01\x68", 14));
  EXPECT_EQ(h.dtype, TESSEL_DTYPE_F16);
  EXPECT_EQ(element<uint16_t>(h, 0), 0x3c00); // 1.0
  EXPECT_EQ(element<uint16_t>(h, 1), 0xb800); // -0.5

  HostTensor l = parsed(std::string("\x08\x02\x08\x01\x10\x07\x3a\x10\xfb\xff"
                                    "\xff\xff\xff\xff\xff\xff\xff\x01\x80\x80"
                                    "\x80\x80\x80\x20\x42\x01\x6c",
                                    27));
  EXPECT_EQ(l.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(element<int64_t>(l, 0), -5);
  EXPECT_EQ(element<int64_t>(l, 1), int64_t(1) << 40);

  HostTensor d = parsed(std::string(
      "\x08\x01\x10\x0b\x42\x01\x64\x52\x08\x9a\x99\x99\x99\x99\x99\xb9\x3f",
      17));
  EXPECT_EQ(element<double>(d, 0), 0.1);

  HostTensor u = parsed(std::string(
      "\x08\x02\x10\x0c\x42\x01\x75\x5a\x06\x80\xd0\xac\xf3\x0e\x01", 15));
  EXPECT_EQ(u.dtype, TESSEL_DTYPE_U32);
  EXPECT_EQ(element<uint32_t>(u, 0), 4000000000u);
  EXPECT_EQ(element<uint32_t>(u, 1), 1u);

  HostTensor b = parsed(
      std::string("\x08\x03\x10\x09\x2a\x03\x01\x00\x01\x42\x01\x62", 12));
  EXPECT_EQ(b.dtype, TESSEL_DTYPE_BOOL);
  EXPECT_EQ(std::vector<uint8_t>(b.bytes.begin(), b.bytes.end()),
            (std::vector<uint8_t>{1, 0, 1}));
}

TEST(TensorProtoTest, ReadsUnpackedValuesAndSkipsUnknownFields) {
  Proto proto;
  proto.packedVarints(1, {2})
      .varint(2, TESSEL_DTYPE_F32)
      .string(12, "a doc string")
      .fixed32(4, 0x3f800000) // 1.0f, unpacked
      .varint(99, 12345)      // unknown fields of every wire type
      .fixed64(98, 0)
      .fixed32(97, 0)
      .string(96, "unknown")
      .fixed32(4, 0x40000000) // 2.0f
      .varint(14, 0)          // data_location DEFAULT
      .string(8, "first")
      .string(8, "name"); // the last value of a singular field wins
  HostTensor tensor = parsed(proto.bytes);
  EXPECT_EQ(tensor.name, "name");
  EXPECT_EQ(tensor.shape, std::vector<int64_t>{2});
  EXPECT_EQ(element<float>(tensor, 0), 1.0f);
  EXPECT_EQ(element<float>(tensor, 1), 2.0f);

  Proto ints;
  ints.varint(1, 3)
      .varint(2, TESSEL_DTYPE_U16)
      .varint(5, 65535)
      .varint(5, 0)
      .varint(5, 7);
  HostTensor u16 = parsed(ints.bytes);
  EXPECT_EQ(element<uint16_t>(u16, 0), 65535);
  EXPECT_EQ(element<uint16_t>(u16, 2), 7);

  Proto doubles;
  doubles.varint(2, TESSEL_DTYPE_F64).fixed64(10, 0x4000000000000000ull);
  HostTensor scalar = parsed(doubles.bytes);
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(element<double>(scalar, 0), 2.0);

  Proto empty;
  empty.varint(1, 0).varint(2, TESSEL_DTYPE_F32);
  EXPECT_TRUE(parsed(empty.bytes).bytes.empty());
}

TEST(TensorProtoTest, RejectsWhatTesselCannotRepresent) {
  Proto segment;
  segment.varint(2, 1).string(3, "");
  EXPECT_EQ(parseError(segment.bytes),
            "segmented tensors (field 'segment') are not supported");
  Proto strings;
  strings.varint(2, 8).string(6, "hello");
  EXPECT_EQ(parseError(strings.bytes), "string tensors are not supported");
  Proto stringType;
  stringType.varint(2, 8);
  EXPECT_EQ(parseError(stringType.bytes), "unsupported data_type 8 (string)");
  Proto complex;
  complex.varint(2, 14);
  EXPECT_EQ(parseError(complex.bytes), "unsupported data_type 14 (complex64)");
  Proto unknownType;
  unknownType.varint(2, 1u << 31);
  EXPECT_EQ(parseError(unknownType.bytes), "unsupported data_type 2147483648");
  Proto external;
  external.varint(2, 1).string(13, "");
  EXPECT_EQ(parseError(external.bytes),
            "tensors with external data are not supported");
  Proto location;
  location.varint(2, 1).varint(14, 1);
  EXPECT_EQ(parseError(location.bytes),
            "tensors with external data are not supported");
  EXPECT_EQ(parseError(""), "the TensorProto has no data_type");
}

TEST(TensorProtoTest, RejectsShapesWhoseCountWrapsToZero) {
  // Found by tessel-fuzz-tensor-proto: 16^16 elements is 2^64, which wraps
  // to 0 in 64 bits; with no data, the tensor read as empty.
  Proto wraps;
  for (int i = 0; i < 16; ++i)
    wraps.varint(1, 16);
  wraps.varint(2, TESSEL_DTYPE_BF16);
  EXPECT_EQ(parseError(wraps.bytes),
            "shape [16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16] is too "
            "large");
}

TEST(TensorProtoTest, RejectsInconsistentData) {
  Proto rawSize;
  rawSize.varint(1, 2).varint(2, TESSEL_DTYPE_F32).string(9, "abc");
  EXPECT_EQ(parseError(rawSize.bytes),
            "raw_data has 3 bytes, but float32[2] needs 8");
  Proto count;
  count.varint(1, 3).varint(2, TESSEL_DTYPE_I64).packedVarints(7, {1, 2});
  EXPECT_EQ(parseError(count.bytes),
            "int64_data has 2 values, but int64[3] needs 3");
  Proto none;
  none.varint(1, 2).varint(2, TESSEL_DTYPE_F32);
  EXPECT_EQ(parseError(none.bytes),
            "float_data has 0 values, but float32[2] needs 2");
  Proto wrongField;
  wrongField.varint(1, 1).varint(2, TESSEL_DTYPE_I64).fixed32(4, 0);
  EXPECT_EQ(parseError(wrongField.bytes),
            "float_data holds values, but a int64 tensor keeps them in "
            "int64_data");
  Proto both;
  both.varint(1, 1)
      .varint(2, TESSEL_DTYPE_F32)
      .fixed32(4, 0)
      .string(9, std::string(4, '\0'));
  EXPECT_EQ(parseError(both.bytes), "both raw_data and float_data hold values");
  Proto range;
  range.varint(1, 1).varint(2, TESSEL_DTYPE_U8).varint(5, 300);
  EXPECT_EQ(parseError(range.bytes),
            "value 300 at index 0 is out of range for uint8");
  Proto negative;
  negative.varint(1, 1).varint(2, TESSEL_DTYPE_U16).varint(5, uint64_t(-1));
  EXPECT_EQ(parseError(negative.bytes),
            "value -1 at index 0 is out of range for uint16");
  Proto u32;
  u32.varint(1, 1).varint(2, TESSEL_DTYPE_U32).varint(11, 1ull << 32);
  EXPECT_EQ(parseError(u32.bytes),
            "value 4294967296 at index 0 is out of range for uint32");
  Proto boolValue;
  boolValue.varint(1, 1).varint(2, TESSEL_DTYPE_BOOL).string(9, "\x02");
  EXPECT_EQ(parseError(boolValue.bytes), "bool element 0 is 2, not 0 or 1");
}

TEST(TensorProtoTest, RejectsMalformedProtobuf) {
  Proto negativeDim;
  negativeDim.varint(1, uint64_t(-4)).varint(2, 1);
  EXPECT_EQ(parseError(negativeDim.bytes), "negative extent -4 in dims");
  Proto huge;
  huge.varint(1, uint64_t(INT64_MAX))
      .varint(1, uint64_t(INT64_MAX))
      .varint(2, 1);
  EXPECT_EQ(parseError(huge.bytes),
            "shape [9223372036854775807,9223372036854775807] is too large");
  Proto bigButAbsent;
  bigButAbsent.varint(1, 1ull << 40).varint(2, 1).string(9, "abcd");
  EXPECT_EQ(parseError(bigButAbsent.bytes),
            "raw_data has 4 bytes, but float32[1099511627776] needs "
            "4398046511104");
  Proto manyDims;
  for (int i = 0; i < 65; ++i)
    manyDims.varint(1, 1);
  EXPECT_EQ(parseError(manyDims.bytes), "more than 64 dims");

  EXPECT_EQ(parseError("\x08"), "truncated or malformed protobuf in field 1");
  EXPECT_EQ(parseError("\x4a\x05\x01"),
            "truncated or malformed protobuf in field 9");
  EXPECT_EQ(parseError(std::string("\x00\x01", 2)),
            "truncated or malformed protobuf (bad field key)");
  EXPECT_EQ(parseError("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"),
            "truncated or malformed protobuf in field 1");
  EXPECT_EQ(parseError("\x0b"), "dims has wire type 3, expected 0 or 2");
  Proto group;
  group.tag(50, 3);
  EXPECT_EQ(parseError(group.bytes),
            "field 50 uses the unsupported group wire type");
  Proto wireType;
  wireType.fixed32(2, 1);
  EXPECT_EQ(parseError(wireType.bytes),
            "data_type has wire type 5, expected 0");
  Proto dimsWire;
  dimsWire.fixed64(1, 1);
  EXPECT_EQ(parseError(dimsWire.bytes),
            "dims has wire type 1, expected 0 or 2");
  Proto packedFloats;
  packedFloats.varint(2, 1).string(4, "abc");
  EXPECT_EQ(parseError(packedFloats.bytes),
            "packed float_data has 3 bytes, not a multiple of 4");
  Proto badPacked;
  badPacked.varint(2, 7).string(7, "\xff");
  EXPECT_EQ(parseError(badPacked.bytes), "malformed packed int64_data");
}

TEST(TensorProtoTest, EncodeRoundTrips) {
  const int64_t shape[] = {2, 2};
  float values[] = {1.0f, -2.5f, 3.25f, NAN};
  tessel_tensor_view view{values, TESSEL_DTYPE_F32, 2, shape, sizeof(values)};
  std::vector<uint8_t> encoded;
  std::string error;
  ASSERT_TRUE(encodeTensorProto(view, "/fc1/out", encoded, error)) << error;
  HostTensor tensor;
  ASSERT_TRUE(parseTensorProto(encoded.data(), encoded.size(), tensor, error))
      << error;
  EXPECT_EQ(tensor.name, "/fc1/out");
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(element<float>(tensor, 2), 3.25f);
  EXPECT_TRUE(std::isnan(element<float>(tensor, 3)));

  TempDir dir;
  uint16_t bf16[] = {0x3f80, 0xc000};
  const int64_t two[] = {2};
  tessel_tensor_view bview{bf16, TESSEL_DTYPE_BF16, 1, two, sizeof(bf16)};
  ASSERT_TRUE(writeTensorProto(dir.path("b.pb"), bview, "b", error)) << error;
  ASSERT_TRUE(readTensorFile(dir.path("b.pb"), tensor, error)) << error;
  EXPECT_EQ(tensor.dtype, TESSEL_DTYPE_BF16);
  EXPECT_EQ(elementAsDouble(tensor.bytes.data(), tensor.dtype, 1), -2.0);
}

TEST(TensorProtoTest, ReadTensorFileNamesBothFormatsOnGarbage) {
  TempDir dir;
  writeFile(dir.path("garbage.pb"), "hello, world");
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(readTensorFile(dir.path("garbage.pb"), tensor, error));
  EXPECT_THAT(error,
              HasSubstr("not a .npy file, and not an ONNX TensorProto: "));
  EXPECT_FALSE(readTensorFile(dir.path(""), tensor, error));
  EXPECT_EQ(error, "cannot open file: it is a directory");
}

} // namespace
