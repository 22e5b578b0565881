//===- NpyFuzzer.cpp - libFuzzer harness for the .npy reader
//---------------===//
//
// Parses arbitrary bytes as a .npy file. The reader must either refuse them
// with a message or return a tensor whose byte count is its shape's element
// count times its element size; then writing it back and reading that again
// must give the same tensor.
//
//===----------------------------------------------------------------------===//

#include "TensorFuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tessel::fuzz::checkReader(data, size, tessel::io::parseNpy,
                            [](const tessel::io::HostTensor &tensor,
                               std::vector<uint8_t> &out, std::string &error) {
                              return tessel::io::encodeNpy(tensor.view(), out,
                                                           error);
                            });
  return 0;
}
