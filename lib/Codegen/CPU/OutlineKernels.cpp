//===- OutlineKernels.cpp - One function per distinct kernel ------------===//
//
// Moves each top-level loop nest of the entry function into a function of
// its own and lets identical nests share one. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Conversion/EntryABI.h"

#include "NodeNames.h"
#include "ParallelMarks.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELOUTLINEKERNELSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Whether `op` is cloned into the kernel instead of being an argument.
bool isClonable(Operation *op) {
  return op && op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         (op->hasTrait<OpTrait::ConstantLike>() || isa<ub::PoisonOp>(op));
}

/// The text that identifies a kernel: the function printed without
/// locations under a fixed name.
std::string kernelKey(func::FuncOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  kernel.print(os, OpPrintingFlags().enableDebugInfo(false).useLocalScope());
  return key;
}

struct OutlineKernelsPass
    : tessel::impl::TesselOutlineKernelsPassBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto entry = module.lookupSymbol<func::FuncOp>(kEntryFunctionName);
    if (!entry || entry.isExternal())
      return;
    SmallVector<scf::ForOp> nests;
    for (Block &block : entry.getBody())
      for (Operation &op : block)
        if (auto loop = dyn_cast<scf::ForOp>(op);
            loop && loop.getNumResults() == 0)
          nests.push_back(loop);
    llvm::StringMap<func::FuncOp> kernels;
    unsigned counter = 0;
    for (scf::ForOp nest : nests)
      outline(module, nest, kernels, counter);
  }

  void outline(ModuleOp module, scf::ForOp nest,
               llvm::StringMap<func::FuncOp> &kernels, unsigned &counter) {
    // What the nest reads from outside, in the order it first uses it.
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(nest.getRegion(), above);
    above.insert_range(nest->getOperands());
    SmallVector<Value> arguments;
    for (Value v : above) {
      if (isClonable(v.getDefiningOp()))
        continue;
      // The call passes memrefs as bare pointers: their types must say all
      // the rest (static shape, strides and offset).
      if (auto memref = dyn_cast<BaseMemRefType>(v.getType());
          memref && !LLVMTypeConverter::canConvertToBarePtr(memref))
        return;
      arguments.push_back(v);
    }
    SmallVector<Type> types = llvm::to_vector(
        llvm::map_range(arguments, [](Value v) { return v.getType(); }));

    MLIRContext *ctx = module.getContext();
    Location loc = nest.getLoc();
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto kernel = func::FuncOp::create(mb, loc, "tessel_kernel",
                                       mb.getFunctionType(types, TypeRange()));
    kernel.setPrivate();
    kernel->setAttr(kKernelAttrName, UnitAttr::get(ctx));
    Block *block = kernel.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(block);
    IRMapping map;
    for (Value v : above)
      if (Operation *def = v.getDefiningOp(); isClonable(def))
        map.map(v, b.clone(*def)->getResult(0));
    for (auto [v, arg] : llvm::zip(arguments, block->getArguments()))
      map.map(v, arg);
    b.clone(*nest, map);
    func::ReturnOp::create(b, loc);

    // A kernel identical to an earlier one calls that one.
    auto [it, isNew] = kernels.try_emplace(kernelKey(kernel), kernel);
    if (!isNew) {
      kernel.erase();
      kernel = it->second;
    } else {
      kernel.setSymName(
          cpu::outlinedFunctionName(module, "tessel_kernel", nest, counter));
    }

    OpBuilder cb(nest);
    func::CallOp::create(cb, loc, kernel, arguments);
    nest->erase();
  }
};

} // namespace
