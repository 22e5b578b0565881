//===- VectorizeGenerics.cpp - Vector loops for elementwise and reductions ===//
//
// Tiles the structured ops the convolution and contraction vectorizers left
// (elementwise generics, reductions, fills, transposes, copies) into tiles
// of a few vector registers along their innermost loops, and vectorizes
// each tile. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"
#include "tessel/Dialect/Tessel/IR/FusionGroups.h"
#include "tessel/Support/Remarks.h"

#include "KernelMarks.h"
#include "ParallelMarks.h"
#include "TileSizes.h"
#include "VectorCleanup.h"
#include "VectorTypes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVECTORIZEGENERICSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Whether the body only computes: arith and math ops on its block
/// arguments, `linalg.index`, reads of single elements of other tensors
/// (`tensor.extract`: a Gather's rows, which vectorize as contiguous loads
/// or as vector gathers) and the yield (no nested regions).
bool hasComputeOnlyBody(linalg::LinalgOp op) {
  for (Operation &nested : op.getBlock()->getOperations()) {
    Dialect *dialect = nested.getDialect();
    if (nested.getNumRegions() != 0)
      return false;
    if (isa<linalg::YieldOp, linalg::IndexOp, tensor::ExtractOp>(nested))
      continue;
    if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect))
      return false;
  }
  return true;
}

/// Tile sizes for `op`: from the innermost loop outwards, whole loops while
/// the tile stays within `budget` elements, then the largest divisor of the
/// next loop that fits (a multiple of `lanes` if one divides it), then 1.
/// Returns an empty vector when nothing needs tiling (the whole op is one
/// tile).
SmallVector<int64_t> planTiles(linalg::LinalgOp op, int64_t budget,
                               int64_t lanes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> tiles(ranges.size(), 1);
  int64_t elements = 1;
  bool whole = true;
  for (int64_t d = int64_t(ranges.size()) - 1; d >= 0; --d) {
    int64_t range = ranges[d];
    if (elements * range <= budget) {
      tiles[d] = range;
      elements *= range;
      continue;
    }
    whole = false;
    // Whole vectors first: multiples of the vector width, largest first.
    int64_t limit = std::max<int64_t>(1, budget / elements);
    SmallVector<int64_t> preferred;
    for (int64_t k = limit / lanes; k >= 1; --k)
      preferred.push_back(k * lanes);
    tiles[d] = pickDivisor(range, preferred, limit);
    elements *= tiles[d];
    for (int64_t outer = d - 1; outer >= 0; --outer)
      tiles[outer] = 1;
    break;
  }
  if (whole)
    return {};
  return tiles;
}

/// An elementwise consumer that absorbs the reduction it reads (with no
/// other user, starting from a fill with no other user, its result read
/// with the consumer's identity map): tiled along its loops by the
/// reduction's tile sizes for the parallel dimensions its result follows,
/// the fill and the reduction fused into its loops. Global average pooling's
/// sum and division, say, become one loop nest.
/// The most vectors a tile of a reduction over outer loops reads (a 7x7
/// global average pooling channels last: 49).
constexpr int64_t kMaxOuterReductionTile = 64;

struct ReductionEpilogue {
  linalg::LinalgOp reduction;
  linalg::FillOp fill;
  SmallVector<int64_t> sizes; ///< the consumer's tile sizes
};

