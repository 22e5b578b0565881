/*===- tessel/runtime.h - The Tessel runtime C API -----------------*- C -*-===*
 *
 * Loads compiled Tessel artifacts (`model.so`, see tessel/abi.h), inspects
 * their inputs and outputs, and runs them, synchronously or on streams.
 *
 * Conventions:
 *  - Every fallible function returns a `tessel_status`: NULL on success,
 *    otherwise an error object owned by the caller, to be released with
 *    tessel_status_free(). Output parameters are written only on success.
 *  - Handles (`tessel_model`, `tessel_session`, `tessel_stream`,
 *    `tessel_event`) are opaque. Each function
 *    states who owns what it takes and returns; "borrowed" means the caller
 *    must not free it and must not use it past the stated lifetime.
 *  - No function throws, aborts or calls exit() on bad input.
 *  - Thread-safety is stated per function. Functions that only read a handle
 *    may be called concurrently on the same handle. No release function may
 *    race with another call on the same handle.
 *  - Compiled code runs on the calling thread (tessel_session_run) or on the
 *    runtime's thread pool (streams); its parallel loops use that same pool.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_RUNTIME_H
#define TESSEL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/abi.h"

#if defined(__GNUC__) || defined(__clang__)
#define TESSEL_API __attribute__((visibility("default")))
#else
#define TESSEL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

/* What went wrong. TESSEL_OK is never carried by a status object: success is
 * a NULL `tessel_status`. */
typedef enum tessel_status_code {
  TESSEL_OK = 0,
  TESSEL_INVALID_ARGUMENT, /* a caller error: NULL handle, wrong tensor, ... */
  TESSEL_NOT_FOUND,        /* a file that does not exist */
  TESSEL_IO_ERROR,         /* a file that exists but cannot be read */
  TESSEL_INVALID_ARTIFACT, /* not an artifact, or a malformed descriptor */
  TESSEL_INCOMPATIBLE,     /* ABI major differs, or the host lacks CPU
                              features (or the target) the artifact needs */
  TESSEL_RUNTIME_ERROR,    /* the compiled code reported a failure */
  TESSEL_OUT_OF_MEMORY,
  TESSEL_DEADLINE_EXCEEDED, /* a scheduled request's deadline passed before
                               its batch started */
  TESSEL_RESOURCE_EXHAUSTED /* a scheduler's queue is full */
} tessel_status_code;

/* An error: a code and a message. NULL means success. */
typedef struct tessel_status_s *tessel_status;

/* Returns the code of `status`, TESSEL_OK when `status` is NULL.
 * Thread-safe. */
TESSEL_API tessel_status_code tessel_status_get_code(tessel_status status);

/* Returns the message of `status` ("" when `status` is NULL). Borrowed: valid
 * until `status` is freed. Thread-safe. */
TESSEL_API const char *tessel_status_get_message(tessel_status status);

/* Releases `status`; NULL is a no-op. Takes ownership. Not to be called twice
 * on the same status, nor concurrently with a reader of it. */
TESSEL_API void tessel_status_free(tessel_status status);

/* Returns a short name for `code` ("ok", "invalid argument", ...). Borrowed,
 * static storage. Thread-safe. */
TESSEL_API const char *tessel_status_code_name(tessel_status_code code);

/*===----------------------------------------------------------------------===*
 * Versions and element types
 *===----------------------------------------------------------------------===*/

/* Returns the runtime's version, e.g. "0.1.0". Borrowed, static storage.
 * Thread-safe. The artifact ABI it reads is TESSEL_ABI_MAJOR.x (abi.h). */
TESSEL_API const char *tessel_runtime_version(void);

/* Returns the git revision the runtime was built from (12 hex digits, with
 * "-dirty" when the tree had local changes; "unknown" outside a checkout).
 * Borrowed, static storage. */
TESSEL_API const char *tessel_runtime_revision(void);

/* Returns the name of an ONNX element type code: "float32", "float16",
 * "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
 * "uint64", "bool", "bfloat16", or "invalid" for any other code. Borrowed,
 * static storage. Thread-safe. */
TESSEL_API const char *tessel_dtype_name(int32_t dtype);

