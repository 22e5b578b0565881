//===- Diagnostics.cpp - Tessel's user-facing error format ----------------===//

#include "tessel/Driver/Diagnostics.h"

#include "tessel/Import/ONNX/ImportONNX.h"

#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::tessel;

std::optional<NodeOrigin> mlir::tessel::getNodeOrigin(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    auto opType = dyn_cast_or_null<StringAttr>(fused.getMetadata());
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner))
        return NodeOrigin{name.getName().str(),
                          opType ? opType.str() : std::string("?")};
    for (Location inner : fused.getLocations())
      if (std::optional<NodeOrigin> origin = getNodeOrigin(inner))
        return origin;
    return std::nullopt;
  }
  if (auto name = dyn_cast<NameLoc>(loc))
    return NodeOrigin{name.getName().str(), "initializer"};
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getNodeOrigin(callSite.getCallee());
  return std::nullopt;
}

TesselDiagnosticHandler::TesselDiagnosticHandler(MLIRContext *ctx,
                                                 std::string file,
                                                 llvm::raw_ostream &os)
    : ScopedDiagnosticHandler(ctx), file(std::move(file)), os(os) {
  setHandler([this](Diagnostic &diag) {
    std::string severity;
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      severity = ::tessel::errorTag(internal ? ::tessel::ErrorCode::Internal
                                             : ::tessel::ErrorCode::Lowering);
      ++errorCount;
      break;
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    default:
      return success(); // remarks and stray notes stay quiet
    }
    std::string message = diag.str();
    std::optional<NodeOrigin> origin = getNodeOrigin(diag.getLocation());
    if (origin) {
      this->os << this->file << ": " << severity << ": node '" << origin->name
               << "' (" << origin->opType << ") "
               << (internal ? "was imported as invalid IR, a bug in Tessel; "
                              "please report it with the model"
                            : "cannot be compiled")
               << "\n";
      this->os << "  " << origin->name << " (" << origin->opType
               << "): " << message << "\n";
    } else {
      this->os << this->file << ": " << severity << ": " << message << "\n";
    }
    for (Diagnostic &note : diag.getNotes())
      this->os << "  note: " << note.str() << "\n";
    this->os.flush();
    return success();
  });
}

void mlir::tessel::printImportError(llvm::raw_ostream &os, llvm::StringRef file,
                                    const ImportError &error) {
  os << file << ": " << ::tessel::errorTag(error.code) << ": " << error.message
     << "\n";
  for (const ImportIssue &issue : error.issues)
    os << "  " << issue.node << " (" << issue.opType << "): " << issue.reason
       << "\n";
  os.flush();
}
