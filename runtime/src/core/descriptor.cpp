//===- descriptor.cpp - Validating an artifact's descriptor ---------------===//
//
// A descriptor comes from a file the runtime did not write, so each field is
// checked before anything relies on it. Pointers cannot be checked beyond
// being non-NULL.
//
//===----------------------------------------------------------------------===//

#include "cpu_features.h"
#include "model.h"
#include "shape.h"
#include "status.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace tessel::runtime {

namespace {

/// The size of an ABI 1.0 descriptor: every field up to `weights_size`.
constexpr size_t kDescSizeV1_0 =
    offsetof(tessel_model_desc, weights_size) + sizeof(uint64_t);

/// The size of an ABI 1.1 descriptor: every field up to `input_values`.
constexpr size_t kDescSizeV1_1 =
    offsetof(tessel_model_desc, input_values) + sizeof(const void *);

/// The size of an ABI 1.2 descriptor: every field up to `flags`.
constexpr size_t kDescSizeV1_2 =
    offsetof(tessel_model_desc, flags) + sizeof(uint32_t);

/// The size of an ABI 1.3 descriptor: every field up to `weights_base`.
constexpr size_t kDescSizeV1_3 =
    offsetof(tessel_model_desc, weights_base) + sizeof(void *);

/// More tensors than this means the descriptor is garbage.
constexpr uint32_t kMaxTensors = 1u << 16;

/// The largest workspace alignment accepted (2 MiB, a huge page).
constexpr uint64_t kMaxWorkspaceAlignment = uint64_t(1) << 21;

tessel_status invalid(const std::string &path, const std::string &what) {
  return makeStatus(TESSEL_INVALID_ARTIFACT,
                    "'" + path + "' has an invalid descriptor: " + what);
}

tessel_status validateTensors(const tessel_tensor_desc *tensors, uint32_t count,
                              const char *kind, const std::string &path) {
  if (count > kMaxTensors)
    return invalid(path, std::to_string(count) + " " + kind + "s (at most " +
                             std::to_string(kMaxTensors) + ")");
  if (count > 0 && !tensors)
    return invalid(path, std::to_string(count) + " " + kind + "s but no " +
                             kind + " table");
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    const tessel_tensor_desc &tensor = tensors[i];
    std::string which = std::string(kind) + " " + std::to_string(i);
    if (!tensor.name || !*tensor.name)
      return invalid(path, which + " has no name");
    which += " '" + std::string(tensor.name) + "'";
    if (!names.insert(tensor.name).second)
      return invalid(path, which + " appears twice");
    std::string error = shapeError(tensor.dtype, tensor.rank, tensor.shape);
    if (!error.empty())
      return invalid(path, which + ": " + error);
  }
  return nullptr;
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

} // namespace

const void *fixedInputValue(const tessel_model_desc *desc, uint32_t index) {
  if (desc->struct_size < kDescSizeV1_1 || !desc->input_values ||
      index >= desc->num_inputs)
    return nullptr;
  return desc->input_values[index];
}

uint32_t modelFlags(const tessel_model_desc *desc) {
  return desc->struct_size < kDescSizeV1_2 ? 0 : desc->flags;
}

const char *weightsFileName(const tessel_model_desc *desc) {
  return desc->struct_size < kDescSizeV1_3 ? nullptr : desc->weights_file;
}

tessel_status validateDescriptor(const tessel_model_desc *desc,
                                 const std::string &path) {
  if (!desc)
    return invalid(path, TESSEL_MODEL_SYMBOL "() returned NULL");
  if (desc->struct_size < kDescSizeV1_0)
    return invalid(path, "struct_size " + std::to_string(desc->struct_size) +
                             " is smaller than ABI 1.0's " +
                             std::to_string(kDescSizeV1_0));
  if (desc->abi_major != TESSEL_ABI_MAJOR)
    return makeStatus(
        TESSEL_INCOMPATIBLE,
        "'" + path + "' was built for artifact ABI " +
            std::to_string(desc->abi_major) + "." +
            std::to_string(desc->abi_minor) + ", but this runtime reads ABI " +
            std::to_string(TESSEL_ABI_MAJOR) + "." +
            std::to_string(TESSEL_ABI_MINOR) + " (the major must match)");
  if (desc->target && std::strcmp(desc->target, "cpu") != 0)
    return makeStatus(TESSEL_INCOMPATIBLE,
                      "'" + path + "' targets '" + desc->target +
                          "'; this runtime runs 'cpu' artifacts only");
  if (!desc->entry)
    return invalid(path, "the entry function is NULL");
  uint64_t alignment = desc->workspace_alignment;
  if (alignment != 0 && ((alignment & (alignment - 1)) != 0 ||
                         alignment > kMaxWorkspaceAlignment))
    return invalid(path, "workspace_alignment " + std::to_string(alignment) +
                             " is not a power of two up to " +
                             std::to_string(kMaxWorkspaceAlignment));
  if (desc->workspace_size > uint64_t(PTRDIFF_MAX) / 2)
    return invalid(path, "workspace_size " +
                             std::to_string(desc->workspace_size) +
                             " is implausibly large");
  if (const char *weights = weightsFileName(desc)) {
    if (!*weights || std::strchr(weights, '/') || !desc->weights_base)
      return invalid(path, "its weights file '" + std::string(weights) +
                               "' is not a file name beside the artifact, "
                               "or weights_base is NULL");
  }
  if (tessel_status status =
          validateTensors(desc->inputs, desc->num_inputs, "input", path))
    return status;
  if (tessel_status status =
          validateTensors(desc->outputs, desc->num_outputs, "output", path))
    return status;

  std::vector<std::string> missing = missingCpuFeatures(desc->target_features);
  if (!missing.empty())
    return makeStatus(
        TESSEL_INCOMPATIBLE,
        "'" + path + "' needs CPU features this host lacks: " +
            joined(missing) + " (compiled for " +
            (desc->target_cpu ? desc->target_cpu : "an unnamed CPU") +
            " with '" + desc->target_features + "')");
  if (modelFlags(desc) & TESSEL_MODEL_USES_AMX) {
    std::string refusal = requestAmxTileState();
    if (!refusal.empty())
      return makeStatus(TESSEL_INCOMPATIBLE,
                        "'" + path + "' runs AMX tile instructions, and " +
                            refusal);
  }
  return nullptr;
}

} // namespace tessel::runtime
