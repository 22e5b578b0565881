/*===- tessel/abi.h - The artifact ABI, version 1 -----------------*- C -*-===*
 *
 * The contract between a compiled Tessel artifact (`model.so`) and the
 * runtime that loads it. The compiler's artifact writer and the runtime both
 * include this header; nothing else defines these layouts.
 *
 * Rules:
 *  - An artifact exports one C symbol, `tessel_model_v1`, a function taking no
 *    arguments and returning a pointer to a `tessel_model_desc` with static
 *    storage duration.
 *  - Structs here only ever grow at their end. Each starts with `struct_size`
 *    (the size the writer knew), so a reader can tell which fields exist.
 *    Appending a field bumps TESSEL_ABI_MINOR; anything else bumps
 *    TESSEL_ABI_MAJOR, and a runtime refuses an artifact whose major differs.
 *  - The artifact depends on libc and libm only. Runtime services reach
 *    compiled code through `tessel_runtime_services`, passed at every call,
 *    never through link-time symbols.
 *  - Tensors crossing the entry point are dense, row-major, and owned by the
 *    caller, each aligned to at least its element size (the runtime's own
 *    allocations are 64-byte aligned). The entry does not keep any pointer
 *    after it returns, and never writes to an input.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_ABI_H
#define TESSEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_ABI_MAJOR 1
#define TESSEL_ABI_MINOR 5

/* The symbol every artifact exports. */
#define TESSEL_MODEL_SYMBOL "tessel_model_v1"

/* Element types. The values are ONNX's TensorProto.DataType codes. */
typedef enum tessel_dtype {
  TESSEL_DTYPE_INVALID = 0,
  TESSEL_DTYPE_F32 = 1,
  TESSEL_DTYPE_U8 = 2,
  TESSEL_DTYPE_I8 = 3,
  TESSEL_DTYPE_U16 = 4,
  TESSEL_DTYPE_I16 = 5,
  TESSEL_DTYPE_I32 = 6,
  TESSEL_DTYPE_I64 = 7,
  TESSEL_DTYPE_BOOL = 9, /* one byte per element, 0 or 1 */
  TESSEL_DTYPE_F16 = 10,
  TESSEL_DTYPE_F64 = 11,
  TESSEL_DTYPE_U32 = 12,
  TESSEL_DTYPE_U64 = 13,
  TESSEL_DTYPE_BF16 = 16
} tessel_dtype;

/* One graph input or output. */
typedef struct tessel_tensor_desc {
  const char *name;     /* the ONNX value name */
  int32_t dtype;        /* a tessel_dtype */
  int32_t rank;         /* number of entries in `shape` */
  const int64_t *shape; /* static extents, outermost first */
} tessel_tensor_desc;

/* Runs `body(body_ctx, begin, end)` over disjoint chunks covering
 * [begin, end), each at least `grain` long except the last; returns when all
 * chunks are done. Chunks may run concurrently. */
typedef void (*tessel_parallel_body)(void *body_ctx, int64_t begin,
                                     int64_t end);
typedef void (*tessel_parallel_for_fn)(void *runtime_ctx, int64_t begin,
                                       int64_t end, int64_t grain,
                                       tessel_parallel_body body,
                                       void *body_ctx);

/* What the runtime lends compiled code at each call. */
typedef struct tessel_runtime_services {
  uint32_t struct_size;
  int32_t num_threads;  /* threads `parallel_for` may use, >= 1 */
  void *runtime_ctx;    /* passed back to every service */
  tessel_parallel_for_fn parallel_for;
  /* ABI 1.5: for an artifact with a padded dimension (`padded_max` > 0),
   * the valid length of this call, at most the called entry's length: the
   * positions from it on are padding, which the code keeps out of every
   * valid result. An entry called with a `struct_size` that ends before
   * this field takes its own length as valid. */
  int64_t valid_length;
} tessel_runtime_services;

/* The compiled model. `inputs[i]` and `outputs[i]` point at dense buffers
 * matching the descriptor's tensors; `workspace` holds at least
 * `workspace_size` bytes aligned to `workspace_alignment` (NULL when the size
 * is 0). Returns 0 on success. */
typedef int32_t (*tessel_entry_fn)(const tessel_runtime_services *services,
                                   void *const *inputs, void *const *outputs,
                                   void *workspace);

/* ABI 1.4: code compiled for one batch size of a model with a dynamic
 * batch: `entry` runs exactly `batch` samples (dimension 0 of every input
 * and output) and needs `workspace_size` bytes of workspace. */
typedef struct tessel_batch_entry {
  int64_t batch;
  tessel_entry_fn entry;
  uint64_t workspace_size;
} tessel_batch_entry;

/* ABI 1.5: code compiled for one length of a model's padded dimension
 * (and, with a dynamic batch, one batch size): `entry` runs inputs of
 * `length` positions in that dimension, of which the first
 * `tessel_runtime_services.valid_length` are valid, and `batch` samples
 * (dimension 0; 1 when the batch is static, where it is not read). */
typedef struct tessel_padded_entry {
  int64_t length;
  int64_t batch;
  tessel_entry_fn entry;
  uint64_t workspace_size;
} tessel_padded_entry;