/* Returns the size in bytes of one element of `dtype` (bool: 1), or 0 when
 * the code is not one of the types above. Thread-safe. */
TESSEL_API size_t tessel_dtype_size(int32_t dtype);

/*===----------------------------------------------------------------------===*
 * Models
 *===----------------------------------------------------------------------===*/

/* A loaded artifact. Reference counted: tessel_model_load() returns it with
 * one reference; each session holds another. */
typedef struct tessel_model tessel_model;

/* Loads the artifact at `path` (a file name; a name without '/' is taken
 * relative to the working directory, never searched for on the library
 * path). Checks that the file is a readable ELF shared object for this host,
 * opens it, validates its descriptor (ABI major, tensor descriptions) and
 * that this CPU has the `+feature`s of its `target_features` that the runtime
 * can test.
 *
 * On success stores a new model with one reference in `*out_model`; the
 * caller owns that reference and drops it with tessel_model_release().
 * Errors: TESSEL_INVALID_ARGUMENT (NULL arguments), TESSEL_NOT_FOUND,
 * TESSEL_IO_ERROR, TESSEL_INVALID_ARTIFACT, TESSEL_INCOMPATIBLE,
 * TESSEL_OUT_OF_MEMORY. `path` is borrowed for the call only.
 *
 * Thread-safe. Loading runs the artifact's static initializers. */
TESSEL_API tessel_status tessel_model_load(const char *path,
                                           tessel_model **out_model);

/* Adds a reference to `model` (NULL is a no-op); drop it with
 * tessel_model_release(). Thread-safe. */
TESSEL_API void tessel_model_retain(tessel_model *model);

/* Drops one reference to `model` (NULL is a no-op). The artifact is unloaded
 * when the last reference goes, which invalidates every pointer borrowed from
 * the model. Thread-safe. */
TESSEL_API void tessel_model_release(tessel_model *model);

/* Returns the artifact's descriptor, or NULL when `model` is NULL. Borrowed:
 * valid while the caller holds a reference to `model`. Fields past
 * `struct_size` do not exist. Thread-safe. */
TESSEL_API const tessel_model_desc *
tessel_model_descriptor(const tessel_model *model);

/* Returns the number of graph inputs (outputs); 0 when `model` is NULL.
 * Thread-safe. */
TESSEL_API size_t tessel_model_num_inputs(const tessel_model *model);
TESSEL_API size_t tessel_model_num_outputs(const tessel_model *model);

/* Returns the description of input (output) `index`, or NULL when `model` is
 * NULL or `index` is out of range. Borrowed: valid while the caller holds a
 * reference to `model`. Thread-safe. */
TESSEL_API const tessel_tensor_desc *
tessel_model_input(const tessel_model *model, size_t index);
TESSEL_API const tessel_tensor_desc *
tessel_model_output(const tessel_model *model, size_t index);

/* Returns the value input `index` was fixed to at compile time
 * (tessel-compile --input-value), dense like the input's buffer; NULL when
 * the input takes any value, `model` is NULL or `index` is out of range. A
 * run must pass exactly this value for the input. Borrowed: valid while the
 * caller holds a reference to `model`. Thread-safe. */
TESSEL_API const void *tessel_model_input_fixed_value(const tessel_model *model,
                                                      size_t index);

/* Whether the artifact has a dynamic batch (tessel-compile --dim-range; ABI
 * 1.4's `batch_max` not 0). Returns 1 and stores the range in `*out_min`
 * and `*out_max` when it has: dimension 0 of every input and output is then
 * the batch (named by the descriptor's `batch_name`), which a run may set
 * to any B in [min, max], the same for every tensor; the descriptions
 * (tessel_model_input/output) show batch 1. Returns 0 and stores 0 in both
 * when the shapes are static, the artifact predates ABI 1.4, or `model` is
 * NULL. Either pointer may be NULL (not written). Thread-safe. */
TESSEL_API int32_t tessel_model_batch_range(const tessel_model *model,
                                            int64_t *out_min, int64_t *out_max);

