//===- build_info.cpp - Which Tessel a binary is --------------------------===//

#include "build_info.h"

#include "tessel/GitRevision.h"

#ifndef TESSEL_RELEASE
#define TESSEL_RELEASE "0.0.0"
#endif
#ifndef TESSEL_LLVM_VERSION
#define TESSEL_LLVM_VERSION ""
#endif

namespace tessel::build {

const char *release() { return TESSEL_RELEASE; }

const char *gitRevision() { return TESSEL_GIT_REVISION; }

const char *llvmVersion() { return TESSEL_LLVM_VERSION; }

std::string versionText(const char *tool) {
  std::string text = std::string(tool) + " " + release() + " (git " +
                     gitRevision() + ")\n";
  if (*llvmVersion())
    text += std::string("LLVM ") + llvmVersion() + "\n";
  else
    text += "built without LLVM (runtime only)\n";
  return text;
}

std::string versionText(const char *tool, const char *runtimeRelease,
                        const char *runtimeRevision) {
  std::string text = std::string(tool) + " " + release() + " (git " +
                     gitRevision() + ")\n";
  text += std::string("libtessel_runtime ") + runtimeRelease + " (git " +
          runtimeRevision + ")\n";
  if (*llvmVersion())
    text += std::string("LLVM ") + llvmVersion() +
            " (the compiler's in this build; " + tool +
            " runs artifacts without it)\n";
  else
    text += "built without LLVM (runtime only)\n";
  return text;
}

} // namespace tessel::build
