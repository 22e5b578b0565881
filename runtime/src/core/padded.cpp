//===- padded.cpp - Runs of a padded dimension ----------------------------===//

#include "padded.h"

#include "model.h"
#include "session.h"
#include "status.h"

#include <chrono>
#include <cstring>
#include <new>
#include <string>

using namespace tessel::runtime;

namespace {

/// Describes tensor `desc`, holding the padded dimension in `dim` (or
/// -1), by what a copy of its samples needs.
void describe(const tessel_tensor_desc &desc, int32_t dim, bool dynamic,
              size_t &outer, size_t &innerBytes, size_t &sampleBytes) {
  size_t element = tessel_dtype_size(desc.dtype);
  int32_t first = dynamic ? 1 : 0;
  outer = 1;
  innerBytes = element;
  sampleBytes = element;
  // Fits: the descriptor's check sized every tensor at its largest.
  for (int32_t d = first; d < desc.rank; ++d) {
    size_t extent = size_t(desc.shape[d]);
    if (dim < 0) {
      sampleBytes *= extent;
      continue;
    }
    if (d < dim)
      outer *= extent;
    else if (d > dim)
      innerBytes *= extent;
  }
}

/// A 64-byte aligned buffer of at least `bytes` bytes, kept in `owner`
/// (reused when it is large enough); NULL when memory ran out.
unsigned char *stagingBuffer(std::unique_ptr<unsigned char[]> &owner,
                             size_t &capacity, size_t bytes) {
  if (!owner || capacity < bytes) {
    owner.reset(new (std::nothrow) unsigned char[bytes + 64]);
    capacity = owner ? bytes : 0;
    if (!owner)
      return nullptr;
  }
  return reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(owner.get()) + 63) & ~uintptr_t(63));
}

} // namespace

PaddedLayout::PaddedLayout(const tessel_model_desc *desc)
    : dynamic(hasDynamicBatch(desc)), inputs(desc->num_inputs) {
  auto add = [&](const tessel_tensor_desc *descs, const int32_t *dims,
                 uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      Tensor tensor;
      tensor.dim = dims[i];
      describe(descs[i], tensor.dim, dynamic, tensor.outer, tensor.innerBytes,
               tensor.sampleBytes);
      tensors.push_back(tensor);
    }
  };
  add(desc->inputs, desc->padded_input_dims, desc->num_inputs);
  add(desc->outputs, desc->padded_output_dims, desc->num_outputs);
  for (uint32_t i = 0; i < desc->num_padded_entries; ++i) {
    const tessel_padded_entry &entry = desc->padded_entries[i];
    if (byLength.empty() || byLength.back().length != entry.length) {
      byLength.emplace_back();
      byLength.back().length = entry.length;
    }
    // With a static batch the entry runs the whole tensors: one "sample".
    byLength.back().entries.push_back(
        {dynamic ? entry.batch : 1, entry.entry, entry.workspace_size});
  }
  for (PaddedLength &bucket : byLength)
    bucket.times = std::make_unique<EntryTimes>(bucket.entries.size());
}

PaddedLength &PaddedLayout::chooseLength(int64_t length) {
  // The shortest length that holds the run. (The seam for a choice by
  // measured cost: a longer length whose entries ran faster, as
  // `times` would tell, could serve the run as well.)
  for (PaddedLength &bucket : byLength)
    if (bucket.length >= length)
      return bucket;
  return byLength.back(); // not reached: the longest reaches padded_max
}

size_t PaddedLayout::sampleBytes(size_t t, int64_t length) const {
  const Tensor &tensor = tensors[t];
  if (tensor.dim < 0)
    return tensor.sampleBytes;
  return tensor.outer * size_t(length) * tensor.innerBytes;
}