/* Whether the artifact has a padded dimension (tessel-compile --dim-range
 * on a dimension other than the batch; ABI 1.5's `padded_max` not 0).
 * Returns 1 and stores the range in `*out_min` and `*out_max` when it has:
 * input `i` then holds it in its dimension `padded_input_dims[i]` of the
 * descriptor (tessel_model_descriptor), output `i` in
 * `padded_output_dims[i]` (-1: not at all), and it is named by
 * `padded_name`. A run may give it any length L in [min, max], the same in
 * every input that holds it, and passes outputs of length L there; the
 * descriptions (tessel_model_input/output) show the shortest compiled
 * length. The runtime pads each run to a compiled length and copies the
 * first L positions of each output back. Returns 0 and stores 0 in both
 * when the artifact has none, predates ABI 1.5, or `model` is NULL. Either
 * pointer may be NULL (not written). Thread-safe. */
TESSEL_API int32_t tessel_model_padded_range(const tessel_model *model,
                                             int64_t *out_min,
                                             int64_t *out_max);

/*===----------------------------------------------------------------------===*
 * Tensors
 *===----------------------------------------------------------------------===*/

/* A dense row-major tensor in memory the view does not own. The view itself
 * is a plain struct in caller memory; `shape` holds `rank` extents and
 * `size_bytes` is the size of the buffer at `data`. `data` must be aligned to
 * the element size (tessel_tensor_alloc() aligns to 64 bytes). */
typedef struct tessel_tensor_view {
  void *data;
  int32_t dtype; /* a tessel_dtype */
  int32_t rank;
  const int64_t *shape;
  size_t size_bytes;
} tessel_tensor_view;

/* Allocates a zeroed, 64-byte aligned tensor of `dtype` and `shape` (`rank`
 * extents, each >= 0; `shape` may be NULL when `rank` is 0) and fills `*out`.
 * The shape is copied: `out->shape` points into the allocation, `shape` is
 * borrowed for the call only. The caller owns the allocation and releases it
 * with tessel_tensor_free(). Errors: TESSEL_INVALID_ARGUMENT (unknown dtype,
 * rank outside [0, 16], negative extent, size overflow),
 * TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status tessel_tensor_alloc(int32_t dtype, int32_t rank,
                                             const int64_t *shape,
                                             tessel_tensor_view *out);

/* Releases a tensor filled by tessel_tensor_alloc() and clears `*view`. The
 * view's `data` and `shape` must be those tessel_tensor_alloc() stored.
 * NULL, or a view already freed (NULL `shape`), is a no-op. Not for views
 * over caller memory. Thread-safe on distinct views. */
TESSEL_API void tessel_tensor_free(tessel_tensor_view *view);

/*===----------------------------------------------------------------------===*
 * Sessions
 *===----------------------------------------------------------------------===*/

/* The state needed to run a model: its workspaces and its thread budget. A
 * session holds a reference to its model. */
typedef struct tessel_session tessel_session;

/* Options for tessel_session_create(). Set `struct_size` to
 * sizeof(tessel_session_options); fields are only ever appended. */
typedef struct tessel_session_options {
  uint32_t struct_size;
  /* The most threads one parallel loop of this session's runs may occupy,
   * the thread running the model included; 0: all cores available to the
   * process. Capped at tessel_runtime_num_threads(). */
  int32_t num_threads;
  /* The bound, in bytes, of the session's result cache; 0: no cache. When
   * set, a run whose inputs equal, byte for byte, those of an earlier
   * successful run still cached gets a copy of that run's outputs without
   * running the model. Entries count their stored inputs and outputs
   * against the bound and are evicted least recently used first; one
   * larger than the bound is not stored. A model whose descriptor has
   * TESSEL_MODEL_NONDETERMINISTIC gets no cache (its stats show capacity
   * 0). See docs/runtime.md, "Result cache". */
  uint64_t result_cache_bytes;
} tessel_session_options;

/* Creates a session for `model` and stores it in `*out_session`. `options`
 * may be NULL (defaults) and is borrowed for the call only. The session takes
 * its own reference to `model`, so the caller may release its reference
 * afterwards. Allocates one workspace for the model (with a dynamic batch,
 * the largest any of its batch entries needs). The caller owns the
 * session and releases it with tessel_session_release(). Errors:
 * TESSEL_INVALID_ARGUMENT, TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status tessel_session_create(
    tessel_model *model, const tessel_session_options *options,
    tessel_session **out_session);

/* What a result cache has done since it was created. Set `struct_size` to
 * sizeof(tessel_cache_stats) before the call; fields are only ever
 * appended. */
