//===- EntryABI.cpp - The entry function's buffer ABI ---------------------===//
//
// Rewrites the model function `(tensor...) -> (tensor...)` into
// `@tessel_model_main(memref inputs..., memref outputs...)`, the form the
// artifact's entry point calls with caller-owned buffers.
//
//===----------------------------------------------------------------------===//

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELENTRYABIPASS
#include "tessel/Conversion/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// `{name, type}` for one entry argument or result.
DictionaryAttr describeTensor(Builder &b, StringAttr name, Type type) {
  return b.getDictionaryAttr({b.getNamedAttr("name", name),
                              b.getNamedAttr("type", TypeAttr::get(type))});
}

StringAttr getNameOr(DictionaryAttr attrs, Builder &b, const Twine &fallback) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(kNameAttrName))
      return name;
  return b.getStringAttr(fallback);
}

struct TesselEntryABIPass
    : tessel::impl::TesselEntryABIPassBase<TesselEntryABIPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kEntryAttrName))
        entries.push_back(func);
    if (entries.size() != 1) {
      module.emitError() << "expected exactly one function marked '"
                         << kEntryAttrName << "', found " << entries.size();
      return signalPassFailure();
    }
    if (failed(rewriteEntry(module, entries.front())))
      signalPassFailure();
  }

  LogicalResult rewriteEntry(ModuleOp module, func::FuncOp func) {
    if (func.isExternal())
      return func.emitError() << "the entry function has no body";
    IRRewriter rewriter(func.getContext());
    FunctionType type = func.getFunctionType();
    SmallVector<Type> bufferTypes;
    SmallVector<Attribute> inputs, outputs;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        return func.emitError() << "entry argument " << i
                                << " must be a statically shaped tensor";
      bufferTypes.push_back(
          MemRefType::get(tensor.getShape(), tensor.getElementType()));
      inputs.push_back(describeTensor(
          rewriter, getNameOr(func.getArgAttrDict(i), rewriter, "input" + Twine(i)),
          tensor));
    }
    for (auto [i, t] : llvm::enumerate(type.getResults())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        return func.emitError() << "entry result " << i
                                << " must be a statically shaped tensor";
      bufferTypes.push_back(
          MemRefType::get(tensor.getShape(), tensor.getElementType()));
      outputs.push_back(describeTensor(
          rewriter,
          getNameOr(func.getResultAttrDict(i), rewriter, "output" + Twine(i)),
          tensor));
    }
    StringAttr modelName = module->getAttrOfType<StringAttr>(kModelNameAttrName);
    if (!modelName)
      modelName = rewriter.getStringAttr(func.getSymName());
    module->setAttr(kSignatureAttrName,
                    rewriter.getDictionaryAttr(
                        {rewriter.getNamedAttr("name", modelName),
                         rewriter.getNamedAttr("inputs",
                                               rewriter.getArrayAttr(inputs)),
                         rewriter.getNamedAttr(
                             "outputs", rewriter.getArrayAttr(outputs))}));

    // The new function takes over the body.
    rewriter.setInsertionPoint(func);
    auto entry = func::FuncOp::create(
        rewriter, func.getLoc(), kEntryFunctionName,
        rewriter.getFunctionType(bufferTypes, {}));
    Block *oldEntry = &func.getBody().front();
    rewriter.inlineRegionBefore(func.getBody(), entry.getBody(),
                                entry.getBody().end());
    Block *newEntry = rewriter.createBlock(
        &entry.getBody(), entry.getBody().begin(), bufferTypes,
        SmallVector<Location>(bufferTypes.size(), func.getLoc()));
    SmallVector<Value> tensors;
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      tensors.push_back(bufferization::ToTensorOp::create(
          rewriter, func.getLoc(), t, newEntry->getArgument(i),
          /*restrict=*/true, /*writable=*/false));
    rewriter.mergeBlocks(oldEntry, newEntry, tensors);

    ValueRange outBuffers =
        newEntry->getArguments().drop_front(type.getNumInputs());
    SmallVector<func::ReturnOp> returns;
    entry.walk([&](func::ReturnOp op) { returns.push_back(op); });
    for (func::ReturnOp ret : returns) {
      rewriter.setInsertionPoint(ret);
      for (auto [value, buffer] : llvm::zip(ret.getOperands(), outBuffers))
        bufferization::MaterializeInDestinationOp::create(
            rewriter, ret.getLoc(), Type(), value, buffer, /*restrict=*/true,
            /*writable=*/true);
      rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);
    }
    rewriter.eraseOp(func);
    return success();
  }
};

} // namespace
