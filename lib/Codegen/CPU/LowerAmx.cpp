//===- LowerAmx.cpp - AMX tiles and the branches carrying them to LLVM ----===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/AMX/Transforms.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELLOWERAMXPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// Whether `op` passes a tile to a successor block.
bool carriesTiles(Operation *op) {
  return llvm::any_of(op->getOperandTypes(),
                      [](Type type) { return isa<amx::TileType>(type); });
}

struct LowerAmxPass : tessel::impl::TesselLowerAmxPassBase<LowerAmxPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = module
                   .walk([](Operation *op) {
                     return isa<amx::AMXDialect>(op->getDialect())
                                ? WalkResult::interrupt()
                                : WalkResult::advance();
                   })
                   .wasInterrupted();
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateAMXLegalizeForLLVMExportPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    configureAMXLegalizeForExportTarget(target);
    // Only the branches that carry tiles: the others are converted with
    // the rest of the module later.
    target.addDynamicallyLegalOp<cf::BranchOp, cf::CondBranchOp>(
        [](Operation *op) { return !carriesTiles(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