std::optional<ReductionEpilogue>
matchReductionEpilogue(linalg::LinalgOp consumer,
                       const llvm::DenseSet<Operation *> &candidates,
                       int64_t budget, int64_t lanes) {
  if (consumer.getNumReductionLoops() != 0 || consumer.getNumDpsInits() != 1)
    return std::nullopt;
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    auto reduction = operand->get().getDefiningOp<linalg::LinalgOp>();
    if (!reduction || !candidates.contains(reduction) ||
        !tessel::mayFuse(reduction, consumer) ||
        reduction.getNumReductionLoops() == 0 || !reduction->hasOneUse() ||
        reduction->getNumResults() != 1 ||
        !consumer.getMatchingIndexingMap(operand).isIdentity())
      continue;
    auto fill = reduction.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    AffineMap out =
        reduction.getIndexingMapMatchingResult(reduction->getResult(0));
    if (!fill || !fill->hasOneUse() || !out.isProjectedPermutation())
      continue;
    SmallVector<int64_t> ranges = reduction.getStaticLoopRanges();
    SmallVector<int64_t> sizes = planTiles(reduction, budget, lanes);
    if (sizes.empty())
      sizes = ranges;
    // The consumer needs whole reductions.
    SmallVector<utils::IteratorType> iterators =
        reduction.getIteratorTypesArray();
    bool whole = true;
    for (size_t d = 0; d < ranges.size(); ++d)
      whole &= iterators[d] != utils::IteratorType::reduction ||
               sizes[d] == ranges[d];
    if (!whole) {
      // Reductions over outer loops (channels last, global average pooling
      // sums [N, H, W, C] over H and W): tiles of the whole reduction
      // loops times one vector of the innermost (parallel) loop, when those
      // stay small.
      size_t inner = ranges.size() - 1;
      if (iterators[inner] != utils::IteratorType::parallel ||
          ranges[inner] % lanes != 0)
        continue;
      SmallVector<int64_t> outer(ranges.size(), 1);
      int64_t elements = lanes;
      for (size_t d = 0; d < inner; ++d)
        if (iterators[d] == utils::IteratorType::reduction) {
          outer[d] = ranges[d];
          elements *= ranges[d];
        }
      outer[inner] = lanes;
      if (elements > kMaxOuterReductionTile * lanes)
        continue;
      sizes = std::move(outer);
    }
    ReductionEpilogue epilogue{reduction, fill, {}};
    for (AffineExpr dim : out.getResults())
      epilogue.sizes.push_back(sizes[cast<AffineDimExpr>(dim).getPosition()]);
    return epilogue;
  }
  return std::nullopt;
}

/// A row-wise group (softmax, layer norm): an elementwise consumer, and the
/// elementwise ops, reductions and fills it reads (transitively) whose
/// every user is in the group, at least one reduction among them read
/// broadcast along the dimensions it reduced. The consumer is tiled with
/// those dimensions whole and the others by 1, and the group is fused into
/// its loops: per row, the reductions run over the row and the consumer
/// writes it, one kernel.
struct RowGroup {
  SmallVector<Operation *> members; ///< without the consumer
  SmallVector<int64_t> sizes;       ///< the consumer's tile sizes
};

std::optional<RowGroup>
matchRowGroup(linalg::LinalgOp consumer,
              const llvm::DenseSet<Operation *> &candidates,
              int64_t maxRowElements) {
  if (consumer.getNumReductionLoops() != 0 || consumer.getNumDpsInits() != 1 ||
      consumer->getNumResults() != 1 ||
      !isa<linalg::GenericOp>(consumer.getOperation()))
    return std::nullopt;
  // A group is all parts of a kernel already recorded (a softmax in
  // tessel-fuse-attention's loop over heads) or all kernels of their own.
  bool inKernel = consumer->hasAttr(tessel::cpu::kInKernelAttr);
  // Grow the group to a fixed point: a producer joins once all its users
  // are in it.
  llvm::SetVector<Operation *> group;
  group.insert(consumer);
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < group.size(); ++i) {
      auto op = cast<linalg::LinalgOp>(group[i]);
      for (OpOperand &operand : op->getOpOperands()) {
        Operation *producer = operand.get().getDefiningOp();
        if (!producer || group.contains(producer) ||
            !candidates.contains(producer) || producer->getNumResults() != 1 ||
            !tessel::mayFuse(producer, consumer) ||
            producer->hasAttr(tessel::cpu::kInKernelAttr) != inKernel ||
            !llvm::all_of(producer->getUsers(), [&](Operation *user) {
              return group.contains(user);
            }))
          continue;
        group.insert(producer);
        grew = true;
      }
    }
  }
  // The consumer's dimensions some group operand is read without: the
  // reduced ones, taken whole.
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  SmallVector<bool> whole(ranges.size(), false);
  bool broadcastReduction = false;
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    Operation *producer = operand->get().getDefiningOp();
    if (!producer || !group.contains(producer))
      continue;
    AffineMap map = consumer.getMatchingIndexingMap(operand);
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (!map.isFunctionOfDim(d)) {
        whole[d] = true;
        broadcastReduction = true;
      }
  }
  bool hasReduction = llvm::any_of(group, [](Operation *op) {
    return cast<linalg::LinalgOp>(op).getNumReductionLoops() > 0;
  });
  // Rows along the innermost (contiguous) dimension only: a reduction
  // across it would make each tile a strided column.
  if (!broadcastReduction || !hasReduction || !whole.back())
    return std::nullopt;
  RowGroup row;
  int64_t elements = 1, rows = 1;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    row.sizes.push_back(whole[d] ? ranges[d] : 1);
    elements *= row.sizes.back();
    rows *= whole[d] ? 1 : ranges[d];
  }
  if (elements > maxRowElements)
    return std::nullopt;
  // Each member works on whole rows (a reduction over the row's elements
  // for each row, an elementwise op per element or per row), so that
  // fusing it into a row's tile computes nothing twice across tiles (a
  // reduction over the rows would be recomputed in every tile).
  for (Operation *member : group) {
    auto op = cast<linalg::LinalgOp>(member);
    int64_t reduced = 1, kept = 1;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [range, iterator] :
         llvm::zip(op.getStaticLoopRanges(), iterators))
      (iterator == utils::IteratorType::reduction ? reduced : kept) *= range;
    bool fits = op.getNumReductionLoops() > 0
                    ? reduced == elements && kept == rows
                    : kept == rows * elements || kept == rows;
    if (!fits)
      return std::nullopt;
  }
  row.members.assign(group.begin() + 1, group.end());
  return row;
}

