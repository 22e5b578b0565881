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

#include <algorithm>
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

/// The size of an ABI 1.4 descriptor: every field up to `batch_entries`.
constexpr size_t kDescSizeV1_4 =
    offsetof(tessel_model_desc, batch_entries) + sizeof(void *);

/// The size of an ABI 1.5 descriptor: every field up to `padded_entries`.
constexpr size_t kDescSizeV1_5 =
    offsetof(tessel_model_desc, padded_entries) + sizeof(void *);

/// More tensors than this means the descriptor is garbage.
constexpr uint32_t kMaxTensors = 1u << 16;

/// More batch entries than this means the descriptor is garbage.
constexpr uint32_t kMaxBatchEntries = 1u << 16;

/// The largest workspace accepted, in bytes.
constexpr uint64_t kMaxWorkspaceSize = uint64_t(PTRDIFF_MAX) / 2;

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

/// Checks that every tensor has the batch as dimension 0, with extent 1
/// in the descriptor, and a dense size at `batchMax` samples that fits.
tessel_status validateBatchedTensors(const tessel_tensor_desc *tensors,
                                     uint32_t count, const char *kind,
                                     int64_t batchMax,
                                     const std::string &path) {
  for (uint32_t i = 0; i < count; ++i) {
    const tessel_tensor_desc &tensor = tensors[i];
    std::string which = std::string(kind) + " " + quoted(tensor.name);
    if (tensor.rank < 1 || tensor.shape[0] != 1)
      return invalid(
          path, which + " is " +
                    formatTensorType(tensor.dtype, tensor.rank, tensor.shape) +
                    ", but a dynamic batch needs dimension 0 of "
                    "every input and output, of extent 1");
    std::vector<int64_t> largest(tensor.shape, tensor.shape + tensor.rank);
    largest[0] = batchMax;
    std::string error = shapeError(tensor.dtype, tensor.rank, largest.data());
    if (!error.empty())
      return invalid(path, which + " at batch_max " + std::to_string(batchMax) +
                               ": " + error);
  }
  return nullptr;
}

/// Checks ABI 1.4's dynamic batch: the range, the name, the entries (by
/// ascending batch, the first of batch 1, none NULL) and the tensors.
tessel_status validateBatch(const tessel_model_desc *desc,
                            const std::string &path) {
  std::string range =
      std::to_string(desc->batch_min) + ".." + std::to_string(desc->batch_max);
  if (desc->batch_min < 1 || desc->batch_max < desc->batch_min)
    return invalid(path, "the batch range " + range +
                             " is not 1 <= batch_min <= batch_max");
  if (!desc->batch_name || !*desc->batch_name)
    return invalid(path, "the dynamic batch " + range + " has no name");
  uint32_t count = desc->num_batch_entries;
  if (count == 0 || count > kMaxBatchEntries || !desc->batch_entries)
    return invalid(path, std::to_string(count) + " batch entries" +
                             (desc->batch_entries ? "" : " and no table") +
                             " (1 to " + std::to_string(kMaxBatchEntries) +
                             " needed, the first of batch 1)");
  const tessel_batch_entry *entries = desc->batch_entries;
  for (uint32_t i = 0; i < count; ++i) {
    std::string which = "batch entry " + std::to_string(i) + " (batch " +
                        std::to_string(entries[i].batch) + ")";
    if (i == 0 && entries[i].batch != 1)
      return invalid(path, which + " is the first, which must have batch 1");
    if (i > 0 && entries[i].batch <= entries[i - 1].batch)
      return invalid(path, which + " does not follow batch " +
                               std::to_string(entries[i - 1].batch) +
                               ": entries go by ascending batch");
    if (!entries[i].entry)
      return invalid(path, which + " has a NULL entry function");
    if (entries[i].workspace_size > kMaxWorkspaceSize)
      return invalid(path, which +
                               " has an implausibly large "
                               "workspace_size " +
                               std::to_string(entries[i].workspace_size));
  }
  if (tessel_status status = validateBatchedTensors(
          desc->inputs, desc->num_inputs, "input", desc->batch_max, path))
    return status;
  return validateBatchedTensors(desc->outputs, desc->num_outputs, "output",
                                desc->batch_max, path);
}