typedef struct tessel_cache_stats {
  uint32_t struct_size;
  uint64_t hits;           /* runs served from the cache */
  uint64_t misses;         /* runs that looked and ran the model */
  uint64_t evictions;      /* entries dropped to stay within the bound */
  uint64_t entries;        /* entries held now */
  uint64_t bytes;          /* their stored inputs and outputs, <= capacity */
  uint64_t capacity_bytes; /* the bound; 0 when there is no cache */
} tessel_cache_stats;

/* Fills `*out_stats` (up to its struct_size) with the counts of the
 * session's result cache; all zero when the session has none (no
 * result_cache_bytes, or a non-deterministic model). Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument, a struct_size too small).
 * Thread-safe. */
TESSEL_API tessel_status tessel_session_get_cache_stats(
    const tessel_session *session, tessel_cache_stats *out_stats);

/* Drops the caller's ownership of `session` (NULL is a no-op). Runs already
 * queued on streams keep the session (and its model) alive until they have
 * run; the session is destroyed after the last of them. Must not race with
 * a tessel_session_run() or tessel_run_async() on the same session. */
TESSEL_API void tessel_session_release(tessel_session *session);

/* Returns the number of threads the session was created for (>= 1; 0 in
 * the options resolved to the cores), or 0 when `session` is NULL. What
 * compiled code is told (`services->num_threads`) is this capped at
 * tessel_runtime_num_threads(). Thread-safe. */
TESSEL_API int32_t tessel_session_num_threads(const tessel_session *session);

/* Runs the model once, synchronously, on the calling thread (its parallel
 * loops also use the runtime's thread pool). `inputs` and `outputs` hold one
 * view per graph input (output), in descriptor order; all are borrowed for
 * the call only and their buffers stay owned by the caller. Before any
 * compiled code runs, checks the counts and each view's dtype, rank, shape,
 * size_bytes (exactly the dense size) and data alignment against the
 * descriptor. With a dynamic batch (tessel_model_batch_range), dimension 0
 * of every view is the run's batch B: any value in the range, the same for
 * every input and output (size_bytes that of B samples); the B samples then
 * run in chunks, each through the artifact's code for one batch size,
 * the cheapest by the session's measured run times (docs/runtime.md, "A
 * dynamic batch"). With a padded dimension (tessel_model_padded_range),
 * its extent in the views that hold it is the run's length L: any value in
 * the range, the same in every such input and output; the run pads its
 * inputs to a compiled length (docs/runtime.md, "A padded dimension").
 * Output buffers are written; input buffers are only read.
 * Errors: TESSEL_INVALID_ARGUMENT (a mismatch; the message names the
 * tensor), TESSEL_RUNTIME_ERROR (the entry returned non-zero; outputs are
 * then unspecified; with a dynamic batch, the message names the failed
 * chunk's batch and samples), TESSEL_OUT_OF_MEMORY (no workspace could be
 * allocated).
 * With a result cache (tessel_session_options.result_cache_bytes), the
 * checks come first, then a hit copies the cached outputs and runs nothing;
 * a failed run is never cached.
 *
 * Thread-safe: concurrent runs on one session (from threads or streams) run
 * in parallel, each with a workspace of its own; the session allocates one
 * more workspace whenever more runs overlap than it has workspaces, and
 * keeps them until it is destroyed. */
TESSEL_API tessel_status tessel_session_run(tessel_session *session,
                                            const tessel_tensor_view *inputs,
                                            size_t num_inputs,
                                            const tessel_tensor_view *outputs,
                                            size_t num_outputs);

/*===----------------------------------------------------------------------===*
 * The thread pool
 *===----------------------------------------------------------------------===*/

