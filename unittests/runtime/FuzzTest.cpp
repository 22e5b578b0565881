//===- FuzzTest.cpp - The file readers on corrupted input -----------------===//
//
// Mutates valid .npy and TensorProto files at random (with a fixed seed) and
// checks that the readers either fail or return a consistent tensor. Run
// under AddressSanitizer to catch out-of-bounds reads.
//
//===----------------------------------------------------------------------===//

#include "tessel/tensor_io.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace tessel;
using namespace tessel::io;

namespace {

using Parser = bool (*)(const uint8_t *, size_t, HostTensor &, std::string &);

void checkConsistent(const HostTensor &tensor) {
  uint64_t count = 1;
  for (int64_t extent : tensor.shape) {
    ASSERT_GE(extent, 0);
    count *= uint64_t(extent);
  }
  ASSERT_EQ(tensor.bytes.size(), count * tessel_dtype_size(tensor.dtype));
}

void fuzz(Parser parser, const std::vector<uint8_t> &valid, unsigned seed) {
  std::mt19937 random(seed);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::vector<uint8_t> bytes = valid;
    int edits = 1 + int(random() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      size_t at = random() % bytes.size();
      switch (random() % 4) {
      case 0:
        bytes[at] = uint8_t(random());
        break;
      case 1:
        bytes[at] ^= uint8_t(1u << (random() % 8));
        break;
      case 2:
        bytes.resize(at);
        break;
      default:
        bytes.insert(bytes.begin() + long(at), uint8_t(random()));
        break;
      }
    }
    HostTensor tensor;
    std::string error;
    if (parser(bytes.data(), bytes.size(), tensor, error))
      checkConsistent(tensor);
    else
      EXPECT_FALSE(error.empty());
  }
}

TEST(FuzzTest, Npy) {
  const int64_t shape[] = {3, 4};
  std::vector<float> values(12, 1.5f);
  tessel_tensor_view view{values.data(), TESSEL_DTYPE_F32, 2, shape,
                          values.size() * 4};
  std::vector<uint8_t> valid;
  std::string error;
  ASSERT_TRUE(encodeNpy(view, valid, error)) << error;
  fuzz(parseNpy, valid, 1);
}

TEST(FuzzTest, TensorProto) {
  const int64_t shape[] = {2, 5};
  std::vector<int32_t> values(10, 7);
  tessel_tensor_view view{values.data(), TESSEL_DTYPE_I32, 2, shape,
                          values.size() * 4};
  std::vector<uint8_t> valid;
  std::string error;
  ASSERT_TRUE(encodeTensorProto(view, "input", valid, error)) << error;
  fuzz(parseTensorProto, valid, 2);
  // Typed fields too: float_data packed, int64_data as varints.
  const uint8_t typed[] = {0x08, 0x02, 0x08, 0x01, 0x10, 0x07, 0x3a,
                           0x10, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0x01, 0x80, 0x80, 0x80,
                           0x80, 0x80, 0x20, 0x42, 0x01, 0x6c};
  fuzz(parseTensorProto, std::vector<uint8_t>(typed, typed + sizeof(typed)), 3);
}

} // namespace
