//===- TensorProtoFuzzer.cpp - libFuzzer harness for the .pb reader -------===//
//
// Parses arbitrary bytes as a serialized ONNX TensorProto, with the same
// contract as the .npy harness: a refusal with a message, or a consistent
// tensor that survives a write and a second read unchanged.
//
//===----------------------------------------------------------------------===//

#include "TensorFuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tessel::fuzz::checkReader(data, size, tessel::io::parseTensorProto,
                            [](const tessel::io::HostTensor &tensor,
                               std::vector<uint8_t> &out, std::string &error) {
                              return tessel::io::encodeTensorProto(
                                  tensor.view(), "fuzz", out, error);
                            });
  return 0;
}
