//===- library.h - Artifacts loaded from the file that was checked -*- C++ -*-===//
//
// Internal to the runtime library.
//
// Checking an artifact and then calling dlopen on its path leaves a window in
// which the path can be renamed to another file: the loader would map bytes
// nobody checked. So the runtime opens the file once, checks the bytes behind
// that descriptor, and loads the same descriptor through /proc/self/fd/N.
//
// glibc knows a loaded library by the name it was opened with and reuses it
// for the same name, so a name like /proc/self/fd/7 must never outlive its
// descriptor while the library is loaded: a later artifact given descriptor 7
// would get the old library. Each loaded file (device and inode) therefore
// has one CheckedLibrary, shared by every model loaded from it, which keeps
// its descriptor open for as long as the library stays loaded.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CORE_LIBRARY_H
#define TESSEL_RUNTIME_CORE_LIBRARY_H

#include "tessel/runtime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>

namespace tessel::runtime {

/// A loaded artifact and the open descriptor it was loaded through.
struct CheckedLibrary {
  void *handle = nullptr; // from dlopen
  int fd = -1;            // the descriptor behind the loader's name
  dev_t device = 0;
  ino_t inode = 0;
  ~CheckedLibrary();

  /// What a trace calls the parallel-loop body at `address`: the model
  /// nodes in its symbol (`tessel_parallel_body_N:NODES`, as tessel-compile
  /// names them), else "parallel loop N". Reads the file's symbol table at
  /// the first call.
  std::string loopName(const void *address);

  /// Maps the artifact's weights file (abi.h, ABI 1.3), found beside the
  /// artifact at `artifactPath`, read-only, after checking its size and
  /// checksum against `desc`, and gives the code its address. Once per
  /// library: later models of the same file share the mapping.
  tessel_status mapWeights(const tessel_model_desc *desc,
                           const std::string &artifactPath);

private:
  std::mutex weightsMutex;
  const void *weights = nullptr; // the mapping, or null
  size_t weightsSize = 0;

  std::once_flag symbolsRead;
  std::map<uintptr_t, std::string> loops; // by address in this process
};

/// Opens the artifact at `path`, checks its bytes (checkArtifactFile) and
/// loads exactly those: through the checked descriptor, or, when that file
/// is already loaded, by sharing its CheckedLibrary.
tessel_status loadCheckedLibrary(const std::string &path,
                                 std::shared_ptr<CheckedLibrary> &out);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CORE_LIBRARY_H