/// Vectorizes each of `tiles` in place; whether all of them were (a tile
/// left scalar stays a structured op).
bool vectorizeAll(RewriterBase &rewriter, ArrayRef<Operation *> tiles) {
  bool all = true;
  for (Operation *tile : tiles) {
    rewriter.setInsertionPoint(tile);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, tile, /*inputVectorSizes=*/{},
                          /*inputScalableVecDims=*/{},
                          /*vectorizeNDExtract=*/true);
    if (failed(vectorized)) {
      all = false;
      continue;
    }
    rewriter.replaceOp(tile, vectorized->replacements);
  }
  return all;
}

/// A name for the report: what kind of loop nest `op` became.
StringRef kernelKind(linalg::LinalgOp op) {
  if (isa<linalg::FillOp>(op.getOperation()))
    return "fill";
  if (isa<linalg::TransposeOp>(op.getOperation()))
    return "transpose";
  if (isa<linalg::CopyOp>(op.getOperation()))
    return "copy";
  if (op.getNumReductionLoops() > 0)
    return "reduction";
  return "elementwise";
}

/// Rewrites a static f32 `tensor.pad` by a constant into a fill of the
/// padded tensor and a `linalg.copy` of the source into its interior, both
/// of which this pass vectorizes. Bufferized as it is, a pad becomes a fill
/// and a strided `memref.copy`, which only scalar loops can lower.
void decomposePad(RewriterBase &rewriter, tensor::PadOp pad) {
  auto type = pad.getResultType();
  Value value = pad.getConstantPaddingValue();
  if (!type.hasStaticShape() || !pad.getSourceType().hasStaticShape() ||
      !cpu::isVectorFloat(type.getElementType()) ||
      !value ||
      !llvm::all_of(pad.getStaticLow(), [](int64_t v) { return v >= 0; }) ||
      !llvm::all_of(pad.getStaticHigh(), [](int64_t v) { return v >= 0; }))
    return;
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  Value filled =
      linalg::FillOp::create(rewriter, loc, value, empty).getResult(0);
  SmallVector<OpFoldResult> offsets = pad.getMixedLowPad();
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(
      rewriter.getContext(), pad.getSourceType().getShape());
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, filled,
                                                  offsets, sizes, strides);
  Value copied =
      linalg::CopyOp::create(rewriter, loc, pad.getSource(), interior)
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(pad, copied, filled,
                                                     offsets, sizes, strides);
}

