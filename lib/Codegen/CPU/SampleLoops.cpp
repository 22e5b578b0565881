//===- SampleLoops.cpp - Activation-heavy ops one sample at a time --------===//
//
// A batched model run layer by layer passes each layer the whole batch:
// its activations outgrow the core's L2 (MobileNetV2's 112 x 112 layers:
// 4.8 MB a sample, 38 MB at batch 8), and every layer reads its input
// back from memory. The kernels of the layers that read more activations
// than weights run instead in one loop over the samples, each iteration
// the whole chain for one sample, as at batch 1; the layers whose weights
// outweigh a sample's activations (the late convolutions, the classifier)
// run on the whole batch, each weight read once for all samples. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Codegen/KernelGroup.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"
#include "tessel/Support/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELSAMPLELOOPSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// How an op takes part in a loop over the samples: the batch it
/// iterates (its outermost dimension, of the same extent on every operand
/// that has it), and which operands it reads one sample of (its results
/// are all one sample each).
struct SampleAccess {
  int64_t batch = 0;
  SmallVector<bool> slicedOperands;
};

int64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return 0;
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementType().getIntOrFloatBitWidth(), 8);
}

/// Whether `value` is a batch of `batch` samples: dimension 0 of that
/// extent, and each sample at least a matrix ([N, C, H, W], [N, S, D]; the
/// rows of a rank-2 tensor are rows of a product or of a layer norm, which
/// run best together).
bool leadingExtent(Value value, int64_t batch) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() >= 3 && type.hasStaticShape() &&
         type.getDimSize(0) == batch;
}

/// A structured op on tensors whose outermost loop is parallel and indexes
/// only dimension 0 of the operands that read it, every result among them:
/// its iterations along that loop are independent samples.
std::optional<SampleAccess> linalgAccess(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op.getIteratorTypesArray().front() != utils::IteratorType::parallel)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t batch = ranges.front();
  if (batch <= 1 || ShapedType::isDynamic(batch))
    return std::nullopt;
  // A body that reads the sample's index would see 0 in every iteration.
  bool readsSample = false;
  op->walk([&](linalg::IndexOp index) { readsSample |= index.getDim() == 0; });
  if (readsSample)
    return std::nullopt;
  SampleAccess access;
  access.batch = batch;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool sliced = false;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(0))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (i != 0 || !dim || !leadingExtent(operand.get(), batch))
        return std::nullopt;
      sliced = true;
    }
    if (op.isDpsInit(&operand) && !sliced)
      return std::nullopt;
    access.slicedOperands.push_back(sliced);
  }
  return access;
}

/// An op that keeps dimension 0 whole and apart from the others.
std::optional<SampleAccess> tensorAccess(Operation *op) {
  auto all = [&](Value source, Value result) -> std::optional<SampleAccess> {
    auto type = cast<RankedTensorType>(source.getType());
    if (type.getRank() == 0 || type.getDimSize(0) <= 1 ||
        !leadingExtent(source, type.getDimSize(0)) ||
        !leadingExtent(result, type.getDimSize(0)))
      return std::nullopt;
    SampleAccess access;
    access.batch = type.getDimSize(0);
    for (Value operand : op->getOperands())
      access.slicedOperands.push_back(
          isa<RankedTensorType>(operand.getType()));
    return access;
  };
  auto wholeFirst = [](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                       ArrayRef<int64_t> strides, int64_t extent) {
    return !offsets.empty() && offsets[0] == 0 && sizes[0] == extent &&
           strides[0] == 1;
  };
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    if (pad.getStaticLow().empty() || pad.getStaticLow()[0] != 0 ||
        pad.getStaticHigh()[0] != 0)
      return std::nullopt;
    // A padding value computed from the sample's index.
    if (pad.getRegion().getNumArguments() > 0 &&
        !pad.getRegion().getArgument(0).use_empty())
      return std::nullopt;
    return all(pad.getSource(), pad.getResult());
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    if (collapse.getReassociationIndices().front().size() != 1)
      return std::nullopt;
    return all(collapse.getSrc(), collapse.getResult());
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    if (expand.getReassociationIndices().front().size() != 1)
      return std::nullopt;
    return all(expand.getSrc(), expand.getResult());
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    int64_t extent = slice.getSourceType().getDimSize(0);
    if (slice.getResultType().getRank() != slice.getSourceType().getRank() ||
        !wholeFirst(slice.getStaticOffsets(), slice.getStaticSizes(),
                    slice.getStaticStrides(), extent))
      return std::nullopt;
    return all(slice.getSource(), slice.getResult());
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    int64_t extent = insert.getDestType().getDimSize(0);
    if (insert.getSourceType().getRank() != insert.getDestType().getRank() ||
        !wholeFirst(insert.getStaticOffsets(), insert.getStaticSizes(),
                    insert.getStaticStrides(), extent) ||
        !leadingExtent(insert.getSource(), extent))
      return std::nullopt;
    return all(insert.getDest(), insert.getResult());
  }
  return std::nullopt;
}