/// Checks where the tensors of `kind` hold the padded dimension: -1 or a
/// dimension of the tensor (not the batch), whose extent in the
/// descriptor is `length`, the first entry's. Counts the tensors that
/// hold it in `holding`.
tessel_status validatePaddedDims(const tessel_model_desc *desc,
                                 const tessel_tensor_desc *tensors,
                                 const int32_t *dims, uint32_t count,
                                 const char *kind, int64_t length,
                                 uint32_t &holding, const std::string &path) {
  std::string field = std::string("padded_") + kind + "_dims";
  if (count > 0 && !dims)
    return invalid(path, "the padded dimension has no " + field + " table");
  int32_t first = hasDynamicBatch(desc) ? 1 : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const tessel_tensor_desc &tensor = tensors[i];
    int32_t dim = dims[i];
    if (dim == -1)
      continue;
    std::string which =
        field + "[" + std::to_string(i) + "] (" + kind + " " +
        quoted(tensor.name) + ", " +
        formatTensorType(tensor.dtype, tensor.rank, tensor.shape) + ") is " +
        std::to_string(dim);
    if (dim < first || dim >= tensor.rank)
      return invalid(path, which + ", not -1 or a dimension from " +
                               std::to_string(first) +
                               (first ? " (0 is the dynamic batch)" : "") +
                               " to the rank");
    if (tensor.shape[dim] != length)
      return invalid(path, which + ", whose extent is not " +
                               std::to_string(length) +
                               ", the length of the first padded entry");
    if (std::strcmp(kind, "input") == 0 && fixedInputValue(desc, i))
      return invalid(path, which + ", but the input has a fixed value "
                                   "(input_values), which cannot be padded");
    ++holding;
  }
  return nullptr;
}

/// Checks that every tensor holding the padded dimension has a dense size
/// that fits at `length` (and batch_max with a dynamic batch).
tessel_status validatePaddedSizes(const tessel_model_desc *desc,
                                  const tessel_tensor_desc *tensors,
                                  const int32_t *dims, uint32_t count,
                                  const char *kind, int64_t length,
                                  const std::string &path) {
  for (uint32_t i = 0; i < count; ++i) {
    const tessel_tensor_desc &tensor = tensors[i];
    std::vector<int64_t> largest(tensor.shape, tensor.shape + tensor.rank);
    if (dims[i] >= 0)
      largest[size_t(dims[i])] = length;
    if (hasDynamicBatch(desc))
      largest[0] = desc->batch_max;
    std::string error = shapeError(tensor.dtype, tensor.rank, largest.data());
    if (!error.empty())
      return invalid(path, std::string(kind) + " " + quoted(tensor.name) +
                               " at length " + std::to_string(length) + ": " +
                               error);
  }
  return nullptr;
}

