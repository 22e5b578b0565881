//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//

#include "TestUtil.h"

#include "tessel/tensor_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::io;
using namespace tessel::test;
using ::testing::HasSubstr;

namespace {

/// Builds .npy 1.0 content around a header dict, padded as NumPy pads it.
std::string npyFile(const std::string &dict, const std::string &data) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string file = "\x93NUMPY\x01";
  file += '\0';
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  return file + header + data;
}

bool parse(const std::string &bytes, HostTensor &out, std::string &error) {
  return parseNpy(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
                  out, error);
}

std::string parseError(const std::string &bytes) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(parse(bytes, tensor, error));
  return error;
}

HostTensor patterned(int32_t dtype, std::vector<int64_t> shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.resize(size_t(tensor.numElements()) * tessel_dtype_size(dtype));
  for (size_t i = 0; i < tensor.bytes.size(); ++i)
    tensor.bytes[i] =
        dtype == TESSEL_DTYPE_BOOL ? uint8_t(i % 3 == 0) : uint8_t(i * 37 + 11);
  return tensor;
}

TEST(NpyTest, RoundTripsEveryType) {
  for (int32_t dtype :
       {TESSEL_DTYPE_F32, TESSEL_DTYPE_F64, TESSEL_DTYPE_F16, TESSEL_DTYPE_I8,
        TESSEL_DTYPE_I16, TESSEL_DTYPE_I32, TESSEL_DTYPE_I64, TESSEL_DTYPE_U8,
        TESSEL_DTYPE_U16, TESSEL_DTYPE_U32, TESSEL_DTYPE_U64,
        TESSEL_DTYPE_BOOL}) {
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{
             {2, 3}, {}, {5}, {2, 0, 3}, {1, 2, 1, 3}}) {
      HostTensor original = patterned(dtype, shape);
      std::vector<uint8_t> encoded;
      std::string error;
      ASSERT_TRUE(encodeNpy(original.view(), encoded, error)) << error;
      EXPECT_EQ((encoded.size() - original.bytes.size()) % 64, 0u);
      HostTensor decoded;
      ASSERT_TRUE(parseNpy(encoded.data(), encoded.size(), decoded, error))
          << tessel_dtype_name(dtype) << ": " << error;
      EXPECT_EQ(decoded.dtype, dtype);
      EXPECT_EQ(decoded.shape, shape);
      EXPECT_EQ(decoded.bytes, original.bytes) << tessel_dtype_name(dtype);
      EXPECT_TRUE(decoded.name.empty());
    }
  }
}

TEST(NpyTest, WritesWhatNumPyWrites) {
  // np.save(f, np.arange(6, dtype='<i2').reshape(2, 3)): 140 bytes.
  HostTensor tensor;
  tensor.dtype = TESSEL_DTYPE_I16;
  tensor.shape = {2, 3};
  for (int16_t i = 0; i < 6; ++i) {
    tensor.bytes.push_back(uint8_t(i));
    tensor.bytes.push_back(0);
  }
  std::vector<uint8_t> encoded;
  std::string error;
  ASSERT_TRUE(encodeNpy(tensor.view(), encoded, error)) << error;
  ASSERT_EQ(encoded.size(), 140u);
  std::string text(encoded.begin(), encoded.end());
  EXPECT_EQ(text.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(text.substr(10, 59),
            "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(text[127], '\n');
  EXPECT_EQ(text.substr(128, 4), std::string("\x00\x00\x01\x00", 4));

  // One dimension prints as (n,), none as ().
  HostTensor vector = patterned(TESSEL_DTYPE_U8, {4});
  ASSERT_TRUE(encodeNpy(vector.view(), encoded, error));
  EXPECT_THAT(
      std::string(encoded.begin(), encoded.end()),
      HasSubstr("'descr': '|u1', 'fortran_order': False, 'shape': (4,)"));
  HostTensor scalar = patterned(TESSEL_DTYPE_BOOL, {});
  ASSERT_TRUE(encodeNpy(scalar.view(), encoded, error));
  EXPECT_THAT(std::string(encoded.begin(), encoded.end()),
              HasSubstr("'descr': '|b1', 'fortran_order': False, 'shape': ()"));
}

TEST(NpyTest, ReadsNumPyFormat2) {
  // np.lib.format.write_array(f, np.array([1.5, -2], '<f4'), version=(2, 0))
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(2,), }";
  header.append(115 - header.size(), ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x02\x00\x74\x00\x00\x00", 12) +
                     header +
                     std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8);
  ASSERT_EQ(file.size(), 136u);
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(parse(file, tensor, error)) << error;
  EXPECT_EQ(tensor.dtype, TESSEL_DTYPE_F32);
  EXPECT_EQ(tensor.shape, std::vector<int64_t>{2});
  EXPECT_EQ(elementAsDouble(tensor.bytes.data(), tensor.dtype, 0), 1.5);
  EXPECT_EQ(elementAsDouble(tensor.bytes.data(), tensor.dtype, 1), -2.0);
}

TEST(NpyTest, AcceptsHeaderVariants) {
  HostTensor tensor;
  std::string error;
  // Key order, double quotes, no trailing comma, Python 2 longs, native order.
  ASSERT_TRUE(parse(npyFile("{\"shape\": (1L, 2L), 'fortran_order': False, "
                            "'descr': '=i4'}",
                            std::string(8, '\x01')),
                    tensor, error))
      << error;
  EXPECT_EQ(tensor.dtype, TESSEL_DTYPE_I32);
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{1, 2}));
  // Single-byte types may carry any byte order mark.
  ASSERT_TRUE(parse(npyFile("{'descr': '>i1', 'fortran_order': False, "
                            "'shape': (1,), }",
                            "\xff"),
                    tensor, error))
      << error;
  EXPECT_EQ(tensor.dtype, TESSEL_DTYPE_I8);
}