std::optional<SampleAccess> sampleAccess(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgAccess(linalgOp);
  return tensorAccess(op);
}

/// Ops every loop may read from outside: constants, and the empty tensors
/// the ops inside write (each iteration makes its own sample's).
bool isFree(Operation *op) {
  return isa<arith::ConstantOp, tensor::EmptyOp>(op);
}

/// The bytes `op` reads and writes for the whole batch: its activations
/// (the operands it slices, but for its outputs' initial values, and its
/// results) and its weights (the operands it reads whole for every
/// sample).
struct BatchBytes {
  int64_t activations = 0, weights = 0;
};
BatchBytes batchBytes(Operation *op, const SampleAccess &access) {
  BatchBytes bytes;
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (!(dps && dps.isDpsInit(&op->getOpOperand(i))))
      (access.slicedOperands[i] ? bytes.activations : bytes.weights) +=
          bytesOf(operand.getType());
  for (Value result : op->getResults())
    bytes.activations += bytesOf(result.getType());
  return bytes;
}

/// Whether a product (an op with a reduction loop) reads more bytes of
/// weights than of one sample's activations: it then runs on the whole
/// batch, each weight read once for all samples.
bool weightsOutweighSample(Operation *op, const SampleAccess &access) {
  BatchBytes bytes = batchBytes(op, access);
  return bytes.weights > bytes.activations / access.batch;
}

/// A stretch runs one sample at a time only when one of its ops reads and
/// writes more than this for the whole batch: below, the batch's
/// activations stay in the core's L2 (1-2 MiB on the CPUs measured) from
/// one layer to the next anyway, and the ops of the whole batch make
/// larger kernels (ones that split across threads).
constexpr int64_t kCachedActivationBytes = int64_t(1) << 20;

bool isProduct(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// `value`'s type with dimension 0 of extent 1.
RankedTensorType oneSample(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = 1;
  return tensor.clone(shape);
}

/// Offsets, sizes and strides of one sample `n` of a tensor of `type`.
struct SampleSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SampleSlice(OpBuilder &b, RankedTensorType type, Value n) {
    offsets.assign(type.getRank(), b.getIndexAttr(0));
    offsets[0] = n;
    for (int64_t extent : type.getShape())
      sizes.push_back(b.getIndexAttr(extent));
    sizes[0] = b.getIndexAttr(1);
    strides.assign(type.getRank(), b.getIndexAttr(1));
  }
};

/// Sample `n` of the batch `tensor`.
Value extractSample(OpBuilder &b, Location loc, Value tensor, Value n) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SampleSlice at(b, type, n);
  return tensor::ExtractSliceOp::create(b, loc, oneSample(type), tensor,
                                        at.offsets, at.sizes, at.strides);
}

