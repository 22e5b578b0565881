//===- PlanMemory.cpp - Intermediate buffers in one reused workspace ------===//
//
// Places the entry function's top-level static buffers in one workspace
// that the runtime allocates once per session, reusing bytes between
// buffers whose lifetimes do not overlap. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Conversion/EntryABI.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"

#include "ParallelMarks.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <functional>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPLANMEMORYPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

constexpr int64_t kAlignment = 64;

/// One buffer to place: its live range in entry-block positions.
struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes;
  unsigned first, last;
  int64_t offset = -1;
};

/// The byte size of a static buffer of int or float elements whose width is
/// a whole number of bytes, or nullopt.
std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace())
    return std::nullopt;
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return type.getNumElements() * (element.getIntOrFloatBitWidth() / 8);
}

/// Calls `visit` on every op that uses `alloc`'s buffer: its users, and the
/// users of every memref they return (views, casts, region results; with
/// `throughTerminators`, also the results of the op whose region a
/// terminator yields it from). Stops at, and returns, the first false.
bool forEachBufferUser(memref::AllocOp alloc, bool throughTerminators,
                       llvm::function_ref<bool(Operation *)> visit) {
  SmallVector<Value> worklist = {alloc.getResult()};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (!visit(user))
        return false;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
      if (throughTerminators && user->hasTrait<OpTrait::IsTerminator>())
        if (Operation *parent = user->getParentOp())
          for (Value result : parent->getResults())
            if (isa<BaseMemRefType>(result.getType()))
              worklist.push_back(result);
    }
  }
  return true;
}

/// Every op of the entry function numbered in program order (nested ops
/// after their parent), with the last number inside each op.
struct Positions {
  DenseMap<Operation *, unsigned> at, end;

  explicit Positions(func::FuncOp func) {
    unsigned next = 0;
    std::function<void(Operation *)> visit = [&](Operation *op) {
      at[op] = next++;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &inner : block)
            visit(&inner);
      end[op] = next - 1;
    };
    visit(func);
  }
};

