//===- Link.cpp - Linking the artifact's shared object --------------------===//

#include "tessel/Target/LLVM/Artifact.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "tessel/seal.h"

using namespace mlir;
using namespace mlir::tessel;

/// The C compiler driver used to link: $TESSEL_CC, else cc, else
/// clang-22 or gcc.
static llvm::ErrorOr<std::string> findLinker() {
  if (const char *env = std::getenv("TESSEL_CC"); env && *env)
    return llvm::sys::findProgramByName(env);
  for (const char *name : {"cc", "clang-22", "gcc"})
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
      return path;
  return std::make_error_code(std::errc::no_such_file_or_directory);
}

LogicalResult
mlir::tessel::linkSharedObject(llvm::ArrayRef<std::string> objectPaths,
                               llvm::StringRef outputPath, std::string &error) {
  llvm::ErrorOr<std::string> linker = findLinker();
  if (!linker) {
    error = "no C compiler driver (cc) found on PATH to link the artifact; "
            "install one or set TESSEL_CC";
    return failure();
  }
  llvm::SmallString<128> logPath;
  int logFd;
  if (llvm::sys::fs::createTemporaryFile("tessel-link", "log", logFd, logPath)) {
    error = "cannot create a temporary file for the linker's output";
    return failure();
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(logFd);
  // -z defs: every symbol must resolve against libc and libm, nothing else.
  llvm::SmallVector<llvm::StringRef> args = {*linker, "-shared", "-o",
                                             outputPath};
  args.append(objectPaths.begin(), objectPaths.end());
  args.append({"-lm", "-Wl,-z,defs", "-Wl,--gc-sections"});
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      log = (*buffer)->getBuffer().str();
    error = "linking with '" + *linker + "' failed" +
            (execError.empty() ? "" : ": " + execError) +
            (log.empty() ? "" : "\n" + log);
  }
  llvm::sys::fs::remove(logPath);
  if (rc != 0)
    return failure();
  return sealArtifact(outputPath, error);
}

LogicalResult mlir::tessel::sealArtifact(llvm::StringRef path,
                                         std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> image =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!image) {
    error = "cannot read the linked artifact '" + path.str() +
            "' to seal it: " + image.getError().message();
    return failure();
  }
  unsigned char seal[TESSEL_SEAL_SIZE];
  tessel_seal_make((*image)->getBufferStart(), (*image)->getBufferSize(), seal);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append);
  if (!ec) {
    os.write(reinterpret_cast<const char *>(seal), sizeof(seal));
    os.close();
    ec = os.error();
  }
  if (ec) {
    error = "cannot append the seal to '" + path.str() + "': " + ec.message();
    return failure();
  }
  return success();
}
