//===- ParallelizeLoops.cpp - Loops on the runtime's parallel_for ---------===//
//
// Outlines the body of every loop the code generators marked parallel into
// a function `void(ctx, begin, end)` and calls the runtime's parallel_for
// with it. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Conversion/EntryABI.h"

#include "NodeNames.h"
#include "ParallelMarks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPARALLELIZELOOPSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The LLVM type a captured value travels as: a memref's descriptor (what
/// the memref-to-LLVM conversion makes of it), i64 for an index, the
/// scalar or 1-D vector itself otherwise. Null when the value cannot travel.
Type travelType(Type type) {
  MLIRContext *ctx = type.getContext();
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!memref.getLayout().isIdentity() &&
        !isa<StridedLayoutAttr>(memref.getLayout()))
      return nullptr;
    if (memref.getMemorySpace())
      return nullptr;
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    SmallVector<Type> fields = {ptr, ptr, i64};
    if (memref.getRank() > 0) {
      auto array = LLVM::LLVMArrayType::get(i64, memref.getRank());
      fields.append({array, array});
    }
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  }
  if (isa<IndexType>(type))
    return IntegerType::get(ctx, 64);
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getRank() == 1 && !vector.isScalable() &&
                   isa<IntegerType, FloatType>(vector.getElementType())
               ? type
               : nullptr;
  if (isa<IntegerType, FloatType>(type))
    return type;
  return nullptr;
}

/// Whether `op` can be cloned into the outlined body instead of travelling.
bool isClonable(Operation *op) {
  return op && op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         (op->hasTrait<OpTrait::ConstantLike>() ||
          isa<ub::PoisonOp, memref::GetGlobalOp>(op));
}

