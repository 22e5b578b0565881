/*===- tessel/scheduler.h - The batching scheduler's C API ------*- C -*-===*
 *
 * A scheduler serves single-sample requests by running them in batches. It
 * is given one model per batch size (the same network compiled several times
 * with `tessel-compile --input-shape`, e.g. for batch 1, 4 and 8): every
 * input and output of every model has the batch as its leading dimension,
 * and otherwise the models agree tensor by tensor. Or it is given one model
 * with a dynamic batch (`tessel-compile --dim-range`, ABI 1.4), alone: a
 * batch of n requests is then one run of exactly n rows (batch_min rows,
 * the rest zeros, when n is fewer), which the runtime splits over the
 * artifact's code for each batch size (tessel_session_run).
 *
 * A request carries the tensors of one sample (the models' shapes with a
 * leading dimension of 1), a priority and an optional deadline. The
 * scheduler queues requests and forms a batch when `max_batch` requests are
 * queued or when the oldest queued request has waited `window_us`,
 * whichever comes first, taking requests by priority (higher first) and,
 * within a priority, in submission order. A batch of n requests runs on the
 * model of the largest batch size <= n (then the rest of the batch on the
 * next model, and so on); n below the smallest batch size runs on the
 * smallest model, its unused rows filled with zeros. Each request's rows of
 * the outputs are copied to the request's output buffers.
 *
 * A request whose deadline passes while it is queued completes at once with
 * TESSEL_DEADLINE_EXCEEDED; once its batch has started it runs to the end.
 * A submission that finds `queue_limit` requests queued is refused with
 * TESSEL_RESOURCE_EXHAUSTED. Batches run on the runtime's thread pool (no
 * threads of their own, so schedulers, streams and parallel loops share the
 * cores); the scheduler keeps one waiting thread that forms batches.
 *
 * Include after or instead of tessel/runtime.h (it includes it).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_SCHEDULER_H
#define TESSEL_SCHEDULER_H

#include "tessel/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tessel_scheduler tessel_scheduler;

/* Options for tessel_scheduler_create(). Set `struct_size` to
 * sizeof(tessel_scheduler_options); fields are only ever appended. A zero
 * field takes its default. */
typedef struct tessel_scheduler_options {
  uint32_t struct_size;
  /* The most requests one batch takes. Default: the largest batch size
   * among the models (a dynamic batch's batch_max), capped at
   * queue_limit. May exceed the largest batch
   * size (the batch then runs in several model runs); a queue holding
   * queue_limit requests counts as full whatever max_batch is. */
  int32_t max_batch;
  /* How long, in microseconds, the oldest queued request may wait for a
   * batch to fill before a smaller batch is formed. Default: 2000; a
   * negative value means 0 (batch whatever is queued at once); values above
   * 10^12 (about 11.6 days) are taken as 10^12. */
  int64_t window_us;
  /* The most requests queued (submitted, not yet in a running batch).
   * Default: 1024. */
  int32_t queue_limit;
  /* The most batches running at the same time. Default: 1. */
  int32_t max_concurrent_batches;
  /* The threads of each batch's parallel loops, as
   * tessel_session_options.num_threads. Default (0): all cores. */
  int32_t num_threads;
  /* The bound, in bytes, of the scheduler's result cache, as
   * tessel_session_options.result_cache_bytes but per sample: a request
   * whose input rows equal, byte for byte, those of an earlier request
   * still cached gets a copy of its output rows at submission, completed
   * without being queued. Default (0): no cache. No cache either when any
   * model is TESSEL_MODEL_NONDETERMINISTIC. */
  uint64_t result_cache_bytes;
  /* A latency target, in microseconds, for the 99th percentile of a
   * request's time from submission to completion. Default (0): none, and
   * batches form by max_batch and window_us. With a target the scheduler
   * sets the window itself (window_us only until it has timed a run): it
   * times each model's runs (the slowest of the last 16 per batch size)
   * and the requests' arrivals (the mean gap of the last 16), and forms a
   * batch when max_batch requests are queued, when a full batch started
   * any later would finish past 90% of the target after the oldest
   * queued request's submission, at once when the next request is not
   * expected before that point (sparse arrivals: waiting would only add
   * latency), or when no request came for twice the median gap between
   * recent arrivals (a burst, or closed-loop clients that all wait for
   * their answers, is over). Requests of negative priority have twice the target: when
   * only they are queued, batches wait longer and grow larger. A
   * request that still completes past the target counts in
   * tessel_scheduler_stats.target_misses. Must not be negative. */
  int64_t target_p99_us;
} tessel_scheduler_options;

/* Creates a scheduler over `models` (`num_models` >= 1 of them, distinct
 * batch sizes, in any order; or one model with a dynamic batch) and stores
 * it in `*out_scheduler`. The
 * scheduler takes its own reference to every model and creates a session
 * for each; `models` and `options` (NULL: defaults) are borrowed for the
 * call only. Starts the scheduler's batching thread. The caller owns the
 * scheduler and releases it with tessel_scheduler_release(). Errors:
 * TESSEL_INVALID_ARGUMENT (NULL arguments, bad options, a tensor of rank 0,
 * tensors whose leading dimensions differ within a model, two models of one
 * batch size, models that disagree on anything but the batch, a model with
 * a dynamic batch among others, a model with a padded dimension, whose
 * requests may differ in length: run it on a session; the message names
 * the models and the tensor), TESSEL_OUT_OF_MEMORY,
 * TESSEL_RUNTIME_ERROR (no thread could be started). Thread-safe. */
