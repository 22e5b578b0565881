//===- tessel-opt.cpp - Runs Tessel's and MLIR's passes -------------------===//

#include "tessel/Pipelines/Registration.h"

#include "build_info.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << tessel::build::versionText("tessel-opt");
  });
  mlir::DialectRegistry registry;
  mlir::tessel::registerTesselDialects(registry);
  mlir::tessel::registerTesselPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessel optimizer driver\n", registry));
}
