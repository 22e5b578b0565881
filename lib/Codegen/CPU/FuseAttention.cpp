//===- FuseAttention.cpp - One loop over the heads of an attention block --===//
//
// Fuses an attention block (the scores product, its scale and mask, the
// softmax, the value product, and the transposes that bring the heads to
// the front and back) into one loop over the heads: each iteration computes
// one head from its slices of the projections to its slice of the output,
// and the block is one kernel. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"
#include "tessel/Support/Remarks.h"

#include "KernelMarks.h"
#include "ParallelMarks.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELFUSEATTENTIONPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The batch loops of `op` when it is a static f32 contraction on tensors
/// with one result; empty otherwise.
SmallVector<unsigned> batchLoopsOf(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.hasDynamicShape() || !linalg::isaContractionOpInterface(op) ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    return {};
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return {};
  return SmallVector<unsigned>(dims->batch.begin(), dims->batch.end());
}

/// An attention block: the op whose loop over heads computes it (the value
/// product, or the one all-parallel op such as the transpose back to
/// [seq, heads, d] that consumes it), that op's tile sizes (1 along the
/// heads, whole otherwise), and the ops that may join its loop: every
/// structured op it reads, transitively, whose users are all in the block.
struct AttentionBlock {
  Operation *root = nullptr;
  SmallVector<int64_t> sizes;
  llvm::SetVector<Operation *> members; ///< without the root
  int64_t heads = 1;                    ///< iterations of the loop
};

/// The block around `product`, if it is a batched contraction that reads
/// (through ops only the block uses) another contraction and a reduction:
/// MatMul -> scale -> (mask add) -> Softmax -> MatMul.
std::optional<AttentionBlock> matchAttention(linalg::LinalgOp product) {
  SmallVector<unsigned> batch = batchLoopsOf(product);
  if (batch.empty())
    return std::nullopt;
  SmallVector<int64_t> ranges = product.getStaticLoopRanges();
  AttentionBlock block;
  for (unsigned d : batch)
    block.heads *= ranges[d];
  if (block.heads < 2)
    return std::nullopt;

  // Tile sizes of the product itself: 1 along its batch loops.
  AffineMap outMap =
      product.getIndexingMapMatchingResult(product->getResult(0));
  if (!outMap.isProjectedPermutation())
    return std::nullopt;
  block.root = product;
  for (unsigned d = 0; d < ranges.size(); ++d)
    block.sizes.push_back(llvm::is_contained(batch, d) ? 1 : 0);

  // A transpose (any all-parallel op reading the product with a
  // permutation) that alone consumes the product is the root instead: its
  // loops along the heads are the product's batch loops.
  Value result = product->getResult(0);
  if (result.hasOneUse()) {
    auto consumer = dyn_cast<linalg::LinalgOp>(*result.getUsers().begin());
    if (consumer && tessel::mayFuse(product, consumer) &&
        consumer->getNumResults() == 1 && consumer.hasPureTensorSemantics() &&
        !consumer.hasDynamicShape() && consumer.getNumReductionLoops() == 0 &&
        consumer.getNumDpsInputs() == 1 &&
        consumer.getDpsInputs()[0] == result) {
      AffineMap readMap =
          consumer.getMatchingIndexingMap(consumer.getDpsInputOperand(0));
      if (readMap.isPermutation()) {
        SmallVector<int64_t> sizes(consumer.getNumLoops(), 0);
        for (unsigned j = 0; j < readMap.getNumResults(); ++j) {
          unsigned consumerLoop =
              cast<AffineDimExpr>(readMap.getResult(j)).getPosition();
          unsigned productLoop =
              cast<AffineDimExpr>(outMap.getResult(j)).getPosition();
          sizes[consumerLoop] = llvm::is_contained(batch, productLoop) ? 1 : 0;
        }
        block.root = consumer;
        block.sizes = sizes;
        block.members.insert(product);
      }
    }
  }
  // Grow to a fixed point from the root: a structured producer joins once
  // all its users are in the block. (The root itself is no member.)
  Operation *root = block.root;
  auto inBlock = [&](Operation *op) {
    return op == root || block.members.contains(op);
  };
  SmallVector<Operation *> worklist = {root};
  worklist.append(block.members.begin(), block.members.end());
  for (size_t i = 0; i < worklist.size(); ++i) {
    for (Value operand : worklist[i]->getOperands()) {
      auto producer = operand.getDefiningOp<linalg::LinalgOp>();
      if (!producer || inBlock(producer) || !tessel::mayFuse(producer, root) ||
          producer->getNumResults() != 1 ||
          !producer.hasPureTensorSemantics() || producer.hasDynamicShape() ||
          !llvm::all_of(producer->getUsers(), inBlock))
        continue;
      block.members.insert(producer);
      worklist.push_back(producer);
    }
  }
  bool scores = false, reduction = false;
  for (Operation *member : block.members) {
    auto op = cast<linalg::LinalgOp>(member);
    if (op == product)
      continue;
    if (linalg::isaContractionOpInterface(op))
      scores = true;
    else if (op.getNumReductionLoops() > 0)
      reduction = true;
  }
  if (!scores || !reduction)
    return std::nullopt;
  return block;
}

