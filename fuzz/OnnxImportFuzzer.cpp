//===- OnnxImportFuzzer.cpp - libFuzzer harness for the ONNX importer -----===//
//
// Imports arbitrary bytes as an ONNX model, as `tessel-compile
// --compile-to=import` does, through verification. The importer must either
// refuse with a coded error (not E0099, an internal error) that has a message,
// or return a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "tessel/Import/ONNX/ImportONNX.h"
#include "tessel/Pipelines/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail = "") {
  std::fprintf(stderr, "fuzz contract violated: %s%s%s\n", what,
               detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *result = new DialectRegistry;
    mlir::tessel::registerTesselDialects(*result);
    return result;
  }();
  return *registry;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A context per input: uniqued attributes and types would otherwise grow
  // without bound over a long run.
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += diagnostic.str() + "\n";
    return success();
  });

  mlir::tessel::ImportOptions options;
  mlir::tessel::ImportError error;
  OwningOpRef<ModuleOp> module = mlir::tessel::importOnnxBytes(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), &context,
      options, error);
  if (!module) {
    if (error.code == ::tessel::ErrorCode::Internal)
      fail("an internal error (E0099)", error.message);
    if (error.message.empty())
      fail("a refusal without a message");
    return 0;
  }
  if (failed(verify(*module)))
    fail("the imported module does not verify", diagnostics);
  return 0;
}
