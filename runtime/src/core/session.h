//===- session.h - Sessions and their runs ----------------------*- C++ -*-===//
//
// Internal to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_SESSION_H
#define TESSEL_RUNTIME_CORE_SESSION_H

#include "batch_plan.h"
#include "padded.h"
#include "parallel.h"
#include "result_cache.h"

#include "tessel/runtime.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

/// Reference counted: the creator holds one reference (dropped by
/// tessel_session_release) and every run queued on a stream holds another.
struct tessel_session {
  std::atomic<int64_t> refCount{1};
  tessel_model *model = nullptr; // one reference, dropped on destruction
  int32_t numThreads = 1;        // as requested (0 resolved to the cores)
  tessel::runtime::ParallelContext parallel;
  tessel_runtime_services services{}; // immutable after creation

  /// Workspaces not in use by a run. A run takes one (allocating a new one
  /// when none is free) and gives it back, so concurrent runs never share a
  /// workspace; the session keeps as many as runs ever overlapped.
  std::mutex workspaceMutex;
  std::vector<void *> freeWorkspaces;
  size_t workspaceBytes = 0; // rounded up to `workspaceAlignment`
  size_t workspaceAlignment = 0;

  /// With a dynamic batch (ABI 1.4): the bytes of one sample of every
  /// input, then of every output; empty for a static model.
  std::vector<size_t> sampleBytes;
  /// With a dynamic batch: the measured run time of each batch entry, by
  /// which a run's chunks are planned (batch_plan.h).
  std::unique_ptr<tessel::runtime::EntryTimes> entryTimes;
  /// With a padded dimension (ABI 1.5): where the tensors hold it, and
  /// its entries by length; NULL without one.
  std::unique_ptr<tessel::runtime::PaddedLayout> padded;

  /// The result cache (tessel_session_options.result_cache_bytes), NULL
  /// without one; with one, the dense byte size of every input and output
  /// (of one sample, with a dynamic batch; at the descriptor's length,
  /// with a padded dimension: see runModel).
  std::unique_ptr<tessel::runtime::ResultCache> cache;
  std::vector<size_t> inputBytes, outputBytes;

  ~tessel_session();
};

namespace tessel::runtime {

/// Adds a reference to `session`.
void retainSession(tessel_session *session);
/// Drops a reference; the last one destroys the session.
void releaseSession(tessel_session *session);

/// Checks the views of a run against the session's model, as
/// tessel_session_run documents, and stores the run's batch in `batch`:
/// dimension 0 of the views with a dynamic batch, 1 for a static model;
/// and its length in `length`: the extent of the padded dimension (ABI
/// 1.5) in the views, 0 without one.
tessel_status checkRunArguments(const tessel_session *session,
                                const tessel_tensor_view *inputs,
                                size_t numInputs,
                                const tessel_tensor_view *outputs,
                                size_t numOutputs, int64_t &batch,
                                int64_t &length);

/// The data pointers of a run: inputs, then outputs (the entry's order).
std::vector<void *> collectDataPointers(const tessel_tensor_view *inputs,
                                        size_t numInputs,
                                        const tessel_tensor_view *outputs,
                                        size_t numOutputs);

/// Calls the model's entry on checked arguments: `pointers` holds the input
/// data pointers followed by the output data pointers. A static model runs
/// its entry once (`batch` 1). With a dynamic batch the `batch` samples run
/// in chunks, each through the batch entry of the largest batch that fits
/// what is left, the pointers advanced past the samples done. With a
/// padded dimension the run of `length` goes through runPadded (0 without
/// one). Takes one workspace for the duration of the call. Thread-safe.
tessel_status runEntry(tessel_session *session,
                       const std::vector<void *> &pointers, int64_t batch,
                       int64_t length);

/// A run of the session (tessel_session_run, tessel_run_async): serves it
/// from the session's result cache when it holds the inputs, otherwise
/// calls runEntry and caches the outputs of a successful run. `pointers`,
/// `batch` and `length` as runEntry's. Thread-safe.
tessel_status runModel(tessel_session *session,
                       const std::vector<void *> &pointers, int64_t batch,
                       int64_t length);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_SESSION_H
