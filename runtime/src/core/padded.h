//===- padded.h - Runs of a padded dimension --------------------*- C++ -*-===//
//
// How a run of length L of an artifact with a padded dimension (abi.h, ABI
// 1.5) uses the entries compiled for its lengths: the entries of one
// length P >= L, each input holding the dimension copied into a buffer of
// length P with zeros after its first L positions, and the first L
// positions of each output holding it copied back. With a dynamic batch
// the samples run in chunks among the entries of length P, as
// batch_plan.h plans them. A run of length P whose chunks need no padded
// samples runs on the caller's buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_PADDED_H
#define TESSEL_RUNTIME_CORE_PADDED_H

#include "batch_plan.h"

#include "tessel/runtime.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessel::runtime {

/// The entries of one length, as batch entries by ascending batch (with
/// a static batch, one of batch 1: the entry runs the whole tensors), and
/// their measured times.
struct PaddedLength {
  int64_t length = 0;
  std::vector<tessel_batch_entry> entries;
  std::unique_ptr<EntryTimes> times;
};

/// Where a checked descriptor's padded dimension lies in its tensors
/// (inputs, then outputs), and its entries by length.
class PaddedLayout {
public:
  explicit PaddedLayout(const tessel_model_desc *desc);

  /// The entries a run of `length` (in the artifact's range) takes.
  PaddedLength &chooseLength(int64_t length);

  /// The bytes of one sample of tensor `t` (with a static batch, of the
  /// whole tensor) at `length`.
  size_t sampleBytes(size_t t, int64_t length) const;
  /// The dimension of tensor `t` that holds the padded one, or -1.
  int32_t dim(size_t t) const { return tensors[t].dim; }
  bool dynamicBatch() const { return dynamic; }
  size_t numInputs() const { return inputs; }

  /// Copies `rows` samples of input `t` at `length` from `from` into
  /// `to`, of `bytes` bytes at `padded` (zeros in the rest).
  void padInput(size_t t, const unsigned char *from, int64_t rows,
                int64_t length, unsigned char *to, int64_t padded,
                size_t bytes) const;
  /// Copies the first `length` positions of `rows` samples of output
  /// `t` from `from`, at `padded`, into `to`.
  void copyOutput(size_t t, const unsigned char *from, int64_t padded,
                  unsigned char *to, int64_t rows, int64_t length) const;

private:
  /// Copies the first `length` positions of `rows` samples of tensor `t`
  /// from `from` (at `fromLength` positions) into `to` (at `toLength`).
  void copyPositions(size_t t, const unsigned char *from, int64_t fromLength,
                     unsigned char *to, int64_t toLength, int64_t rows,
                     int64_t length) const;

  struct Tensor {
    int32_t dim = -1;       // the padded dimension, or -1
    size_t outer = 1;       // a sample's extents before `dim`, multiplied
    size_t innerBytes = 0;  // the bytes of its extents after `dim`
    size_t sampleBytes = 0; // without `dim`: a sample's bytes
  };
  std::vector<Tensor> tensors;
  std::vector<PaddedLength> byLength; // ascending
  bool dynamic = false;
  size_t inputs = 0;
};

/// Runs `batch` samples of `length` (checked: in range, and `batch` 1
/// with a static batch) on `pointers` (the caller's inputs, then
/// outputs) with `workspace`, as the header comment says, setting
/// `valid_length` to `length` at every call. Stops at the first call that
/// fails.
tessel_status runPadded(tessel_session *session,
                        const std::vector<void *> &pointers, int64_t batch,
                        int64_t length, void *workspace);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_PADDED_H