/// `op` for one sample: its sliced operands from `operands`, its results
/// one sample each.
Operation *cloneForSample(OpBuilder &b, Operation *op,
                          ArrayRef<Value> operands) {
  Location loc = op->getLoc();
  Operation *clone = nullptr;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    clone = tensor::ExpandShapeOp::create(
        b, loc, oneSample(expand.getResultType()), operands[0],
        expand.getReassociationIndices());
  } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    sizes[0] = b.getIndexAttr(1);
    clone = tensor::ExtractSliceOp::create(
        b, loc, oneSample(slice.getResultType()), operands[0],
        slice.getMixedOffsets(), sizes, slice.getMixedStrides());
  } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
    sizes[0] = b.getIndexAttr(1);
    clone = tensor::InsertSliceOp::create(b, loc, operands[0], operands[1],
                                          insert.getMixedOffsets(), sizes,
                                          insert.getMixedStrides());
  } else {
    IRMapping mapping;
    mapping.map(op->getOperands(), operands);
    clone = b.clone(*op, mapping);
    for (OpResult result : clone->getResults())
      result.setType(oneSample(result.getType()));
    return clone;
  }
  clone->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  return clone;
}

/// Rewrites the ops of `run` (program order, contiguous but for free ops)
/// as one loop over their `batch` samples, inserted after the last. A pad
/// or reshape that only ops after the loop read moves after it instead
/// (it writes no destination: in the loop, its sample would be copied into
/// the loop's result).
void buildSampleLoop(SmallVector<Operation *> run,
                     const DenseMap<Operation *, SampleAccess> &accesses,
                     int64_t batch) {
  DenseSet<Operation *> members(run.begin(), run.end());
  SmallVector<Operation *> after;
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : llvm::reverse(run)) {
      if (!isa<tensor::PadOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
               tensor::ExtractSliceOp>(op) ||
          llvm::any_of(op->getUsers(), [&](Operation *user) {
            return members.contains(user);
          }))
        continue;
      members.erase(op);
      after.push_back(op);
      changed = true;
    }
    llvm::erase_if(run, [&](Operation *op) { return !members.contains(op); });
  }
  // (Program order, for the ops moved after the loop. Products stay in the
  // run: it still holds one.)
  llvm::sort(after, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  Operation *last = run.back();
  // The values read after the loop: its results.
  SmallVector<Value> escaping;
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        escaping.push_back(result);
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = run.front()->getLoc();
  SmallVector<Value> inits;
  for (Value value : escaping) {
    auto type = cast<RankedTensorType>(value.getType());
    inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType()));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, batch);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, upper, one, inits,
      [&](OpBuilder &nb, Location nloc, Value n, ValueRange outs) {
        IRMapping inside;
        DenseMap<Value, Value> sampleEmpties;
        // The loop's result each escaping value is inserted into: an op
        // that writes it into an empty tensor writes the result's sample
        // instead (the insertion is then in place).
        DenseMap<Value, Value> outOf;
        for (auto [value, out] : llvm::zip(escaping, outs))
          outOf[value] = out;
        for (Operation *op : run) {
          const SampleAccess &access = accesses.lookup(op);
          auto dps = dyn_cast<DestinationStyleOpInterface>(op);
          SmallVector<Value> operands;
          for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
            if (Value mapped = inside.lookupOrNull(operand)) {
              operands.push_back(mapped);
              continue;
            }
            OpOperand &use = op->getOpOperand(i);
            if (dps && dps.isDpsInit(&use) &&
                operand.getDefiningOp<tensor::EmptyOp>())
              if (Value out = outOf.lookup(dps.getTiedOpResult(&use))) {
                operands.push_back(extractSample(nb, nloc, out, n));
                continue;
              }
            if (!access.slicedOperands[i]) {
              operands.push_back(operand);
              continue;
            }
            if (operand.getDefiningOp<tensor::EmptyOp>()) {
              Value &empty = sampleEmpties[operand];
              if (!empty) {
                RankedTensorType type = oneSample(operand.getType());
                empty = tensor::EmptyOp::create(nb, nloc, type.getShape(),
                                                type.getElementType());
              }
              operands.push_back(empty);
              continue;
            }
            operands.push_back(extractSample(nb, nloc, operand, n));
          }
          Operation *clone = cloneForSample(nb, op, operands);
          inside.map(op->getResults(), clone->getResults());
        }
        SmallVector<Value> yields;
        for (auto [value, out] : llvm::zip(escaping, outs)) {
          SampleSlice at(nb, cast<RankedTensorType>(value.getType()), n);
          yields.push_back(tensor::InsertSliceOp::create(
              nb, nloc, inside.lookup(value), out, at.offsets, at.sizes,
              at.strides));
        }
        scf::YieldOp::create(nb, nloc, yields);
      });
  for (auto [value, result] : llvm::zip(escaping, loop.getResults()))
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  // The compile report's `sample_loops`: the nodes the loop runs.
  SmallVector<Location> locations;
  for (Operation *op : run)
    locations.push_back(op->getLoc());
  remark::passed(FusedLoc::get(loop->getContext(), locations),
                 tessel::remarkOptions(tessel::kSampleLoopRemark, loop))
      << remark::metric("samples", batch)
      << remark::metric("ops", int64_t(run.size()));
  for (Operation *op : llvm::reverse(run))
    op->erase();
  Operation *previous = loop;
  for (Operation *op : after) {
    op->moveAfter(previous);
    previous = op;
  }
}

