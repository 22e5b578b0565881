// Runs a compiled model (a one-input, one-output float32 artifact from
// tessel-compile) on an input stored as a .npy file, through the installed
// runtime's C++ API, and prints its outputs. With a third argument, a .npy
// of the expected outputs, it also checks them and exits 1 on a mismatch.
//
//   classify model.so input.npy [expected.npy]

#include "tessel/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// A float32, C-order .npy file (format 1.0-3.0): its shape and values.
struct Array {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

bool readNpy(const std::string &path, Array &out, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open " + path;
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    error = path + " is not a .npy file";
    return false;
  }
  size_t headerLength, headerStart;
  if (bytes[6] == 1) {
    headerLength = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
    headerStart = 10;
  } else {
    if (bytes.size() < 12) {
      error = path + ": truncated header";
      return false;
    }
    headerLength = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8 |
                   uint8_t(bytes[10]) << 16 | size_t(uint8_t(bytes[11])) << 24;
    headerStart = 12;
  }
  if (headerStart + headerLength > bytes.size()) {
    error = path + ": truncated header";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLength);
  if (header.find("'descr': '<f4'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos) {
    error = path + ": only little-endian float32 in C order is read here";
    return false;
  }
  size_t open = header.find("'shape': (");
  size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    error = path + ": no shape in the header";
    return false;
  }
  std::string dims = header.substr(open + 10, close - open - 10);
  int64_t count = 1;
  for (size_t at = 0; at < dims.size();) {
    size_t comma = dims.find(',', at);
    std::string dim = dims.substr(at, comma - at);
    if (dim.find_first_of("0123456789") != std::string::npos) {
      out.shape.push_back(std::stoll(dim));
      count *= out.shape.back();
    }
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != size_t(count) * sizeof(float)) {
    error = path + ": the data does not match the shape";
    return false;
  }
  out.values.resize(count);
  std::memcpy(out.values.data(), bytes.data() + dataStart,
              count * sizeof(float));
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: " << argv[0]
              << " model.so input.npy [expected.npy]\n";
    return 2;
  }
  tessel::Model model;
  if (tessel::Status s = tessel::Model::load(argv[1], model); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  const tessel_tensor_desc *in = model.input(0);
  const tessel_tensor_desc *outDesc = model.output(0);
  if (!in || !outDesc || in->dtype != TESSEL_DTYPE_F32 ||
      outDesc->dtype != TESSEL_DTYPE_F32) {
    std::cerr << "this example runs a model with a float32 input and output\n";
    return 1;
  }
  Array input;
  std::string error;
  if (!readNpy(argv[2], input, error)) {
    std::cerr << error << "\n";
    return 1;
  }
  if (input.shape != std::vector<int64_t>(in->shape, in->shape + in->rank)) {
    std::cerr << argv[2] << " does not have the shape of input '" << in->name
              << "'\n";
    return 1;
  }
  tessel::Session session;
  if (tessel::Status s = tessel::Session::create(model, session, 1); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  tessel::Tensor output;
  if (tessel::Status s = tessel::Tensor::alloc(*outDesc, output); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  tessel_tensor_view inputView{input.values.data(), TESSEL_DTYPE_F32,
                               in->rank, in->shape,
                               input.values.size() * sizeof(float)};
  std::vector<tessel_tensor_view> outputs = {output.view()};
  if (tessel::Status s = session.run({inputView}, outputs); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  const float *result = static_cast<const float *>(output.data());
  size_t count = output.sizeBytes() / sizeof(float);
  std::printf("%s:", outDesc->name);
  for (size_t i = 0; i < count; ++i)
    std::printf(" %.6f", result[i]);
  std::printf("\n");
  if (argc < 4)
    return 0;
  Array expected;
  if (!readNpy(argv[3], expected, error)) {
    std::cerr << error << "\n";
    return 1;
  }
  if (expected.values.size() != count) {
    std::cerr << argv[3] << " has " << expected.values.size()
              << " values; the output has " << count << "\n";
    return 1;
  }
  double worst = 0;
  bool ok = true;
  for (size_t i = 0; i < count; ++i) {
    double diff = std::fabs(double(result[i]) - expected.values[i]);
    worst = std::max(worst, diff);
    ok &= diff <= 1e-5 + 1e-4 * std::fabs(expected.values[i]);
  }
  std::printf("max abs difference from %s: %.3g (%s)\n", argv[3], worst,
              ok ? "match" : "MISMATCH");
  return ok ? 0 : 1;
}