/// An elementwise `op` whose innermost loop is longer than a vector and
/// not a multiple of one (a 120 x 120 feature map's rows: a vector<120>
/// tile, which LLVM split into scalars, 13x slower than onnxruntime) run
/// over its innermost loops collapsed into one, where every
/// operand reads them consecutively or not at all: an SE block's
/// [1, C, H, W] * [1, C, 1, 1] runs over [C, H*W]. Unit dimensions go first
/// (the broadcast operand's). Returns the op to tile: `op` when nothing
/// changed.
linalg::LinalgOp collapseInnerLoops(RewriterBase &rewriter,
                                    linalg::LinalgOp op, int64_t lanes) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // (An innermost loop shorter than a vector is left alone: collapsed,
  // a 7 x 7 map's 49 would not fill whole vectors either.)
  if (!generic || ranges.empty() || ranges.back() % lanes == 0 ||
      ranges.back() < lanes || op.getNumReductionLoops() != 0)
    return op;
  auto keepAttributes = [&](Operation *from, Operation *to) {
    for (NamedAttribute attr : from->getDiscardableAttrs())
      to->setAttr(attr.getName(), attr.getValue());
  };
  rewriter.setInsertionPoint(generic);
  linalg::ControlDropUnitDims control;
  if (FailureOr<linalg::DropUnitDimsResult> dropped =
          linalg::dropUnitDims(rewriter, generic, control);
      succeeded(dropped)) {
    auto result = dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
    if (!result)
      return op;
    keepAttributes(generic, result);
    rewriter.replaceOp(generic, dropped->replacements);
    generic = result;
  }
  unsigned numLoops = generic.getNumLoops();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  ReassociationIndices run = {int64_t(numLoops) - 1};
  for (int64_t d = int64_t(numLoops) - 2; d >= 0; --d) {
    ReassociationIndices longer = {d};
    llvm::append_range(longer, run);
    if (!linalg::areDimSequencesPreserved(maps, {longer}))
      break;
    run = longer;
  }
  if (run.size() < 2)
    return generic;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, loopGroups(numLoops, run),
                                      rewriter);
  if (failed(collapsed))
    return generic;
  keepAttributes(generic, collapsed->collapsedOp);
  rewriter.replaceOp(generic, collapsed->results);
  return collapsed->collapsedOp;
}

