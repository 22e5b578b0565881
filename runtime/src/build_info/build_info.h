//===- build_info.h - Which Tessel a binary is -----------------*- C++ -*-===//
//
// The release, the git revision and the LLVM version a binary was built
// from, for every tool's --version, the report and bench records. A static
// library with no LLVM dependency: the runtime and its tools use it too.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_BUILD_INFO_H
#define TESSEL_RUNTIME_BUILD_INFO_H

#include <string>

namespace tessel::build {

/// The release, e.g. "0.1.0".
const char *release();

/// The source tree's commit (12 hex digits), with "-dirty" when tracked
/// files differed from it at build time; "unknown" outside a git checkout.
const char *gitRevision();

/// The LLVM version the compiler in this build uses, e.g. "22.1.8"; empty
/// in a runtime-only build (-DTESSEL_BUILD_COMPILER=OFF).
const char *llvmVersion();

/// What `tool --version` prints: the tool, release and revision, then the
/// LLVM version (or that the build has none), one item per line.
std::string versionText(const char *tool);

/// For the runtime's tools: the tool, release and revision, the runtime
/// library it loaded (its tessel_runtime_version and tessel_runtime_revision,
/// which can be another build's), and the LLVM version of the compiler built
/// beside it, which the tool itself does not use.
std::string versionText(const char *tool, const char *runtimeRelease,
                        const char *runtimeRevision);

} // namespace tessel::build

#endif // TESSEL_RUNTIME_BUILD_INFO_H