/* The artifact's descriptor. */
typedef struct tessel_model_desc {
  uint32_t struct_size; /* sizeof(tessel_model_desc) of the writer */
  uint16_t abi_major;   /* TESSEL_ABI_MAJOR of the writer */
  uint16_t abi_minor;   /* TESSEL_ABI_MINOR of the writer */
  const char *model_name;       /* ONNX graph name, or the file's stem */
  const char *compiler_version; /* "tessel X.Y.Z (git REV, LLVM N)" */
  const char *compile_flags;    /* the options that shaped the code */
  const char *target;           /* "cpu" */
  const char *target_cpu;       /* LLVM CPU name, e.g. "znver3" */
  const char *target_features;  /* LLVM feature string, e.g. "+avx2,+fma" */
  uint32_t num_inputs;
  uint32_t num_outputs;
  const tessel_tensor_desc *inputs;
  const tessel_tensor_desc *outputs;
  const char *entry_name; /* symbol name of `entry`, for diagnostics */
  tessel_entry_fn entry;
  uint64_t workspace_size;
  uint64_t workspace_alignment;
  uint64_t weights_size; /* bytes of constant data inside the artifact */
  /* ABI 1.1: `num_inputs` pointers, one per input: NULL, or the value the
   * input was fixed to at compile time (tessel-compile --input-value), dense
   * like the input's buffer. The code computes with that value, so a caller
   * must pass exactly it; the runtime refuses any other. */
  const void *const *input_values;
  /* ABI 1.2: TESSEL_MODEL_* bits; a reader treats a descriptor whose
   * struct_size ends before this field as flags 0, and ignores bits it does
   * not know. */
  uint32_t flags;
  /* ABI 1.3: weights kept in a file beside the artifact (tessel-compile
   * --weights-file-threshold), or NULL. `weights_file` is the file's name,
   * relative to the directory of the artifact as loaded; it holds
   * `weights_file_size` bytes whose checksum (tessel_weights_checksum in
   * tessel/seal.h: XXH64 over its 1 MiB chunks' XXH64s) is
   * `weights_file_checksum`. The loader maps the file read-only and stores
   * its address in `*weights_base` before any run; until then the entry
   * returns TESSEL_ENTRY_WEIGHTS_UNMAPPED (so a runtime older than 1.3 fails
   * the run with that code instead of reading through NULL). */
  const char *weights_file;
  uint64_t weights_file_size;
  uint64_t weights_file_checksum;
  const void **weights_base;
  /* ABI 1.4: a dynamic batch (tessel-compile --dim-range), or
   * `batch_max` 0 when every shape is static. Dimension 0 of every input
   * and output is then the batch, named `batch_name`, which a run may set
   * to any value in [batch_min, batch_max]; the samples are computed apart
   * from each other. `inputs`, `outputs`, `entry` and `workspace_size` are
   * those of batch 1, so a reader older than 1.4 runs the artifact at
   * batch 1. `batch_entries` holds `num_batch_entries` entries by
   * ascending batch, the first of batch 1: a run of B samples runs them in
   * chunks, each one entry's call with the buffers' pointers advanced past
   * the samples done (the runtime's choice of entries; a chunk of fewer
   * samples than its entry's batch runs on padded copies). */
  int64_t batch_min;
  int64_t batch_max;
  const char *batch_name;
  uint32_t num_batch_entries;
  const tessel_batch_entry *batch_entries;
  /* ABI 1.5: a padded dimension (tessel-compile --dim-range on a dimension
   * other than the batch, a sequence, say), or `padded_max` 0. Input `i`
   * holds it in its dimension `padded_input_dims[i]`, output `i` in
   * `padded_output_dims[i]` (-1: not at all; at least one input holds
   * it), and a run may give it any length in [padded_min, padded_max], the
   * same in every input that holds it. `padded_entries` holds
   * `num_padded_entries` entries by ascending length, then batch. A run of
   * length L takes entries of one length >= L: it copies each input into
   * a buffer of that length, zeros after the first L positions, sets
   * `valid_length` to L, and copies the first L positions of each output
   * that holds them. `inputs`, `outputs`, `entry` and `workspace_size` are
   * those of the first entry, and `batch_entries` those of its length, so
   * a reader older than 1.5 runs the artifact at that length. */
  int64_t padded_min;
  int64_t padded_max;
  const char *padded_name;
  const int32_t *padded_input_dims;
  const int32_t *padded_output_dims;
  uint32_t num_padded_entries;
  const tessel_padded_entry *padded_entries;
} tessel_model_desc;

/* What `entry` returns when the artifact's weights file is not mapped. */
#define TESSEL_ENTRY_WEIGHTS_UNMAPPED 3

/* `flags`: the outputs may differ between two runs on the same inputs (a
 * random op, say), so the runtime never serves them from its result cache
 * (tessel_session_options.result_cache_bytes). No op Tessel compiles today
 * is random: the compiler writes 0. */
#define TESSEL_MODEL_NONDETERMINISTIC 1u

/* `flags`: the code runs Intel AMX tile instructions. Linux hands a process
 * the tile state only on request (arch_prctl(ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA)); without it the first tile instruction kills the
 * process. The runtime asks once, when it loads such an artifact, and
 * refuses the artifact when the kernel does not grant it. */
#define TESSEL_MODEL_USES_AMX 2u

typedef const tessel_model_desc *(*tessel_model_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_ABI_H */