TEST(NpyTest, WritesAndReadsFiles) {
  TempDir dir;
  HostTensor original = patterned(TESSEL_DTYPE_F32, {3, 2});
  std::string error;
  ASSERT_TRUE(writeNpy(dir.path("t.npy"), original, error)) << error;
  HostTensor read;
  ASSERT_TRUE(readNpy(dir.path("t.npy"), read, error)) << error;
  EXPECT_EQ(read.bytes, original.bytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(read.bytes.data()) % 64, 0u);
  ASSERT_TRUE(readTensorFile(dir.path("t.npy"), read, error)) << error;
  EXPECT_EQ(read.shape, original.shape);

  EXPECT_FALSE(readNpy(dir.path("missing.npy"), read, error));
  EXPECT_EQ(error, "cannot open file: No such file or directory");
  EXPECT_FALSE(writeNpy(dir.path("no/such/dir/t.npy"), original, error));
  EXPECT_THAT(error, HasSubstr("cannot create file"));
}

TEST(NpyTest, RejectsBfloat16AndBadViews) {
  HostTensor tensor = patterned(TESSEL_DTYPE_BF16, {2});
  std::vector<uint8_t> encoded;
  std::string error;
  EXPECT_FALSE(encodeNpy(tensor.view(), encoded, error));
  EXPECT_EQ(error, "bfloat16 has no .npy type");

  HostTensor floats = patterned(TESSEL_DTYPE_F32, {2});
  tessel_tensor_view view = floats.view();
  view.size_bytes = 4;
  EXPECT_FALSE(encodeNpy(view, encoded, error));
  EXPECT_EQ(error, "size_bytes is 4, but float32[2] holds 8");
}

TEST(NpyTest, RejectsUnsupportedLayoutsAndTypes) {
  std::string data(24, '\0');
  EXPECT_THAT(parseError(npyFile("{'descr': '<f4', 'fortran_order': True, "
                                 "'shape': (2, 3), }",
                                 data)),
              HasSubstr("fortran_order=True (column-major) data is not "
                        "supported"));
  EXPECT_THAT(parseError(npyFile("{'descr': '>f4', 'fortran_order': False, "
                                 "'shape': (2, 3), }",
                                 data)),
              HasSubstr("big-endian data ('>f4') is not supported"));
  EXPECT_EQ(parseError(npyFile("{'descr': '<c8', 'fortran_order': False, "
                               "'shape': (3,), }",
                               data)),
            "unsupported dtype '<c8'");
  EXPECT_EQ(parseError(npyFile("{'descr': '|O', 'fortran_order': False, "
                               "'shape': (3,), }",
                               data)),
            "unsupported dtype '|O'");
  EXPECT_EQ(parseError(npyFile("{'descr': [('a', '<f4')], 'fortran_order': "
                               "False, 'shape': (6,), }",
                               data)),
            "bad .npy header: structured arrays are not supported");
}

