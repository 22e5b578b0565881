//===- EntryABI.cpp - The entry function's buffer ABI ---------------------===//
//
// Rewrites the model function `(tensor...) -> (tensor...)` into
// `@tessel_model_main(memref inputs..., memref outputs...)`, the form the
// artifact's entry point calls with caller-owned buffers.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELENTRYABIPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

struct TesselEntryABIPass
    : tessel::impl::TesselEntryABIPassBase<TesselEntryABIPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entry = findEntryFunction(module);
    if (failed(entry) || failed(rewriteEntry(module, *entry)))
      signalPassFailure();
  }

  LogicalResult rewriteEntry(ModuleOp module, func::FuncOp func) {
    if (func.isExternal())
      return func.emitError() << "the entry function has no body";
    // A signature recorded before lowering (tessel-record-signature) keeps
    // the element types the lowering made signless (ui8 -> i8).
    if (!module->hasAttr(kSignatureAttrName)) {
      if (failed(recordSignature(module, func)))
        return failure();
    } else if (failed(checkSignature(module, func))) {
      return failure();
    }
    IRRewriter rewriter(func.getContext());
    FunctionType type = func.getFunctionType();
    SmallVector<Type> bufferTypes;
    // A tensor without elements reads and writes nothing: its buffer is a
    // `memref<0xT>` (the bare-pointer calling convention cannot express a
    // zero extent in front of other dimensions, memref<3x0x5xT>), and the
    // body sees an empty tensor of its shape.
    auto isEmpty = [](Type t) {
      return cast<RankedTensorType>(t).getNumElements() == 0;
    };
    for (Type t :
         llvm::concat<const Type>(type.getInputs(), type.getResults())) {
      auto tensor = cast<RankedTensorType>(t);
      bufferTypes.push_back(MemRefType::get(
          isEmpty(t) ? ArrayRef<int64_t>{0} : tensor.getShape(),
          tensor.getElementType()));
    }

    // The new function takes over the body.
    rewriter.setInsertionPoint(func);
    auto entry =
        func::FuncOp::create(rewriter, func.getLoc(), kEntryFunctionName,
                             rewriter.getFunctionType(bufferTypes, {}));
    Block *oldEntry = &func.getBody().front();
    rewriter.inlineRegionBefore(func.getBody(), entry.getBody(),
                                entry.getBody().end());
    Block *newEntry = rewriter.createBlock(
        &entry.getBody(), entry.getBody().begin(), bufferTypes,
        SmallVector<Location>(bufferTypes.size(), func.getLoc()));
    SmallVector<Value> tensors;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto tensor = cast<RankedTensorType>(t);
      if (isEmpty(t)) {
        tensors.push_back(tensor::EmptyOp::create(rewriter, func.getLoc(),
                                                  tensor.getShape(),
                                                  tensor.getElementType()));
        continue;
      }
      tensors.push_back(bufferization::ToTensorOp::create(
          rewriter, func.getLoc(), t, newEntry->getArgument(i),
          /*restrict=*/true, /*writable=*/false));
    }
    rewriter.mergeBlocks(oldEntry, newEntry, tensors);

    ValueRange outBuffers =
        newEntry->getArguments().drop_front(type.getNumInputs());
    SmallVector<func::ReturnOp> returns;
    entry.walk([&](func::ReturnOp op) { returns.push_back(op); });
    for (func::ReturnOp ret : returns) {
      rewriter.setInsertionPoint(ret);
      for (auto [value, buffer] : llvm::zip(ret.getOperands(), outBuffers)) {
        if (isEmpty(value.getType()))
          continue;
        bufferization::MaterializeInDestinationOp::create(
            rewriter, ret.getLoc(), Type(), value, buffer, /*restrict=*/true,
            /*writable=*/true);
      }
      rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);
    }
    rewriter.eraseOp(func);
    return success();
  }
};

} // namespace