/// Checks the padded entries: by ascending length, then batch, none
/// NULL; with a dynamic batch each length's batches start at 1, without
/// one each length has one entry; the last length reaches padded_max.
tessel_status validatePaddedEntries(const tessel_model_desc *desc,
                                    const std::string &path) {
  uint32_t count = desc->num_padded_entries;
  const tessel_padded_entry *entries = desc->padded_entries;
  if (count == 0 || count > kMaxBatchEntries || !entries)
    return invalid(path, std::to_string(count) + " padded entries" +
                             (entries ? "" : " and no table") + " (1 to " +
                             std::to_string(kMaxBatchEntries) + " needed)");
  bool dynamic = hasDynamicBatch(desc);
  for (uint32_t i = 0; i < count; ++i) {
    const tessel_padded_entry &entry = entries[i];
    std::string which = "padded entry " + std::to_string(i) + " (length " +
                        std::to_string(entry.length) + ", batch " +
                        std::to_string(entry.batch) + ")";
    if (entry.length < 1 || entry.batch < 1)
      return invalid(path, which + " has a length or batch below 1");
    bool newLength = i == 0 || entry.length != entries[i - 1].length;
    if (i > 0 && (entry.length < entries[i - 1].length ||
                  (!newLength && entry.batch <= entries[i - 1].batch)))
      return invalid(path, which + " does not follow padded entry " +
                               std::to_string(i - 1) +
                               ": entries go by ascending length, then "
                               "ascending batch");
    if (dynamic && newLength && entry.batch != 1)
      return invalid(path, which + " is the first of its length, which "
                                   "must have batch 1 (the batch is dynamic)");
    if (!dynamic && !newLength)
      return invalid(path, which + " repeats a length, but the batch is "
                                   "static: one entry a length");
    if (!entry.entry)
      return invalid(path, which + " has a NULL entry function");
    if (entry.workspace_size > kMaxWorkspaceSize)
      return invalid(path, which +
                               " has an implausibly large "
                               "workspace_size " +
                               std::to_string(entry.workspace_size));
  }
  if (entries[count - 1].length < desc->padded_max)
    return invalid(path, "the longest padded entry has length " +
                             std::to_string(entries[count - 1].length) +
                             ", below padded_max " +
                             std::to_string(desc->padded_max));
  return nullptr;
}

/// Checks ABI 1.5's padded dimension: the range, the name, the entries,
/// and where the tensors hold it.
tessel_status validatePadded(const tessel_model_desc *desc,
                             const std::string &path) {
  std::string range = std::to_string(desc->padded_min) + ".." +
                      std::to_string(desc->padded_max);
  if (desc->padded_min < 1 || desc->padded_max < desc->padded_min)
    return invalid(path, "the padded range " + range +
                             " is not 1 <= padded_min <= padded_max");
  if (!desc->padded_name || !*desc->padded_name)
    return invalid(path, "the padded dimension " + range + " has no name");
  if (tessel_status status = validatePaddedEntries(desc, path))
    return status;
  int64_t first = desc->padded_entries[0].length;
  uint32_t holding = 0;
  if (tessel_status status =
          validatePaddedDims(desc, desc->inputs, desc->padded_input_dims,
                             desc->num_inputs, "input", first, holding, path))
    return status;
  if (holding == 0)
    return invalid(path, "no input holds the padded dimension " +
                             quoted(desc->padded_name) +
                             " (padded_input_dims are all -1)");
  if (tessel_status status =
          validatePaddedDims(desc, desc->outputs, desc->padded_output_dims,
                             desc->num_outputs, "output", first, holding, path))
    return status;
  int64_t longest = desc->padded_entries[desc->num_padded_entries - 1].length;
  if (tessel_status status =
          validatePaddedSizes(desc, desc->inputs, desc->padded_input_dims,
                              desc->num_inputs, "input", longest, path))
    return status;
  return validatePaddedSizes(desc, desc->outputs, desc->padded_output_dims,
                             desc->num_outputs, "output", longest, path);
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

bool hasDynamicBatch(const tessel_model_desc *desc) {
  return desc->struct_size >= kDescSizeV1_4 && desc->batch_max != 0;
}

bool hasPaddedDim(const tessel_model_desc *desc) {
  return desc->struct_size >= kDescSizeV1_5 && desc->padded_max != 0;
}

uint64_t largestWorkspace(const tessel_model_desc *desc) {
  uint64_t size = desc->workspace_size;
  if (hasDynamicBatch(desc))
    for (uint32_t i = 0; i < desc->num_batch_entries; ++i)
      size = std::max(size, desc->batch_entries[i].workspace_size);
  if (hasPaddedDim(desc))
    for (uint32_t i = 0; i < desc->num_padded_entries; ++i)
      size = std::max(size, desc->padded_entries[i].workspace_size);
  return size;
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
  if (desc->workspace_size > kMaxWorkspaceSize)
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
  if (hasDynamicBatch(desc))
    if (tessel_status status = validateBatch(desc, path))
      return status;
  if (hasPaddedDim(desc))
    if (tessel_status status = validatePadded(desc, path))
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