/* Returns the number of worker threads of the runtime's thread pool (>= 1):
 * the environment variable TESSEL_NUM_THREADS when it holds an integer in
 * [1, 1024] at the first call into the runtime that needs it, otherwise the
 * cores the process may run on (its CPU affinity). Streams and the parallel
 * loops of compiled code share this one pool, which is started on first use
 * and lives as long as the process. Starts nothing. Thread-safe. */
TESSEL_API int32_t tessel_runtime_num_threads(void);

/*===----------------------------------------------------------------------===*
 * Streams
 *===----------------------------------------------------------------------===*/

/* An in-order queue of work served by the runtime's thread pool: the items
 * queued on one stream run one after another, in the order they were
 * queued; items of different streams may run at the same time. */
typedef struct tessel_stream tessel_stream;

/* Options for tessel_stream_create(). Set `struct_size` to
 * sizeof(tessel_stream_options); fields are only ever appended. */
typedef struct tessel_stream_options {
  uint32_t struct_size;
  uint32_t flags; /* reserved: must be 0 */
} tessel_stream_options;

/* Creates a stream and stores it in `*out_stream`; starts the thread pool if
 * it is not running. `options` may be NULL (defaults) and is borrowed for the
 * call only. The caller owns the stream and releases it with
 * tessel_stream_release(). Errors: TESSEL_INVALID_ARGUMENT (NULL
 * `out_stream`, bad options), TESSEL_RUNTIME_ERROR (the pool could not start
 * any thread), TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status tessel_stream_create(
    const tessel_stream_options *options, tessel_stream **out_stream);

/* Waits until all work queued on `stream` has run (as
 * tessel_stream_synchronize() does, discarding any error), then destroys the
 * stream and drops its references to the sessions of the runs it held. NULL
 * is a no-op. Must not race with another call on the same stream. */
TESSEL_API void tessel_stream_release(tessel_stream *stream);

/* Blocks until every item queued on `stream` before this call has run.
 * Returns the first error of a run on this stream since the previous
 * synchronize (or since the stream was created), and forgets it: a second
 * synchronize returns NULL unless a later run failed. When several runs
 * failed, the message of the first says how many more did. A failed run does
 * not stop the stream: later items still run. Errors:
 * TESSEL_INVALID_ARGUMENT (NULL `stream`), and the codes of
 * tessel_session_run (the message is the same as the synchronous run's).
 * Thread-safe. */
TESSEL_API tessel_status tessel_stream_synchronize(tessel_stream *stream);

/* Queues one run of `session` on `stream` and returns at once. The arguments
 * are checked now, exactly as tessel_session_run() checks them, with the same
 * errors (plus TESSEL_INVALID_ARGUMENT for a NULL `stream`); when the check
 * fails nothing is queued. The views are borrowed for the call only (they
 * may be freed or reused when it returns), but the buffers their `data`
 * points at must stay valid, and the inputs unchanged, until the run has
 * happened: until a tessel_stream_synchronize() on `stream`, or an event
 * recorded after the run completes. The stream holds a reference to
 * `session` until the run has happened, so the caller may release the
 * session at once. Errors of the run itself (TESSEL_RUNTIME_ERROR,
 * TESSEL_OUT_OF_MEMORY) are reported by tessel_stream_synchronize().
 * Thread-safe; runs queued concurrently from several threads on one stream
 * run in the order the runtime received them. */
TESSEL_API tessel_status tessel_run_async(tessel_session *session,
                                          tessel_stream *stream,
                                          const tessel_tensor_view *inputs,
                                          size_t num_inputs,
                                          const tessel_tensor_view *outputs,
                                          size_t num_outputs);

/*===----------------------------------------------------------------------===*
 * Events
 *===----------------------------------------------------------------------===*/

/* A marker in a stream's queue, as in CUDA: recording it captures the work
 * queued on a stream so far, and it completes when that work has run. An
 * event that was never recorded counts as complete. */
typedef struct tessel_event tessel_event;

/* Creates an event, not yet recorded, and stores it in `*out_event`. The
 * caller owns the event and releases it with tessel_event_release().
 * Errors: TESSEL_INVALID_ARGUMENT (NULL `out_event`), TESSEL_OUT_OF_MEMORY.
 * Thread-safe. */
TESSEL_API tessel_status tessel_event_create(tessel_event **out_event);

