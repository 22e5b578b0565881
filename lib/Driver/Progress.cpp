//===- Progress.cpp - tessel-compile's progress lines ---------------------===//

#include "Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace mlir::tessel;

Progress::Progress(Mode mode, std::chrono::milliseconds quiet)
    : mode(mode == Mode::Auto && !isatty(STDERR_FILENO) ? Mode::Never : mode),
      quiet(quiet) {
  if (this->mode == Mode::Auto)
    waiter = std::thread([this] { waitThenPrint(); });
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopped = true;
  }
  stopping.notify_all();
  if (waiter.joinable())
    waiter.join();
}

void Progress::waitThenPrint() {
  std::unique_lock<std::mutex> lock(mutex);
  if (stopping.wait_for(lock, quiet, [&] { return stopped; }))
    return;
  if (!current.empty() && !printedCurrent)
    printLocked();
}

void Progress::printLocked() {
  double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  llvm::errs() << llvm::format("tessel-compile: [%.1f s] ", seconds)
               << current << "\n";
  llvm::errs().flush();
  printedAny = printedCurrent = true;
}

void Progress::begin(llvm::StringRef phase, llvm::StringRef detail) {
  if (mode == Mode::Never)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  current = phase.str();
  if (!detail.empty())
    current += ": " + detail.str();
  printedCurrent = false;
  if (mode == Mode::Always || Clock::now() - start >= quiet)
    printLocked();
}

void Progress::finish(llvm::StringRef output) {
  if (mode == Mode::Never)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!printedAny && mode != Mode::Always)
    return;
  current = "wrote " + output.str();
  printLocked();
}

bool mlir::tessel::parseProgressMode(llvm::StringRef text,
                                     Progress::Mode &mode) {
  if (text == "never")
    mode = Progress::Mode::Never;
  else if (text == "auto")
    mode = Progress::Mode::Auto;
  else if (text == "always")
    mode = Progress::Mode::Always;
  else
    return false;
  return true;
}
