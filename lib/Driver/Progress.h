//===- Progress.h - tessel-compile's progress lines -------------*- C++ -*-===//
//
// A long compile says what it is doing: once it has run for a couple of
// seconds, one line per phase on stderr ("tessel-compile: [12.4 s] llvm-opt:
// LLVM -O2 on 57 kernels"). By default only when stderr is a terminal
// (--progress=auto); --progress=always prints every phase from the start,
// --progress=never nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DRIVER_PROGRESS_H
#define TESSEL_LIB_DRIVER_PROGRESS_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace mlir::tessel {

class Progress {
public:
  enum class Mode { Never, Auto, Always };

  /// Auto prints once `quiet` has passed, and only when stderr is a
  /// terminal.
  explicit Progress(Mode mode, std::chrono::milliseconds quiet =
                                   std::chrono::milliseconds(2000));
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// A phase starts; `detail` says on what (e.g. the kernel count).
  void begin(llvm::StringRef phase, llvm::StringRef detail = {});

  /// The compile is over: a last line with the total time, when anything
  /// was printed.
  void finish(llvm::StringRef output);

private:
  void printLocked(); // the current phase's line, with `mutex` held
  void waitThenPrint();

  using Clock = std::chrono::steady_clock;
  Mode mode;
  Clock::time_point start = Clock::now();
  std::chrono::milliseconds quiet;
  std::mutex mutex;
  std::condition_variable stopping;
  bool stopped = false, printedAny = false, printedCurrent = false;
  std::string current;
  std::thread waiter; // Auto: prints the running phase when `quiet` ends
};

/// Parses --progress's value; false for anything but never, auto, always.
bool parseProgressMode(llvm::StringRef text, Progress::Mode &mode);

} // namespace mlir::tessel

#endif // TESSEL_LIB_DRIVER_PROGRESS_H
