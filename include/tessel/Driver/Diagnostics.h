//===- Diagnostics.h - Tessel's user-facing error format --------*- C++ -*-===//
//
// Every error a user sees reads
//
//   <file>: error[E<code>]: <what is wrong>
//     <node name> (<op type>): <reason>
//
// (codes in tessel/Support/ErrorCodes.h, documented in docs/errors.md)
// with one indented line per offending ONNX node, recovered from the op's
// location (`loc(fused<"OpType">["node name"])`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DRIVER_DIAGNOSTICS_H
#define TESSEL_DRIVER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::tessel {

struct ImportError;

/// The ONNX node an op came from, if its location says.
struct NodeOrigin {
  std::string name;
  std::string opType;
};
std::optional<NodeOrigin> getNodeOrigin(Location loc);

/// Prints MLIR diagnostics in Tessel's format while alive. Errors raised
/// while compiling carry E0020 (an op cannot be compiled); those raised
/// while verifying what the importer built carry E0099 (Tessel's fault).
class TesselDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  TesselDiagnosticHandler(MLIRContext *ctx, std::string file,
                          llvm::raw_ostream &os = llvm::errs());
  unsigned getErrorCount() const { return errorCount; }
  /// Whether errors from now on are Tessel's own fault (E0099) rather than
  /// an op that cannot be compiled (E0020).
  void setInternal(bool internal) { this->internal = internal; }

private:
  std::string file;
  llvm::raw_ostream &os;
  unsigned errorCount = 0;
  bool internal = false;
};

/// Prints an import failure.
void printImportError(llvm::raw_ostream &os, llvm::StringRef file,
                      const ImportError &error);

} // namespace mlir::tessel

#endif // TESSEL_DRIVER_DIAGNOSTICS_H