struct SampleLoopsPass
    : tessel::impl::TesselSampleLoopsPassBase<SampleLoopsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    // Each op's access, and the ops and fusion groups that run on the
    // whole batch: those of an op that cannot run one sample at a time, or
    // of a product whose weights outweigh a sample's activations, with the
    // product's prologue and epilogue (a kernel's parts go where its
    // product goes, grouped or not).
    DenseMap<Operation *, SampleAccess> accesses;
    DenseSet<int64_t> wholeBatchGroups;
    DenseSet<Operation *> wholeBatchOps;
    // Samples are what the model's inputs batch: an outermost dimension of
    // another extent (a sequence-first attention's [S, N, D]) is not one.
    DenseSet<int64_t> modelBatches;
    for (Type type : func.getArgumentTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && tensor.getRank() > 0)
        modelBatches.insert(tensor.getDimSize(0));
    for (Operation &op : body) {
      if (isFree(&op))
        continue;
      std::optional<SampleAccess> access = sampleAccess(&op);
      if (access && !modelBatches.contains(access->batch))
        access.reset();
      bool whole = !access ||
                   (isProduct(&op) && weightsOutweighSample(&op, *access));
      if (!whole) {
        accesses[&op] = *access;
        continue;
      }
      if (std::optional<int64_t> group = tessel::getFusionGroup(&op))
        wholeBatchGroups.insert(*group);
      if (auto root = dyn_cast<linalg::LinalgOp>(op)) {
        if (linalg::LinalgOp prologue = tessel::getKernelPrologue(root))
          wholeBatchOps.insert(prologue);
        if (op.getNumResults() == 1)
          if (linalg::GenericOp epilogue =
                  tessel::getKernelEpilogue(&op, op.getResult(0)))
            wholeBatchOps.insert(epilogue);
      }
    }
    auto runsOnWholeBatch = [&](Operation *op) {
      std::optional<int64_t> group = tessel::getFusionGroup(op);
      return !accesses.contains(op) || wholeBatchOps.contains(op) ||
             (group && wholeBatchGroups.contains(*group));
    };
    // Runs: the longest stretches of ops that can run one sample at a
    // time, of one batch; worth a loop when they hold a product and their
    // activations outgrow the cache.
    SmallVector<SmallVector<Operation *>> runs;
    SmallVector<int64_t> batches;
    SmallVector<Operation *> current;
    int64_t currentBatch = 0;
    auto close = [&] {
      bool large = llvm::any_of(current, [&](Operation *op) {
        return batchBytes(op, accesses.lookup(op)).activations >
               kCachedActivationBytes;
      });
      if (large && llvm::any_of(current, isProduct)) {
        runs.push_back(current);
        batches.push_back(currentBatch);
      }
      current.clear();
    };
    for (Operation &op : body) {
      if (isFree(&op))
        continue;
      if (runsOnWholeBatch(&op)) {
        close();
        continue;
      }
      int64_t batch = accesses.lookup(&op).batch;
      if (!current.empty() && batch != currentBatch)
        close();
      currentBatch = batch;
      current.push_back(&op);
    }
    close();
    for (auto [run, batch] : llvm::zip(runs, batches))
      buildSampleLoop(run, accesses, batch);
  }
};

} // namespace