void PaddedLayout::copyPositions(size_t t, const unsigned char *from,
                                 int64_t fromLength, unsigned char *to,
                                 int64_t toLength, int64_t rows,
                                 int64_t length) const {
  const Tensor &tensor = tensors[t];
  if (tensor.dim < 0) {
    std::memcpy(to, from, tensor.sampleBytes * size_t(rows));
    return;
  }
  size_t blocks = size_t(rows) * tensor.outer;
  size_t used = size_t(length) * tensor.innerBytes;
  size_t fromStride = size_t(fromLength) * tensor.innerBytes;
  size_t toStride = size_t(toLength) * tensor.innerBytes;
  for (size_t b = 0; b < blocks; ++b)
    std::memcpy(to + b * toStride, from + b * fromStride, used);
}

void PaddedLayout::padInput(size_t t, const unsigned char *from, int64_t rows,
                            int64_t length, unsigned char *to, int64_t padded,
                            size_t bytes) const {
  std::memset(to, 0, bytes);
  copyPositions(t, from, length, to, padded, rows, length);
}

void PaddedLayout::copyOutput(size_t t, const unsigned char *from,
                              int64_t padded, unsigned char *to, int64_t rows,
                              int64_t length) const {
  copyPositions(t, from, padded, to, length, rows, length);
}

tessel_status tessel::runtime::runPadded(tessel_session *session,
                                         const std::vector<void *> &pointers,
                                         int64_t batch, int64_t length,
                                         void *workspace) {
  PaddedLayout &layout = *session->padded;
  PaddedLength &bucket = layout.chooseLength(length);
  std::vector<BatchChunk> plan;
  if (layout.dynamicBatch())
    plan = planBatch(bucket.entries.data(), *bucket.times, batch);
  else
    plan.push_back({0, 1});
  tessel_runtime_services services = session->services;
  services.valid_length = length;
  size_t count = pointers.size(), numInputs = layout.numInputs();
  std::vector<void *> args(count);
  std::vector<unsigned char *> callers(count);
  std::vector<bool> staged(count);
  std::vector<std::unique_ptr<unsigned char[]>> buffers(count);
  std::vector<size_t> capacities(count, 0);
  int64_t done = 0;
  for (const BatchChunk &chunk : plan) {
    const tessel_batch_entry &chosen = bucket.entries[chunk.entry];
    bool padRows = chunk.rows < chosen.batch;
    for (size_t t = 0; t < count; ++t) {
      callers[t] = static_cast<unsigned char *>(pointers[t]) +
                   size_t(done) * layout.sampleBytes(t, length);
      staged[t] = padRows || (layout.dim(t) >= 0 && length != bucket.length);
      if (!staged[t]) {
        args[t] = callers[t];
        continue;
      }
      size_t bytes =
          layout.sampleBytes(t, bucket.length) * size_t(chosen.batch);
      unsigned char *buffer = stagingBuffer(buffers[t], capacities[t], bytes);
      if (!buffer)
        return makeStatus(TESSEL_OUT_OF_MEMORY,
                          "no memory to pad a run to length " +
                              std::to_string(bucket.length));
      if (t < numInputs)
        layout.padInput(t, callers[t], chunk.rows, length, buffer,
                        bucket.length, bytes);
      args[t] = buffer;
    }
    auto start = std::chrono::steady_clock::now();
    int32_t result = chosen.entry(&services, args.data(),
                                  args.data() + numInputs, workspace);
    bucket.times->record(
        chunk.entry,
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count()));
    if (result != 0) {
      std::string what = "'" + session->model->path +
                         "': the entry for length " +
                         std::to_string(bucket.length);
      if (layout.dynamicBatch())
        what += " and batch " + std::to_string(chosen.batch);
      what += " failed with code " + std::to_string(result) +
              " at valid length " + std::to_string(length);
      if (layout.dynamicBatch())
        what += ", on samples " + std::to_string(done) + " to " +
                std::to_string(done + chunk.rows - 1) + " of " +
                std::to_string(batch);
      return makeStatus(TESSEL_RUNTIME_ERROR, what);
    }
    for (size_t t = numInputs; t < count; ++t)
      if (staged[t])
        layout.copyOutput(t, static_cast<unsigned char *>(args[t]),
                          bucket.length, callers[t], chunk.rows, length);
    done += chunk.rows;
  }
  return nullptr;
}