TEST(NpyTest, RejectsMalformedFiles) {
  std::string valid =
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              std::string(24, '\x01'));
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(parse(valid, tensor, error)) << error;

  // Every proper prefix fails cleanly.
  for (size_t size = 0; size < valid.size(); ++size)
    EXPECT_FALSE(parse(valid.substr(0, size), tensor, error)) << size;
  EXPECT_EQ(parseError(valid.substr(0, valid.size() - 1)),
            "truncated .npy file: float32[2,3] needs 24 data bytes, the file "
            "has 23");
  EXPECT_EQ(parseError(valid + "x"),
            "corrupt .npy file: float32[2,3] needs 24 data bytes, the file "
            "has 25");
  EXPECT_EQ(parseError("NUMPY"), "not a .npy file (no \\x93NUMPY magic)");

  std::string badVersion = valid;
  badVersion[6] = 4;
  EXPECT_EQ(parseError(badVersion), "unsupported .npy format version 4.0");
  std::string longHeader = valid;
  longHeader[8] = '\xff';
  longHeader[9] = '\xff';
  EXPECT_THAT(parseError(longHeader),
              HasSubstr("truncated .npy file: the header claims 65535 bytes"));

  auto headerError = [](const std::string &dict) {
    return parseError(npyFile(dict, ""));
  };
  EXPECT_EQ(headerError("[1, 2]"), "bad .npy header: the header is not a dict");
  EXPECT_EQ(headerError("{'descr': '<f4', 'shape': (0,), }"),
            "bad .npy header: the header lacks 'descr', 'fortran_order' or "
            "'shape'");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(-1,), }"),
            "bad .npy header: 'shape' holds something other than a "
            "non-negative integer that fits in int64");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': 0, 'shape': (), }"),
            "bad .npy header: 'fortran_order' is neither True nor False");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(1, 2, 'x'), }"),
            "bad .npy header: 'shape' holds something other than a "
            "non-negative integer that fits in int64");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, 3), 'extra': 1}"),
            "bad .npy header: unexpected key 'extra' in the header");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(2, 3)} trailing"),
            "bad .npy header: unexpected text after the header dict");
  EXPECT_EQ(headerError("{'descr: '<f4'"),
            "bad .npy header: expected ':' after 'descr: ' in the header");
  EXPECT_EQ(headerError("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(99999999999999999999,)}"),
            "bad .npy header: 'shape' holds something other than a "
            "non-negative integer that fits in int64");
}

TEST(NpyTest, HugeShapesFailWithoutAllocating) {
  EXPECT_EQ(parseError(npyFile("{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (9223372036854775807, "
                               "9223372036854775807), }",
                               "")),
            "shape [9223372036854775807,9223372036854775807] is too large");
  // Plausible but absent: the size check comes before any allocation.
  EXPECT_EQ(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1099511627776,), }",
                               "abcd")),
            "truncated .npy file: float32[1099511627776] needs 4398046511104 "
            "data bytes, the file has 4");
  std::string manyDims = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i)
    manyDims += "1, ";
  manyDims += "), }";
  EXPECT_EQ(parseError(npyFile(manyDims, "abcd")),
            "bad .npy header: 'shape' has more than 64 dimensions");
}

TEST(NpyTest, ZeroExtentMakesAnyShapeEmpty) {
  // Found by tessel-fuzz-npy: the other extents' product overflows, but a
  // zero extent makes the tensor empty, with no data, and it writes back.
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(parse(npyFile("{'descr': '<u4', 'fortran_order': False, "
                            "'shape': (1, 2444444444444444, 4443, 4444444, "
                            "4443, 0), }",
                            ""),
                    tensor, error))
      << error;
  EXPECT_EQ(tensor.numElements(), 0);
  EXPECT_TRUE(tensor.bytes.empty());
  std::vector<uint8_t> encoded;
  ASSERT_TRUE(encodeNpy(tensor.view(), encoded, error)) << error;
  HostTensor again;
  ASSERT_TRUE(parseNpy(encoded.data(), encoded.size(), again, error)) << error;
  EXPECT_EQ(again.shape, tensor.shape);
}

TEST(NpyTest, BoolElementsMustBeZeroOrOne) {
  EXPECT_EQ(parseError(npyFile("{'descr': '|b1', 'fortran_order': False, "
                               "'shape': (3,), }",
                               std::string("\x01\x00\x02", 3))),
            "bool element 2 is 2, not 0 or 1");
}

} // namespace
