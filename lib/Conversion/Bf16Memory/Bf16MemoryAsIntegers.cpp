//===- Bf16MemoryAsIntegers.cpp - bf16 vectors loaded and stored as i16 ---===//
//
// LLVM 22's X86 backend cannot legalize every load and store of a bf16
// vector: one of 9 elements (a 3x3 window's taps) stops it with "Do not
// know how to soft promote this operator's operand". The same bytes as i16
// lanes legalize at any length, so every `llvm.load` and `llvm.store` of a
// bf16 vector moves i16 lanes here, with a bitcast beside it (which the
// backend folds into the bf16 conversions around it).
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELBF16MEMORYASINTEGERSPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// `type` with i16 lanes when it is a vector of bf16; null otherwise.
VectorType asIntegers(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return VectorType();
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

struct Bf16MemoryAsIntegersPass
    : tessel::impl::TesselBf16MemoryAsIntegersPassBase<
          Bf16MemoryAsIntegersPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      OpBuilder b(op);
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        VectorType integers = asIntegers(load.getType());
        if (!integers)
          return;
        Type bf16 = load.getType();
        load.getResult().setType(integers);
        b.setInsertionPointAfter(load);
        auto cast = LLVM::BitcastOp::create(b, load.getLoc(), bf16,
                                            load.getResult());
        load.getResult().replaceAllUsesExcept(cast.getResult(), cast);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        VectorType integers = asIntegers(store.getValue().getType());
        if (!integers)
          return;
        store.getValueMutable().assign(LLVM::BitcastOp::create(
            b, store.getLoc(), integers, store.getValue()));
      }
    });
  }
};

} // namespace
