//===- tessel-opt.cpp - Runs Tessel's and MLIR's passes -------------------===//

#include "tessel/Pipelines/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tessel::registerTesselDialects(registry);
  mlir::tessel::registerTesselPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessel optimizer driver\n", registry));
}