/// The positions between which `alloc`'s memory (through any value derived
/// from it) is in use, as seen from its own block `home`: a use inside an
/// op of `home` (a loop) holds it for all of that op. A buffer allocated
/// in a loop's body and living within one iteration is thus in use from
/// its first to its last use in the body, and may share bytes with another
/// buffer of the same body used before or after it. Nullopt if it may
/// escape the function.
std::optional<std::pair<unsigned, unsigned>>
liveRange(memref::AllocOp alloc, Block *home, const Positions &positions) {
  auto at = positions.at.find(alloc);
  unsigned first = at == positions.at.end() ? ~0u : at->second;
  unsigned last = at == positions.at.end() ? 0 : at->second;
  bool local = forEachBufferUser(
      alloc, /*throughTerminators=*/true, [&](Operation *user) {
        if (isa<func::ReturnOp, func::CallOp>(user))
          return false;
        Operation *top = home->findAncestorOpInBlock(*user);
        if (!top || !positions.at.count(top))
          return false;
        first = std::min(first, positions.at.lookup(top));
        last = std::max(last, positions.end.lookup(top));
        return true;
      });
  if (!local || first > last)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// Places `buffers` first fit, largest first: each takes the lowest offset
/// that overlaps no placed buffer alive at the same time. Returns the bytes
/// they take.
int64_t placeFirstFit(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order,
                    [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  int64_t total = 0;
  SmallVector<Buffer *> placed;
  for (Buffer *buffer : order) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : placed)
      if (other->first <= buffer->last && buffer->first <= other->last)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer->bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    buffer->offset = offset;
    total = std::max(total, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return total;
}

/// Whether nothing derived from `alloc` (views, casts) leaves the region
/// iteration that allocates it: no terminator yields it, no call or return
/// takes it.
bool staysInIteration(memref::AllocOp alloc) {
  return forEachBufferUser(alloc, /*throughTerminators=*/false,
                           [](Operation *user) {
                             return !user->hasTrait<OpTrait::IsTerminator>() &&
                                    !isa<CallOpInterface>(user);
                           });
}

/// Moves each static allocation inside loops of the entry block whose
/// buffer lives within one iteration to the entry block, just before the
/// top-level op around it: one buffer for all iterations instead of a
/// malloc and a free in each (tessel-fuse-attention's loop over heads
/// allocates its per-head scores). Loops marked `tessel.parallel` keep
/// theirs: their iterations run at the same time on different threads.
void hoistLoopAllocations(Block &entry) {
  SmallVector<memref::AllocOp> allocs;
  for (Operation &top : entry)
    if (top.getNumRegions() != 0)
      top.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    if (!staticBytes(alloc.getType()) || alloc->getNumOperands() != 0)
      continue;
    bool parallel = false, loops = true;
    for (Operation *parent = alloc->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (parent->getBlock() == nullptr || parent->getBlock() == &entry) {
        parallel |= parent->hasAttr(cpu::kParallelAttr);
        break;
      }
      parallel |= parent->hasAttr(cpu::kParallelAttr);
      loops &= isa<scf::ForOp>(parent);
    }
    Operation *top = entry.findAncestorOpInBlock(*alloc);
    if (parallel || !loops || !top || !isa<scf::ForOp>(top) ||
        !staysInIteration(alloc))
      continue;
    alloc->moveBefore(top);
  }
}

/// The most bytes one parallel loop's slices may take: past it, the
/// iterations' buffers are large enough that allocating them costs little
/// next to the work on them.
constexpr int64_t kMaxSlicedBytes = int64_t(64) << 20;

int64_t alignUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// Gives each iteration of a top-level loop marked `tessel.parallel` (with
/// constant bounds) its own slice of one buffer allocated before the loop,
/// for every static allocation in the loop's body, or in sequential loops
/// there, whose buffer lives within one iteration of the loop around it
/// (up to kMaxSlicedBytes in all; a product's register tile of i32 sums
/// before its requantization, allocated per tile, was a malloc and a free
/// per tile, 7% of an INT8 MobileNetV2). Iterations
/// that run at the same time on
/// different threads touch different slices, and the buffer, top-level,
/// goes into the workspace: no allocation per iteration.
/// (tessel-fuse-attention's loop over heads allocates each head's
/// transposed operands and scores, 176 KiB on the BERT-like encoder: a
/// malloc and free per head, and glibc handed the memory back and faulted
/// it in again every iteration.)
void sliceParallelAllocations(
    Block &entry, DenseMap<Operation *, std::pair<unsigned, unsigned>> &ranges,
    Positions &positions) {
  for (Operation &top : entry) {
    auto loop = dyn_cast<scf::ForOp>(&top);
    if (!loop || !loop->hasAttr(cpu::kParallelAttr))
      continue;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
      continue;
    int64_t trips = (*upper - *lower + *step - 1) / *step;
    SmallVector<Buffer> slices;
    loop.getBody()->walk([&](memref::AllocOp alloc) {
      if (alloc->getNumOperands() != 0)
        return;
      // In the body, or in sequential loops there (an iteration of those
      // reuses the slice the one before it left). A loop marked parallel
      // inside this one is sequential too when this one has two
      // iterations or more: tessel-parallelize-loops then runs this one on
      // the threads and drops the inner marks (with one, canonicalization
      // may remove this loop and leave the inner one outermost).
      for (Operation *parent = alloc->getParentOp(); parent != loop;
           parent = parent->getParentOp())
        if (!isa<scf::ForOp>(parent) ||
            (parent->hasAttr(cpu::kParallelAttr) && trips < 2))
          return;
      std::optional<int64_t> bytes = staticBytes(alloc.getType());
      if (!bytes || *bytes == 0 || !staysInIteration(alloc))
        return;
      // Within the iteration, buffers whose lifetimes (in the block that
      // allocates them) do not overlap share bytes; one of unknown
      // lifetime overlaps every other.
      auto range = ranges.find(alloc);
      slices.push_back({alloc, alignUp(*bytes),
                        range == ranges.end() ? 0u : range->second.first,
                        range == ranges.end() ? ~0u : range->second.second});
    });
    int64_t perIteration = alignUp(placeFirstFit(slices));
    if (slices.empty() || trips * perIteration > kMaxSlicedBytes)
      continue;
    Location loc = loop.getLoc();
    OpBuilder before(loop);
    auto bufferType =
        MemRefType::get({trips * perIteration}, before.getIntegerType(8));
    Value buffer = memref::AllocOp::create(
        before, loc, bufferType, before.getI64IntegerAttr(kAlignment));
    // The iteration's slice starts at (iv - lower) / step * perIteration.
    OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
    Value iteration = arith::DivUIOp::create(
        body, loc,
        arith::SubIOp::create(body, loc, loop.getInductionVar(),
                              loop.getLowerBound()),
        loop.getStep());
    Value base = arith::MulIOp::create(
        body, loc, iteration,
        arith::ConstantIndexOp::create(body, loc, perIteration));
    for (Buffer &slice : slices) {
      memref::AllocOp alloc = slice.alloc;
      OpBuilder b(alloc);
      Value at = arith::AddIOp::create(
          b, alloc.getLoc(), base,
          arith::ConstantIndexOp::create(b, alloc.getLoc(), slice.offset));
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                          buffer, at, ValueRange());
      alloc.replaceAllUsesWith(view);
      // (A later allocation may take the erased one's address.)
      ranges.erase(alloc);
      positions.at.erase(alloc);
      positions.end.erase(alloc);
      alloc.erase();
    }
  }
}

