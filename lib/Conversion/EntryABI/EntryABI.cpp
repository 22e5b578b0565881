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

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

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

  /// The tensor a result `value` reshapes (through expand_shape and
  /// collapse_shape ops, peeled in turn) and the output `buffer` viewed in
  /// its shape, the views built before `bodyStart` (the body's first op).
  /// Empty-tensor elimination follows no reshapes: a result written through one
  /// was computed into a buffer of its own and copied into the caller's.
  static std::pair<Value, Value> peelReshapes(RewriterBase &rewriter,
                                              Operation *bodyStart, Value value,
                                              Value buffer) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(bodyStart);
    while (true) {
      if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>();
          expand && expand.getSrcType().hasStaticShape()) {
        buffer =
            memref::CollapseShapeOp::create(rewriter, expand.getLoc(), buffer,
                                            expand.getReassociationIndices());
        value = expand.getSrc();
      } else if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
                 collapse && collapse.getSrcType().hasStaticShape()) {
        buffer = memref::ExpandShapeOp::create(
            rewriter, collapse.getLoc(),
            MemRefType::get(collapse.getSrcType().getShape(),
                            collapse.getSrcType().getElementType()),
            buffer, collapse.getReassociationIndices());
        value = collapse.getSrc();
      } else {
        return {value, buffer};
      }
    }
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
    Operation *bodyStart = &newEntry->front();
    SmallVector<func::ReturnOp> returns;
    entry.walk([&](func::ReturnOp op) { returns.push_back(op); });
    for (func::ReturnOp ret : returns) {
      for (auto [value, buffer] : llvm::zip(ret.getOperands(), outBuffers)) {
        if (isEmpty(value.getType()))
          continue;
        auto [source, destination] =
            peelReshapes(rewriter, bodyStart, value, buffer);
        rewriter.setInsertionPoint(ret);
        bufferization::MaterializeInDestinationOp::create(
            rewriter, ret.getLoc(), Type(), source, destination,
            /*restrict=*/true, /*writable=*/true);
      }
      rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);
    }
    rewriter.eraseOp(func);
    // A reshaped tensor.empty becomes an empty of the reshaped type, so that
    // an output written through a reshape of its kernel's empty init can
    // take the caller's buffer instead (empty-tensor elimination follows
    // no reshapes).
    RewritePatternSet patterns(entry.getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    walkAndApplyPatterns(entry, std::move(patterns));
    return success();
  }
};

} // namespace
