//===- TesselCompileMain.h - The tessel-compile driver ----------*- C++ -*-===//

#ifndef TESSEL_DRIVER_TESSELCOMPILEMAIN_H
#define TESSEL_DRIVER_TESSELCOMPILEMAIN_H

namespace mlir::tessel {

/// Runs tessel-compile: ONNX (or MLIR) in, IR at a phase, LLVM IR, an object
/// or a model artifact out. Returns the process exit code.
int tesselCompileMain(int argc, char **argv);

} // namespace mlir::tessel

#endif // TESSEL_DRIVER_TESSELCOMPILEMAIN_H