TESSEL_API tessel_status tessel_scheduler_create(
    tessel_model *const *models, size_t num_models,
    const tessel_scheduler_options *options, tessel_scheduler **out_scheduler);

/* Stops taking requests, waits until every queued request has completed
 * (queued ones are batched at once, without waiting for the window) and
 * every batch has finished, then destroys the scheduler and drops its
 * references to the models. Requests the caller still holds stay valid.
 * NULL is a no-op. Must not race with another call on the same scheduler. */
TESSEL_API void tessel_scheduler_release(tessel_scheduler *scheduler);

/* Returns the number of models of `scheduler` (0 when it is NULL).
 * Thread-safe. */
TESSEL_API size_t
tessel_scheduler_num_models(const tessel_scheduler *scheduler);

/* Returns the batch size (the leading dimension) of the scheduler's model
 * `index`, the models ordered by ascending batch size (for a model with a
 * dynamic batch, its batch_max); 0 when `scheduler` is NULL or `index` is
 * out of range. Thread-safe. */
TESSEL_API int64_t
tessel_scheduler_batch_size(const tessel_scheduler *scheduler, size_t index);

/* One request: a completed flag and a status. */
typedef struct tessel_request tessel_request;

/* Options of one request. Set `struct_size` to
 * sizeof(tessel_request_options); fields are only ever appended. */
typedef struct tessel_request_options {
  uint32_t struct_size;
  /* Higher runs first. Default 0. */
  int32_t priority;
  /* Microseconds from submission by which the request's batch must have
   * been formed; 0, or a value beyond the clock's range: no deadline. Must
   * not be negative. */
  int64_t deadline_us;
} tessel_request_options;

/* Queues a request and returns at once, storing the request in
 * `*out_request` (with a result cache, a hit is a request already
 * completed, its outputs written before this returns). `inputs` and `outputs`
 * hold one view per model input (output), in descriptor order, each with the
 * models' dtype and shape except for a leading dimension of 1, and exactly the
 * dense size_bytes; their data need no particular alignment (they are copied).
 * The views are borrowed for the call only, but their buffers must stay valid,
 * and the inputs unchanged, until the request completes. `options` may be NULL
 * (defaults). The caller owns the request and releases it with
 * tessel_request_release(). Errors: TESSEL_INVALID_ARGUMENT (a NULL
 * argument, bad options, a view that does not match: the message names the
 * tensor), TESSEL_RESOURCE_EXHAUSTED (the queue is full), TESSEL_OUT_OF_MEMORY;
 * nothing is queued then. Thread-safe. */
TESSEL_API tessel_status tessel_scheduler_submit(
    tessel_scheduler *scheduler, const tessel_tensor_view *inputs,
    size_t num_inputs, const tessel_tensor_view *outputs, size_t num_outputs,
    const tessel_request_options *options, tessel_request **out_request);

/* Blocks until `request` has completed and returns its outcome as a new
 * status owned by the caller (NULL: the outputs are written):
 * TESSEL_DEADLINE_EXCEEDED (the deadline passed while it was queued; its
 * outputs are untouched), or the codes of tessel_session_run for a failed
 * batch (outputs unspecified). May be called again (it returns the same
 * outcome). Errors: TESSEL_INVALID_ARGUMENT (NULL `request`).
 * Thread-safe. */
TESSEL_API tessel_status tessel_request_wait(tessel_request *request);

/* Stores in `*out_done` 1 when `request` has completed, 0 otherwise; never
 * blocks. Errors: TESSEL_INVALID_ARGUMENT (a NULL argument). Thread-safe. */
TESSEL_API tessel_status tessel_request_query(tessel_request *request,
                                              int32_t *out_done);

/* Drops the caller's handle (NULL is a no-op). A request not yet completed
 * still runs, so its buffers must stay valid until it would have completed
 * (the scheduler's release waits for that). Must not race with another call
 * on the same request. */
TESSEL_API void tessel_request_release(tessel_request *request);

/* What a scheduler has done since it was created. Set `struct_size` to
 * sizeof(tessel_scheduler_stats) before the call; fields are only ever
 * appended. */
typedef struct tessel_scheduler_stats {
  uint32_t struct_size;
  uint64_t submitted;         /* requests accepted */
  uint64_t rejected;          /* submissions refused: the queue was full */
  uint64_t completed;         /* requests that ran (successfully or not),
                                 cache hits included */
  uint64_t deadline_exceeded; /* requests expired in the queue */
  uint64_t batches;           /* batches formed */
  uint64_t model_runs;        /* model runs (>= batches) */
  uint64_t padded_rows;       /* zero rows run to fill a model's batch (a
                                 dynamic batch's batch_min) */
  /* The result cache (result_cache_bytes), all 0 without one. A hit counts
   * as submitted and completed, never as queued or batched. */
  uint64_t cache_hits;      /* requests served from the cache */
  uint64_t cache_misses;    /* submissions that looked, found nothing */
  uint64_t cache_evictions; /* entries dropped to stay within the bound */
  /* With target_p99_us: requests that completed (successfully or not) more
   * than the target after their submission. 0 without a target. */
  uint64_t target_misses;
} tessel_scheduler_stats;

/* Fills `*out_stats` (up to its struct_size). Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument, a struct_size too small).
 * Thread-safe. */
TESSEL_API tessel_status tessel_scheduler_get_stats(
    const tessel_scheduler *scheduler, tessel_scheduler_stats *out_stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_SCHEDULER_H */