struct VectorizeGenericsPass
    : tessel::impl::TesselVectorizeGenericsPassBase<VectorizeGenericsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    int64_t lanes = std::max<int64_t>(1, vectorWidth);
    int64_t budget = maxVectorElements > 0 ? maxVectorElements : 8 * lanes;

    SmallVector<tensor::PadOp> pads;
    func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads)
      decomposePad(rewriter, pad);

    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (op->getNumResults() == 0 || !op.hasPureTensorSemantics() ||
          op.hasDynamicShape() || op.getNumLoops() == 0 ||
          !cpu::hasVectorTypes(op) || !hasComputeOnlyBody(op) ||
          linalg::isaContractionOpInterface(op) ||
          linalg::isaConvolutionOpInterface(op) ||
          failed(linalg::vectorizeOpPrecondition(
              op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
              /*vectorizeNDExtract=*/true)))
        return;
      candidates.push_back(op);
    });

    bool changed = false;
    llvm::DenseSet<Operation *> pending;
    for (linalg::LinalgOp op : candidates)
      pending.insert(op);
    if (fuseReductions) {
      // Row groups first, from the last consumer: a layer norm's mean
      // division would otherwise fuse into its sum alone.
      for (linalg::LinalgOp op : llvm::reverse(candidates)) {
        if (!pending.contains(op))
          continue;
        std::optional<RowGroup> row =
            matchRowGroup(op, pending, /*maxRowElements=*/4 * budget);
        if (row && succeeded(fuseRowGroup(rewriter, op, *row))) {
          pending.erase(op);
          for (Operation *member : row->members)
            pending.erase(member);
          changed = true;
        }
      }
      for (linalg::LinalgOp op : candidates) {
        if (!pending.contains(op))
          continue;
        std::optional<ReductionEpilogue> epilogue =
            matchReductionEpilogue(op, pending, budget, lanes);
        if (epilogue && succeeded(fuseEpilogue(rewriter, op, *epilogue))) {
          pending.erase(op);
          pending.erase(epilogue->reduction);
          pending.erase(epilogue->fill);
          changed = true;
        }
      }
    }
    for (linalg::LinalgOp op : candidates) {
      if (!pending.contains(op))
        continue;
      Location kernelLoc = op->getLoc();
      StringRef kind = kernelKind(op);
      // A tile of a kernel already recorded (a fused product's block).
      bool inKernel = op->hasAttr(tessel::cpu::kInKernelAttr);
      op = collapseInnerLoops(rewriter, op, lanes);
      SmallVector<Operation *> tiles = {op.getOperation()};
      SmallVector<int64_t> sizes = planTiles(op, budget, lanes);
      if (!sizes.empty()) {
        scf::SCFTilingOptions options;
        options.setTileSizes(
            getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>(sizes)));
        rewriter.setInsertionPoint(op);
        FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), options);
        if (failed(tiled))
          continue;
        // The loops over parallel dimensions have independent iterations.
        SmallVector<int64_t> order = llvm::to_vector(
            llvm::seq<int64_t>(0, static_cast<int64_t>(sizes.size())));
        SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
        if (std::optional<unsigned> at = firstParallelLoop(
                order, sizes, op.getStaticLoopRanges(),
                [&](int64_t d) {
                  return iterators[d] == utils::IteratorType::parallel;
                });
            at && *at < tiled->loops.size())
          tessel::cpu::markParallel(
              tiled->loops[*at].getOperation(),
              tessel::cpu::workOf(op.getStaticLoopRanges()));
        rewriter.replaceOp(op, tiled->replacements);
        tiles.assign(tiled->tiledOps.begin(), tiled->tiledOps.end());
      }
      bool vectorizedAll = vectorizeAll(rewriter, tiles);
      changed = true;
      // A tile left scalar is still a structured op the report counts.
      if (vectorizedAll && !inKernel)
        tessel::reportKernel(func, kind, kernelLoc);
    }
    if (changed && failed(cpu::foldSubsetsAndCanonicalize(func)))
      signalPassFailure();
  }

  /// Tiles `consumer` by `row.sizes`, fuses the group's members into its
  /// loops, vectorizes the tiles and records one kernel.
  LogicalResult fuseRowGroup(RewriterBase &rewriter, linalg::LinalgOp consumer,
                             const RowGroup &row) {
    SmallVector<Operation *> producers(llvm::reverse(row.members));
    return fuseIntoConsumer(
        rewriter, consumer, row.sizes, producers,
        tessel::cpu::workOf(consumer.getStaticLoopRanges()));
  }

  /// Tiles `consumer` by `epilogue.sizes`, fuses the reduction and its fill
  /// into its loops, vectorizes the three tiles and records one kernel.
  LogicalResult fuseEpilogue(RewriterBase &rewriter, linalg::LinalgOp consumer,
                             const ReductionEpilogue &epilogue) {
    linalg::LinalgOp reduction = epilogue.reduction;
    linalg::FillOp fill = epilogue.fill;
    return fuseIntoConsumer(
        rewriter, consumer, epilogue.sizes,
        {fill.getOperation(), reduction.getOperation()},
        tessel::cpu::workOf(reduction.getStaticLoopRanges()));
  }

  /// Tiles `consumer` by `sizes` and fuses every one of `producers` into its
  /// loops (or fails), marks the outermost loop parallel for `work`,
  /// vectorizes the tiles and records one "reduction" kernel with the
  /// producers' and the consumer's locations. The originals (and the slices
  /// tiling took of them) are dead afterwards; the canonicalization after
  /// the pass erases them.
  LogicalResult fuseIntoConsumer(RewriterBase &rewriter,
                                 linalg::LinalgOp consumer,
                                 ArrayRef<int64_t> sizes,
                                 ArrayRef<Operation *> producers,
                                 int64_t work) {
    MLIRContext *ctx = consumer.getContext();
    llvm::DenseSet<Operation *> fusable(producers.begin(), producers.end());
    SmallVector<Location> locs;
    for (Operation *producer : producers)
      locs.push_back(producer->getLoc());
    locs.push_back(consumer->getLoc());
    Location kernelLoc = FusedLoc::get(ctx, locs);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (fusable.contains(producer.getOwner()))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(consumer);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(consumer.getOperation()), options);
    if (failed(fused) || fused->fusedProducers.size() != producers.size())
      return failure();
    for (OpResult result : consumer->getResults()) {
      Value replacement = fused->replacements.lookup(result);
      if (!replacement)
        return failure();
      rewriter.replaceAllUsesWith(result, replacement);
    }
    SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
    SmallVector<int64_t> order = llvm::to_vector(
        llvm::seq<int64_t>(0, static_cast<int64_t>(ranges.size())));
    if (std::optional<unsigned> at = firstParallelLoop(
            order, sizes, ranges, [](int64_t) { return true; });
        at && *at < fused->loops.size())
      tessel::cpu::markParallel(fused->loops[*at].getOperation(), work);
    bool inKernel = consumer->hasAttr(tessel::cpu::kInKernelAttr);
    bool vectorizedAll =
        vectorizeAll(rewriter, fused->tiledAndFusedOps.getArrayRef());
    // A tile left scalar is still a structured op the report counts.
    if (vectorizedAll && !inKernel)
      tessel::reportKernel(getOperation(), "reduction", kernelLoc);
    return success();
  }
};

} // namespace
