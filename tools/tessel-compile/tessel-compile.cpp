//===- tessel-compile.cpp - ONNX model -> native artifact -----------------===//

#include "tessel/Driver/TesselCompileMain.h"

int main(int argc, char **argv) {
  return mlir::tessel::tesselCompileMain(argc, argv);
}
