//===- model.h - The loaded artifact ----------------------------*- C++ -*-===//
//
// Internal to the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_MODEL_H
#define TESSEL_RUNTIME_CORE_MODEL_H

#include "library.h"
#include "tessel/runtime.h"

#include <atomic>
#include <memory>
#include <string>

struct tessel_model {
  std::atomic<int64_t> refCount{1};
  // Loaded through the descriptor that was checked; unloaded with the last
  // model that uses it.
  std::shared_ptr<tessel::runtime::CheckedLibrary> library;
  const tessel_model_desc *desc = nullptr;
  std::string path;
};

namespace tessel::runtime {

/// Checks an artifact's bytes before anything loads them: an ELF shared
/// object for this host's class, byte order and machine, ending in a seal
/// (tessel/seal.h) whose size and checksum match, and whose segments lie
/// inside the image. `path` is only used in messages.
tessel_status checkArtifactImage(const unsigned char *data, uint64_t size,
                                 const std::string &path);

/// Checks that the open file `fd` (named `path` in messages) is a regular
/// file whose bytes pass checkArtifactImage.
tessel_status checkArtifactFile(int fd, const std::string &path);

/// Checks a descriptor read from the artifact at `path` (used in messages):
/// size, ABI version, target, entry, workspace, every tensor description,
/// the dynamic batch and the padded dimension; then that this CPU has the
/// target's features.
tessel_status validateDescriptor(const tessel_model_desc *desc,
                                 const std::string &path);

/// The value input `index` was fixed to at compile time (ABI 1.1's
/// `input_values`), or NULL when it takes any value or the artifact predates
/// the field.
const void *fixedInputValue(const tessel_model_desc *desc, uint32_t index);

/// The descriptor's TESSEL_MODEL_* flags (ABI 1.2), 0 when the artifact
/// predates the field.
uint32_t modelFlags(const tessel_model_desc *desc);

/// The name of the artifact's weights file (ABI 1.3), or NULL when it has
/// none or predates the field.
const char *weightsFileName(const tessel_model_desc *desc);

/// Whether the artifact has a dynamic batch (ABI 1.4: `batch_max` not 0);
/// false when it predates the fields.
bool hasDynamicBatch(const tessel_model_desc *desc);

/// Whether the artifact has a padded dimension (ABI 1.5: `padded_max` not
/// 0); false when it predates the fields.
bool hasPaddedDim(const tessel_model_desc *desc);

/// The largest workspace any of the artifact's entries needs: the batch
/// entries', the padded entries' and `workspace_size`.
uint64_t largestWorkspace(const tessel_model_desc *desc);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_MODEL_H