struct ParallelizeLoopsPass
    : tessel::impl::TesselParallelizeLoopsPassBase<ParallelizeLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto entry = module.lookupSymbol<func::FuncOp>(kEntryFunctionName);
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(cpu::kParallelAttr))
        return;
      // Only the outermost marked loops of the entry and of its kernels
      // run in parallel; a marked loop inside one runs on the thread that
      // runs its iteration.
      auto function = loop->getParentOfType<func::FuncOp>();
      if (((entry && function == entry) ||
           (function && function->hasAttr(kKernelAttrName))) &&
          !hasMarkedAncestor(loop))
        loops.push_back(loop);
      else
        loop->removeAttr(cpu::kParallelAttr);
    });
    unsigned counter = 0;
    for (scf::ForOp loop : loops) {
      loop->removeAttr(cpu::kParallelAttr);
      outline(module, loop, counter);
    }
  }

  static bool hasMarkedAncestor(scf::ForOp loop) {
    for (Operation *p = loop->getParentOp(); p; p = p->getParentOp())
      if (p->hasAttr(cpu::kParallelAttr))
        return true;
    return false;
  }

  /// The thread-local slot the artifact's entry stores the runtime's
  /// services in (lib/Target/LLVM/Descriptor.cpp).
  static LLVM::GlobalOp servicesSlot(ModuleOp module) {
    if (auto slot = module.lookupSymbol<LLVM::GlobalOp>(kServicesSlotName))
      return slot;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(module.getContext());
    auto slot = LLVM::GlobalOp::create(
        b, module.getLoc(), ptr, /*isConstant=*/false, LLVM::Linkage::Internal,
        kServicesSlotName, Attribute(),
        /*alignment=*/8, /*addrSpace=*/0, /*dsoLocal=*/true,
        /*threadLocal=*/true);
    Block *init = b.createBlock(&slot.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value null = LLVM::ZeroOp::create(b, module.getLoc(), ptr);
    LLVM::ReturnOp::create(b, module.getLoc(), null);
    return slot;
  }

  void outline(ModuleOp module, scf::ForOp loop, unsigned &counter) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (loop.getNumResults() != 0 || !lower || !upper || !step || *step <= 0 ||
        *upper - *lower <= *step)
      return;
    int64_t trips = (*upper - *lower + *step - 1) / *step;

    // What the body reads from outside: constants are cloned, the rest
    // travels in a context struct.
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(loop.getRegion(), above);
    SmallVector<Value> captured;
    SmallVector<Type> fields;
    for (Value v : above) {
      if (isClonable(v.getDefiningOp()))
        continue;
      Type type = travelType(v.getType());
      if (!type)
        return; // Left sequential.
      captured.push_back(v);
      fields.push_back(type);
    }

    MLIRContext *ctx = module.getContext();
    Location loc = loop.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto i32 = IntegerType::get(ctx, 32);
    auto ctxType = LLVM::LLVMStructType::getLiteral(ctx, fields);

    // The body: void name(ptr ctx, i64 begin, i64 end), named after the
    // model nodes it computes when its ops' locations name them (profilers
    // and debuggers show the name).
    std::string name = cpu::outlinedFunctionName(module, "tessel_parallel_body",
                                                 loop, counter);
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto bodyType = mb.getFunctionType({ptr, i64, i64}, {});
    auto body = func::FuncOp::create(mb, loc, name, bodyType);
    body.setPrivate();
    Block *block = body.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(block);
    IRMapping map;
    for (Value v : above)
      if (Operation *def = v.getDefiningOp(); isClonable(def))
        map.map(v, b.clone(*def)->getResult(0));
    Value ctxArg = block->getArgument(0);
    for (auto [i, v] : llvm::enumerate(captured)) {
      Value slot = LLVM::GEPOp::create(
          b, loc, ptr, ctxType, ctxArg,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      Value loaded = LLVM::LoadOp::create(b, loc, fields[i], slot);
      Value value;
      if (isa<MemRefType>(v.getType()))
        value = UnrealizedConversionCastOp::create(b, loc, v.getType(), loaded)
                    .getResult(0);
      else if (isa<IndexType>(v.getType()))
        value = arith::IndexCastOp::create(b, loc, v.getType(), loaded);
      else
        value = loaded;
      map.map(v, value);
    }
    // Iterations [begin, end) of the original loop.
    auto toIndex = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
          .getResult();
    };
    Value stepValue = arith::ConstantIndexOp::create(b, loc, *step);
    Value lowerValue = arith::ConstantIndexOp::create(b, loc, *lower);
    Value from = arith::AddIOp::create(
        b, loc, lowerValue,
        arith::MulIOp::create(b, loc, toIndex(block->getArgument(1)),
                              stepValue));
    Value to = arith::MinSIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, lowerValue,
            arith::MulIOp::create(b, loc, toIndex(block->getArgument(2)),
                                  stepValue)),
        arith::ConstantIndexOp::create(b, loc, *upper));
    auto inner = scf::ForOp::create(b, loc, from, to, stepValue);
    map.map(loop.getInductionVar(), inner.getInductionVar());
    b.setInsertionPointToStart(inner.getBody());
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    b.setInsertionPointAfter(inner);
    func::ReturnOp::create(b, loc);

    // The call: services->parallel_for(services->runtime_ctx, 0, trips, 1,
    // body, &context).
    // The context lives in the entry block: an alloca inside a loop would
    // grow the stack at every iteration.
    auto entry = loop->getParentOfType<func::FuncOp>();
    OpBuilder eb = OpBuilder::atBlockBegin(&entry.getBody().front());
    Value one = LLVM::ConstantOp::create(eb, loc, i64, 1);
    Value context = LLVM::AllocaOp::create(eb, loc, ptr, ctxType, one);
    OpBuilder cb(loop);
    for (auto [i, v] : llvm::enumerate(captured)) {
      Value value = v;
      if (isa<MemRefType>(v.getType()))
        value = UnrealizedConversionCastOp::create(cb, loc, fields[i], v)
                    .getResult(0);
      else if (isa<IndexType>(v.getType()))
        value = arith::IndexCastOp::create(cb, loc, i64, v);
      Value slot = LLVM::GEPOp::create(
          cb, loc, ptr, ctxType, context,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(cb, loc, value, slot);
    }
    LLVM::GlobalOp slot = servicesSlot(module);
    Value slotAddress = LLVM::AddressOfOp::create(cb, loc, slot);
    Value services = LLVM::LoadOp::create(cb, loc, ptr, slotAddress);
    // tessel_runtime_services: {u32 struct_size, i32 num_threads,
    // ptr runtime_ctx, ptr parallel_for}.
    auto servicesType =
        LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, ptr, ptr});
    auto field = [&](int32_t index) {
      Value address = LLVM::GEPOp::create(cb, loc, ptr, servicesType, services,
                                          ArrayRef<LLVM::GEPArg>{0, index});
      return LLVM::LoadOp::create(cb, loc, ptr, address).getResult();
    };
    Value runtimeCtx = field(2);
    Value parallelFor = field(3);
    Value function = func::ConstantOp::create(
        cb, loc, bodyType, FlatSymbolRefAttr::get(ctx, name));
    Value functionPtr =
        UnrealizedConversionCastOp::create(cb, loc, ptr, function).getResult(0);
    Value zero = LLVM::ConstantOp::create(cb, loc, i64, 0);
    Value count = LLVM::ConstantOp::create(cb, loc, i64, trips);
    auto calleeType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(ctx), {ptr, i64, i64, i64, ptr, ptr});
    LLVM::CallOp::create(cb, loc, calleeType,
                         ValueRange{parallelFor, runtimeCtx, zero, count, one,
                                    functionPtr, context});
    loop->erase();
  }
};

} // namespace