struct PlanMemoryPass : tessel::impl::TesselPlanMemoryPassBase<PlanMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(kEntryFunctionName);
    if (!func || func.isExternal())
      return;
    Block &entry = func.getBody().front();
    // Live ranges first, each from the block that allocates the buffer:
    // hoisting moves an allocation out of its loop, not its lifetime.
    Positions positions(func);
    DenseMap<Operation *, std::pair<unsigned, unsigned>> ranges;
    func.walk([&](memref::AllocOp alloc) {
      if (std::optional<std::pair<unsigned, unsigned>> range =
              liveRange(alloc, alloc->getBlock(), positions))
        ranges[alloc] = *range;
    });
    hoistLoopAllocations(entry);
    sliceParallelAllocations(entry, ranges, positions);

    SmallVector<Buffer> buffers;
    for (Operation &op : entry) {
      auto alloc = dyn_cast<memref::AllocOp>(&op);
      if (!alloc)
        continue;
      std::optional<int64_t> bytes = staticBytes(alloc.getType());
      if (!bytes || *bytes == 0)
        continue;
      // (A parallel loop's slices: a buffer made before the loop.)
      std::optional<std::pair<unsigned, unsigned>> range;
      if (auto known = ranges.find(alloc); known != ranges.end())
        range = known->second;
      else
        range = liveRange(alloc, &entry, positions);
      if (!range)
        continue;
      buffers.push_back({alloc, alignUp(*bytes), range->first, range->second});
    }

    int64_t workspaceBytes = placeFirstFit(buffers);
    if (buffers.empty())
      return;

    // The workspace is the entry function's last argument.
    MLIRContext *ctx = &getContext();
    auto workspaceType =
        MemRefType::get({workspaceBytes}, IntegerType::get(ctx, 8));
    if (failed(func.insertArgument(func.getNumArguments(), workspaceType,
                                   DictionaryAttr::get(ctx), func.getLoc())))
      return signalPassFailure();
    Value workspace = func.getArgument(func.getNumArguments() - 1);
    OpBuilder atEntry = OpBuilder::atBlockBegin(&entry);
    DenseMap<int64_t, Value> offsets;
    for (Buffer &buffer : buffers) {
      Location loc = buffer.alloc.getLoc();
      Value &offset = offsets[buffer.offset];
      if (!offset) {
        // At the block's start each time: the op the last insertion point
        // named may be an allocation erased below.
        atEntry.setInsertionPointToStart(&entry);
        offset = arith::ConstantIndexOp::create(atEntry, func.getLoc(),
                                                buffer.offset);
      }
      OpBuilder b(buffer.alloc);
      Value view = memref::ViewOp::create(b, loc, buffer.alloc.getType(),
                                          workspace, offset, ValueRange());
      buffer.alloc.replaceAllUsesWith(view);
      buffer.alloc.erase();
    }
    module->setAttr(
        kWorkspaceSizeAttrName,
        IntegerAttr::get(IntegerType::get(ctx, 64), workspaceBytes));
  }
};

} // namespace
