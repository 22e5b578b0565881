//===- Registration.cpp - Registering Tessel with MLIR --------------------===//

#include "tessel/Pipelines/Registration.h"

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"
#include "tessel/Linalg/Transforms/Passes.h"
#include "tessel/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::tessel::registerTesselDialects(DialectRegistry &registry) {
  registry.insert<TesselDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mlir::tessel::registerTesselPasses() {
  registerAllPasses();
  registerTesselConversionPasses();
  registerTesselLinalgTransformsPasses();
  registerTesselCodegenCPUPasses();
  registerTesselTransformsPasses();
  registerTesselPipelines();
}