/* Destroys `event` (NULL is a no-op). Streams that wait on it, and the
 * stream it was recorded on, are not affected: they keep what they need.
 * Must not race with another call on the same event. */
TESSEL_API void tessel_event_release(tessel_event *event);

/* Records `event` on `stream`: from now on the event stands for the work
 * queued on `stream` so far, and completes when that work has run (at once
 * when there is none). Recording again moves the event to the new point;
 * waits queued earlier keep waiting for the point they captured. Neither
 * handle is retained past the call. Errors: TESSEL_INVALID_ARGUMENT (a NULL
 * handle), TESSEL_OUT_OF_MEMORY. Thread-safe. */
TESSEL_API tessel_status tessel_event_record(tessel_event *event,
                                             tessel_stream *stream);

/* Makes the work queued on `stream` after this call wait until `event` (as
 * last recorded before this call) has completed; returns at once. An event
 * never recorded, or already complete, is satisfied at once (as in CUDA). The
 * stream does not need `event` to stay alive. Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL handle), TESSEL_OUT_OF_MEMORY.
 * Thread-safe. */
TESSEL_API tessel_status tessel_stream_wait_event(tessel_stream *stream,
                                                  tessel_event *event);

/* Stores in `*out_ready` 1 when `event` has completed (or was never
 * recorded), 0 otherwise; never blocks. Errors of the work it covers are
 * reported by the stream's tessel_stream_synchronize(), not here. Errors:
 * TESSEL_INVALID_ARGUMENT (a NULL argument). Thread-safe. */
TESSEL_API tessel_status tessel_event_query(tessel_event *event,
                                            int32_t *out_ready);

/* Blocks until `event` (as last recorded before this call) has completed;
 * returns at once when it was never recorded. Errors of the work it covers
 * are reported by the stream's tessel_stream_synchronize(), not here.
 * Errors: TESSEL_INVALID_ARGUMENT (NULL `event`). Thread-safe. */
TESSEL_API tessel_status tessel_event_synchronize(tessel_event *event);

/*===----------------------------------------------------------------------===*
 * Logging and tracing
 *===----------------------------------------------------------------------===*/

typedef enum tessel_log_level {
  TESSEL_LOG_ERROR = 0,
  TESSEL_LOG_WARN = 1,
  TESSEL_LOG_INFO = 2,
  TESSEL_LOG_DEBUG = 3
} tessel_log_level;

/* Receives each log message at or below the level; `message` is borrowed for
 * the call. Calls are serialised (never two at once), and may come from any
 * of the runtime's threads; the callback must not call back into the log
 * functions below. */
typedef void (*tessel_log_fn)(tessel_log_level level, const char *message,
                              void *user_data);

/* Sends the runtime's log to `callback` (NULL: back to stderr, as
 * "tessel[LEVEL]: message"). Thread-safe. */
TESSEL_API void tessel_set_log_callback(tessel_log_fn callback,
                                        void *user_data);

/* Sets the most verbose level delivered. The initial level is TESSEL_LOG's
 * (`error`, `warn`, `info` or `debug`), read when the library loads, else
 * warn. Out-of-range values are clamped. Thread-safe. */
TESSEL_API void tessel_set_log_level(tessel_log_level level);
TESSEL_API tessel_log_level tessel_get_log_level(void);

/* Starts recording a timeline (model loads, runs, each parallel loop of
 * compiled code on every thread that ran it, stream items, the scheduler's
 * requests and batches) to be written to `path` in the Chrome trace event
 * format (JSON; Perfetto and chrome://tracing open it). TESSEL_TRACE=PATH in
 * the environment starts one when the library loads. Errors:
 * TESSEL_INVALID_ARGUMENT (NULL or empty `path`, or a trace is already
 * recording). Thread-safe. */
TESSEL_API tessel_status tessel_trace_start(const char *path);

/* Stops recording and writes the file (a trace still recording at exit is
 * written then). Errors: TESSEL_INVALID_ARGUMENT (nothing is recording),
 * TESSEL_IO_ERROR (the file cannot be written). Thread-safe. */
TESSEL_API tessel_status tessel_trace_stop(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_RUNTIME_H */
