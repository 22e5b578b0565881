//===- ArtifactFuzzer.cpp - libFuzzer harness for the artifact checks -----===//
//
// The runtime checks a file before it lets the dynamic loader near it (ELF
// header, seal, checksum, segments: checkArtifactImage), and the descriptor
// the artifact returns before it trusts it (validateDescriptor). The first
// input byte picks what the rest is:
//   0: a file image, checked as it is;
//   1: an image sealed here first, so that mutations reach the checks
//      behind the checksum (the segments);
//   2: the fields of a descriptor, validated.
// Each check must return a status (with a message when it refuses) and must
// never read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "core/model.h"
#include "core/shape.h"
#include "tessel/seal.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

using namespace tessel::runtime;

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "fuzz contract violated: %s\n", what);
  std::abort();
}

/// A refusal must say why; success is a null status.
void checkStatus(tessel_status status) {
  if (!status)
    return;
  const char *message = tessel_status_get_message(status);
  if (!message || !*message)
    fail("a refusal without a message");
  tessel_status_free(status);
}

int32_t dummyEntry(const tessel_runtime_services *, void *const *,
                   void *const *, void *) {
  return 0;
}

/// Owns every string and array a fuzzed descriptor points into.
struct DescriptorStorage {
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::vector<tessel_tensor_desc>> tensors;
  std::vector<const void *> inputValues;
  int64_t value = 0;
  const void *weightsBase = nullptr;

  const char *string(FuzzedDataProvider &in) {
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0)
      return nullptr;
    strings.push_back(in.ConsumeRandomLengthString(64));
    return strings.back().c_str();
  }

  /// A tensor table of `count` entries, or NULL.
  const tessel_tensor_desc *table(FuzzedDataProvider &in, uint32_t &count) {
    count = in.ConsumeIntegralInRange<uint32_t>(0, 5);
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
      // A count with no table, or a count past the limit: both refused
      // before any entry is read.
      count = in.ConsumeBool() ? count : in.ConsumeIntegral<uint32_t>();
      return nullptr;
    }
    tensors.emplace_back();
    for (uint32_t i = 0; i < count; ++i) {
      tessel_tensor_desc tensor{};
      tensor.name = string(in);
      tensor.dtype = in.ConsumeIntegralInRange<int32_t>(-1, 20);
      // The rank is trusted to size `shape`, as a pointer cannot be checked;
      // ranks past the limit are refused before `shape` is read.
      tensor.rank = in.ConsumeBool() ? in.ConsumeIntegralInRange<int32_t>(0, 8)
                                     : in.ConsumeIntegral<int32_t>();
      if (tensor.rank >= 0 && tensor.rank <= kMaxRank && in.ConsumeBool()) {
        shapes.emplace_back();
        for (int32_t d = 0; d < tensor.rank; ++d)
          shapes.back().push_back(in.ConsumeBool()
                                      ? in.ConsumeIntegralInRange<int64_t>(0, 9)
                                      : in.ConsumeIntegral<int64_t>());
        tensor.shape = shapes.back().data();
      }
      tensors.back().push_back(tensor);
    }
    return tensors.back().data();
  }
};

void fuzzDescriptor(FuzzedDataProvider &in) {
  DescriptorStorage storage;
  tessel_model_desc desc{};
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
  case 0:
    desc.struct_size = sizeof(tessel_model_desc);
    break;
  case 1:
    desc.struct_size = offsetof(tessel_model_desc, weights_size) + 8;
    break;
  default:
    desc.struct_size =
        in.ConsumeIntegralInRange<uint32_t>(0, sizeof(tessel_model_desc));
    break;
  }
  desc.abi_major =
      in.ConsumeBool() ? TESSEL_ABI_MAJOR : in.ConsumeIntegral<uint16_t>();
  desc.abi_minor = in.ConsumeIntegral<uint16_t>();
  desc.model_name = storage.string(in);
  desc.compiler_version = storage.string(in);
  desc.compile_flags = storage.string(in);
  desc.target = in.ConsumeBool() ? "cpu" : storage.string(in);
  desc.target_cpu = storage.string(in);
  desc.target_features = storage.string(in);
  desc.inputs = storage.table(in, desc.num_inputs);
  desc.outputs = storage.table(in, desc.num_outputs);
  desc.entry_name = storage.string(in);
  desc.entry = in.ConsumeIntegralInRange<int>(0, 7) ? dummyEntry : nullptr;
  desc.workspace_size = in.ConsumeBool()
                            ? in.ConsumeIntegralInRange<uint64_t>(0, 4096)
                            : in.ConsumeIntegral<uint64_t>();
  desc.workspace_alignment =
      in.ConsumeBool() ? uint64_t(64) : in.ConsumeIntegral<uint64_t>();
  desc.weights_size = in.ConsumeIntegral<uint64_t>();
  // input_values holds one pointer per input, or is NULL.
  if (desc.inputs && in.ConsumeBool()) {
    for (uint32_t i = 0; i < desc.num_inputs; ++i)
      storage.inputValues.push_back(in.ConsumeBool() ? &storage.value
                                                     : nullptr);
    desc.input_values = storage.inputValues.data();
  }

  // ABI 1.3's weights file: a name (perhaps with a '/', or empty) and where
  // its address goes.
  if (in.ConsumeBool()) {
    desc.weights_file = storage.string(in);
    desc.weights_base = in.ConsumeBool() ? &storage.weightsBase : nullptr;
    desc.weights_file_size = in.ConsumeIntegral<uint64_t>();
  }

  tessel_status status = validateDescriptor(&desc, "fuzz.so");
  if (status) {
    checkStatus(status);
    return;
  }
  for (uint32_t i = 0; i <= desc.num_inputs; ++i)
    (void)fixedInputValue(&desc, i);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const uint8_t *rest = data + 1;
  size_t restSize = size - 1;
  switch (data[0] % 3) {
  case 0: {
    // An exact-size heap copy: ASan flags any read past the end.
    std::vector<unsigned char> image(rest, rest + restSize);
    checkStatus(checkArtifactImage(image.data(), image.size(), "fuzz.so"));
    break;
  }
  case 1: {
    std::vector<unsigned char> image(rest, rest + restSize);
    image.resize(restSize + TESSEL_SEAL_SIZE);
    tessel_seal_make(image.data(), restSize, image.data() + restSize);
    checkStatus(checkArtifactImage(image.data(), image.size(), "fuzz.so"));
    break;
  }
  default: {
    FuzzedDataProvider in(rest, restSize);
    fuzzDescriptor(in);
    break;
  }
  }
  return 0;
}