struct FuseAttentionPass
    : tessel::impl::TesselFuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> products;
    func.walk([&](linalg::LinalgOp op) {
      if (!batchLoopsOf(op).empty())
        products.push_back(op);
    });
    llvm::DenseSet<Operation *> taken;
    // The last product of a block first: the scores product is a member of
    // its block, not a root.
    for (linalg::LinalgOp product : llvm::reverse(products)) {
      if (taken.contains(product))
        continue;
      std::optional<AttentionBlock> block = matchAttention(product);
      if (!block)
        continue;
      if (succeeded(fuse(rewriter, *block)))
        taken.insert(block->members.begin(), block->members.end());
    }
  }

  /// Tiles the block's root along the heads and fuses into that loop every
  /// member whose slice is one head's share (a member the loop would read
  /// whole, such as a mask shared by all heads, stays outside). Marks the
  /// fused ops as part of one kernel, records it, and erases the originals.
  LogicalResult fuse(RewriterBase &rewriter, const AttentionBlock &block) {
    MLIRContext *ctx = &getContext();
    Operation *root = block.root;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(ctx, block.sizes));
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(root), tiling);
    if (failed(tiled) || tiled->loops.empty() ||
        tiled->replacements.size() != 1)
      return failure();
    Operation *outer = tiled->loops.front().getOperation();
    llvm::SetVector<Operation *> parts(tiled->tiledOps.begin(),
                                       tiled->tiledOps.end());
    llvm::SetVector<Operation *> fusedOriginals;

    // Upstream's tile-and-fuse clones a producer once per slice read of it
    // (the scaled scores are read by the softmax's maximum and by its
    // subtraction): here equal slices of one value merge first, so each
    // member is computed once per head.
    while (std::optional<tensor::ExtractSliceOp> slice =
               nextSlice(rewriter, outer, block, fusedOriginals)) {
      std::optional<scf::SCFFuseProducerOfSliceResult> fusedProducer =
          scf::tileAndFuseProducerOfSlice(rewriter, *slice, tiled->loops);
      if (!fusedProducer ||
          fusedProducer->tiledAndFusedProducer.getType() != slice->getType())
        break;
      // The caller replaces the slice (as upstream's tile-and-fuse does).
      rewriter.replaceOp(*slice, fusedProducer->tiledAndFusedProducer);
      fusedOriginals.insert(fusedProducer->origProducer.getOwner());
      parts.insert(fusedProducer->tiledOps.begin(),
                   fusedProducer->tiledOps.end());
    }

    // An attention block still: both products and a reduction in the loop.
    int64_t products = 0, reductions = 0;
    for (Operation *part : parts) {
      auto op = dyn_cast<linalg::LinalgOp>(part);
      if (op && linalg::isaContractionOpInterface(op))
        ++products;
      else if (op && op.getNumReductionLoops() > 0)
        ++reductions;
    }
    if (products < 2 || reductions < 1) {
      if (outer->use_empty())
        rewriter.eraseOp(outer);
      return failure();
    }
    rewriter.replaceAllUsesWith(root->getResult(0), tiled->replacements[0]);

    // One kernel: the fused ops are its parts, vectorized by the passes
    // after this one without kernels of their own.
    SmallVector<Location> locs;
    for (Operation *member : llvm::reverse(block.members))
      if (fusedOriginals.contains(member))
        locs.push_back(member->getLoc());
    locs.push_back(root->getLoc());
    for (Operation *part : parts)
      part->setAttr(tessel::cpu::kInKernelAttr, UnitAttr::get(ctx));
    int64_t work = 0;
    for (Operation *member : fusedOriginals)
      if (auto op = dyn_cast<linalg::LinalgOp>(member);
          op && linalg::isaContractionOpInterface(op))
        work += tessel::cpu::workOf(op.getStaticLoopRanges());
    tessel::cpu::markParallel(outer, work);
    tessel::reportKernel(getOperation(), "attention",
                              FusedLoc::get(ctx, locs));

    // The originals are dead now: erase them, consumers first (members were
    // added after all their users), so that the vectorizers after this
    // pass do not see them.
    if (root->use_empty())
      rewriter.eraseOp(root);
    for (Operation *member : block.members)
      if (member->use_empty())
        rewriter.eraseOp(member);
    return success();
  }

  /// A slice in `loop` of a member of `block` that is one head's share,
  /// read by nothing outside the loop but the members already fused (and
  /// the root), after merging the slices equal to it in its block into it;
  /// none when no such slice is left.
  static std::optional<tensor::ExtractSliceOp>
  nextSlice(RewriterBase &rewriter, Operation *loop,
            const AttentionBlock &block,
            const llvm::SetVector<Operation *> &fused) {
    SmallVector<tensor::ExtractSliceOp> slices;
    loop->walk([&](tensor::ExtractSliceOp slice) { slices.push_back(slice); });
    for (tensor::ExtractSliceOp slice : slices) {
      auto producer = dyn_cast<OpResult>(slice.getSource());
      if (!producer || !block.members.contains(producer.getOwner()))
        continue;
      auto whole = cast<RankedTensorType>(producer.getType());
      RankedTensorType part = slice.getResultType();
      if (!part.hasStaticShape() ||
          part.getNumElements() * block.heads != whole.getNumElements())
        continue;
      // Fused before all its readers are, it would be fused again (and
      // computed twice) for the next one.
      Operation *root = block.root;
      bool readersFused = llvm::all_of(producer.getUsers(), [&](Operation *u) {
        return u == root || fused.contains(u) ||
               (isa<tensor::ExtractSliceOp>(u) && loop->isAncestor(u));
      });
      if (!readersFused)
        continue;
      // Walk order: `slice` comes first in its block among its equals.
      for (tensor::ExtractSliceOp other : slices) {
        if (other == slice || other->getBlock() != slice->getBlock() ||
            other.getSource() != slice.getSource() ||
            other.getType() != slice.getType() ||
            other.getMixedOffsets() != slice.getMixedOffsets() ||
            other.getMixedSizes() != slice.getMixedSizes() ||
            other.getMixedStrides() != slice.getMixedStrides())
          continue;
        rewriter.replaceOp(other, slice.getResult());
      }
      return slice;
    }
    return std::nullopt;
  }
};

} // namespace
