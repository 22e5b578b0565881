//===- ExposeNodeOutputs.cpp - Return every node's output too -------------===//
//
// tessel-compile --debug-outputs: the entry function also returns each model
// node's output, named debug:<node>, for tessel-compare's per-layer report.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "NodeNames.h"

#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELEXPOSENODEOUTPUTSPASS
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// A QDQ model's QuantizeLinear or DequantizeLinear: plumbing between the
/// layers, whose value a returned copy would keep unfolded from its product.
bool isQuantizationNode(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  auto opType =
      fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : StringAttr();
  return opType && (opType.getValue() == "QuantizeLinear" ||
                    opType.getValue() == "DequantizeLinear");
}

bool isComparable(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() > 0 &&
         isa<FloatType>(type.getElementType());
}

struct TesselExposeNodeOutputsPass
    : tessel::impl::TesselExposeNodeOutputsPassBase<
          TesselExposeNodeOutputsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(kEntryAttrName) || func.getBody().empty())
      return;
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return;
    // The last op carrying each node's name, in the order nodes first
    // appear; then sorted into program order.
    llvm::MapVector<StringRef, Operation *> lastOp;
    for (Operation &op : body.without_terminator()) {
      if (isa<ConstantOp>(op) || op.getNumResults() == 0 ||
          isQuantizationNode(op.getLoc()))
        continue;
      SmallVector<StringRef> names;
      collectNodeNames(op.getLoc(), names);
      if (!names.empty())
        lastOp[names.back()] = &op;
    }
    SmallVector<std::pair<StringRef, Operation *>> nodes(lastOp.begin(),
                                                         lastOp.end());
    llvm::stable_sort(nodes, [](const auto &a, const auto &b) {
      return a.second->isBeforeInBlock(b.second);
    });

    llvm::SmallPtrSet<Value, 8> returned(ret.getOperands().begin(),
                                         ret.getOperands().end());
    SmallVector<Value> results(ret.getOperands());
    SmallVector<std::string> names;
    for (auto [name, op] : nodes)
      for (OpResult result : op->getResults()) {
        if (!isComparable(result) || returned.contains(result))
          continue;
        results.push_back(result);
        // Every node the op computes, the last (whose output it is) last.
        SmallVector<StringRef> absorbed;
        collectNodeNames(op->getLoc(), absorbed);
        std::string debugName = ("debug:" + llvm::join(absorbed, "+"));
        if (result.getResultNumber() > 0)
          debugName += ":" + std::to_string(result.getResultNumber());
        names.push_back(std::move(debugName));
      }
    if (names.empty())
      return;

    unsigned first = ret.getNumOperands();
    OpBuilder b(ret);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    for (auto [i, name] : llvm::enumerate(names))
      func.setResultAttr(first + i, kNameAttrName, b.getStringAttr(name));
  }
};

} // namespace
