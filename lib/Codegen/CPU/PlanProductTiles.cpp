//===- PlanProductTiles.cpp - Register tiles and cache blocks of products -===//
//
// The tile planner of tessel-vectorize-contractions: the register tile and
// cache blocks of a product, first on plain extents (`planProductTiles`),
// then mapped onto a linalg op's loops (`planProductLoopTiles`).
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "TileSizes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;
using namespace mlir::tessel;

/// Cache blocks (elements): at most MC rows and KC reduction steps, and
/// columns one register tile wide (AVX-512: 4 vectors of 16), so that each
/// KC x NR strip of the right-hand side (256 KiB) and the MC x KC block of
/// the left-hand side (512 KiB) stay in L2 together while the MC / MR
/// register tiles of the block stream the strip. Products whose operands
/// take at most kBlockingBytes, or twice the core's L2 where that is less
/// and the rows take several register tiles, run unblocked: their register
/// tiles run the fill and the epilogue in registers and store each output
/// once. (Zen 3's 512 KiB L2: a 512^3 GEMM's 2 MiB ran at 66% of peak
/// unblocked, 81% blocked.)
/// Measurements: bench/notes/vectorize-contractions.md.
static constexpr int64_t kRowBlock = 128, kReductionBlock = 1024;
static constexpr int64_t kBlockingBytes = 2 * 1024 * 1024;
/// Estimates within this share of each other are the same cost.
static constexpr double kCostTolerance = 0.01;

/// The largest multiple of `tile` that divides `size` and is at most
/// `limit` (at least `tile`).
static int64_t pickBlock(int64_t size, int64_t tile, int64_t limit) {
  int64_t best = tile;
  for (int64_t block = tile; block <= std::min(size, limit); block += tile)
    if (size % block == 0)
      best = block;
  return best;
}

/// Estimated cycles per multiply-add of a register tile of `rows` x
/// `vectors` accumulators on `core`: each reduction step loads `vectors`
/// vectors of the right-hand side and broadcasts `rows` elements of the left.
static double cyclesPerMultiplyAdd(const CpuTargetInfo &core, int64_t rows,
                                   int64_t vectors) {
  return estimateTileStepCycles(core, rows * vectors, rows + vectors) /
         double(rows * vectors);
}

ProductTilePlan mlir::tessel::planProductTiles(const ProductShape &shape,
                                               int64_t lanes,
                                               int64_t accumulators,
                                               int64_t elementBytes,
                                               const CpuTargetInfo &core) {
  int64_t columns = shape.columns;
  ProductTilePlan plan;
  // Rows of 4, 2 or 1 whole vectors (a power of two: LLVM splits other
  // widths into partial registers and shuffles them every step), the
  // widest that still leaves accumulators for 4 rows.
  // Columns that no whole vector divides (a classifier's 1000) take half
  // vectors (8 of AVX-512's 16 lanes fill a ymm register), or quarter ones
  // (100 attention keys: 4 lanes, an xmm register): a width such as 50
  // would be split into partial registers reshuffled every step (that
  // tile took a quarter of MobileNetV2's time; a [100, 32] x [32, 100]
  // product on 50-wide tiles ran 16x slower than on 4-wide ones).
  int64_t columnLanes = lanes;
  while (columns % columnLanes != 0 && columnLanes % 2 == 0 &&
         columnLanes > 4)
    columnLanes /= 2;
  if (columns % columnLanes != 0)
    columnLanes = lanes;
  plan.columnLanes = columnLanes;
  SmallVector<int64_t> columnTiles;
  for (int64_t vectors : {4, 2, 1})
    if (vectors == 1 || accumulators / vectors >= 4)
      columnTiles.push_back(vectors * columnLanes);
  int64_t nTile = pickDivisor(columns, columnTiles, columnTiles.front());
  // Rows: 6 or 4 (the accumulators of 4 vectors x 4 or 6 rows fill the
  // budget), unless the cost model finds that tile slower per
  // multiply-add than some other divisor of the rows, in which case the
  // most rows at the lowest cost: a one-vector tile of 4 rows (a 28 x 28
  // plane, 784 columns, divides by no wider tile) has 4 accumulators,
  // too few to cover the FMA's latency on a core with two FMA units
  // ([128, 512] x [512, 784]: 4 x 16 1.68 ms, 16 x 16 1.08 ms, Xeon EMR).
  // With overlapping rows, the preferred 6 or 4 rows need not divide the
  // rows (6 of a layer's 256 filters): the last tile overlaps the one
  // before it, and the rows it recomputes count in its cost; only where
  // the column loop, outside the row loop, runs more than once: it is
  // then the loop split across threads, and no two threads write the
  // rows two tiles share. The other candidates divide the rows.
  auto rowsFor = [&](int64_t tileColumns, bool mayOverlap) {
    int64_t total = *shape.rows;
    bool overlap = mayOverlap && columns > tileColumns;
    auto waste = [&](int64_t rows) {
      return double(llvm::divideCeil(total, rows) * rows) / double(total);
    };
    int64_t vectorsPerRow = (tileColumns + columnLanes - 1) / columnLanes;
    int64_t maxRows = std::max<int64_t>(1, accumulators / vectorsPerRow);
    int64_t preferred =
        pickDivisor(total, {std::min<int64_t>(maxRows, 6), 4}, maxRows);
    if (overlap)
      for (int64_t rows : {std::min<int64_t>(maxRows, 6), int64_t(4)})
        if (rows < total) {
          preferred = rows;
          break;
        }
    auto costOf = [&](int64_t rows) {
      return cyclesPerMultiplyAdd(core, rows, vectorsPerRow) * waste(rows);
    };
    int64_t best = preferred;
    double bestCost = costOf(preferred);
    for (int64_t rows = 1; rows <= std::min(maxRows, total); ++rows) {
      if (total % rows != 0)
        continue;
      double cost = costOf(rows);
      if (cost < bestCost * (1 - kCostTolerance) ||
          (best != preferred && cost <= bestCost))
        best = rows, bestCost = cost;
    }
    return best;
  };
  // Columns that no whole vector divides may take whole-vector tiles whose
  // last one overlaps the one before (50 attention keys: 16 + 16 + 16 +
  // 16 over [34, 50), 14 columns computed twice), where that is allowed:
  // a width such as 10 is split into partial registers reshuffled every
  // step. The tile, and its rows, with the lowest cost per useful
  // multiply-add.
  bool overlappingColumns = shape.overlappingColumns && shape.overlappingRows &&
                            columns % columnLanes != 0 && columns > columnLanes;
  if (overlappingColumns) {
    auto waste = [](int64_t total, int64_t tile) {
      return double(llvm::divideCeil(total, tile) * tile) / double(total);
    };
    double bestCost = 0;
    for (int64_t tileColumns : columnTiles) {
      if (tileColumns > columns)
        continue;
      int64_t rows = shape.rows ? rowsFor(tileColumns, /*mayOverlap=*/true) : 1;
      double cost =
          cyclesPerMultiplyAdd(core, rows, tileColumns / columnLanes) *
          waste(columns, tileColumns) *
          (shape.rows ? waste(*shape.rows, rows) : 1.0);
      if (bestCost == 0 || cost < bestCost * (1 - kCostTolerance)) {
        bestCost = cost;
        nTile = tileColumns;
        plan.rows = rows;
      }
    }
  } else if (shape.rows) {
    // Rows that only divide by few at the widest tile (7x7 feature maps
    // channels last: 49 rows, 1 x 4 vectors, one load per FMA) take
    // narrower columns when that fills more accumulators (7 x 2 vectors).
    // (Weighed on tiles that divide the rows; the chosen columns' rows may
    // then overlap.)
    int64_t best = rowsFor(nTile, false) * nTile;
    for (int64_t tileColumns : columnTiles) {
      if (tileColumns >= nTile || columns % tileColumns != 0)
        continue;
      int64_t filled = rowsFor(tileColumns, false) * tileColumns;
      if (filled > best) {
        best = filled;
        nTile = tileColumns;
      }
    }
    plan.rows = rowsFor(nTile, shape.overlappingRows);
  }
  plan.columns = nTile;

  // Cache blocks, when a row, a column and a single reduction dimension
  // exist, the operands take more than kBlockingBytes, and some block is
  // smaller than its loop.
  // (One row tile, as a matrix-vector product has, reads the right-hand
  // side once either way: it keeps the 2 MiB.)
  int64_t blockingBytes =
      shape.rows && *shape.rows > plan.rows
          ? std::min(kBlockingBytes, 2 * core.l2Bytes)
          : kBlockingBytes;
  if (shape.rows && shape.reduction &&
      (*shape.rows + columns) * *shape.reduction * elementBytes >
          blockingBytes) {
    // (Blocks take tiles that divide the columns.)
    if (overlappingColumns) {
      ProductShape dividing = shape;
      dividing.overlappingColumns = false;
      return planProductTiles(dividing, lanes, accumulators, elementBytes,
                              core);
    }
    int64_t rowBlock = pickBlock(*shape.rows, plan.rows, kRowBlock);
    int64_t columnBlock = nTile;
    int64_t reductionBlock = pickBlock(*shape.reduction, 1, kReductionBlock);
    if (rowBlock < *shape.rows || columnBlock < columns ||
        reductionBlock < *shape.reduction)
      plan.cacheBlocks =
          ProductCacheBlocks{rowBlock, columnBlock, reductionBlock};
  }
  // Overlapping rows under cache blocks: blocks of the reduction
  // accumulate into the output (its tiles then divide the rows); blocks
  // of columns over the whole reduction take all rows in one block (the
  // register tiles run the whole reduction and walk every row per column
  // block, which a block of 6s could not divide).
  if (plan.cacheBlocks && *shape.rows % plan.rows != 0) {
    if (plan.cacheBlocks->reduction < *shape.reduction) {
      ProductShape dividing = shape;
      dividing.overlappingRows = false;
      return planProductTiles(dividing, lanes, accumulators, elementBytes,
                              core);
    }
    plan.cacheBlocks->rows = *shape.rows;
  }
  return plan;
}

/// The loop dimension that result `position` of `map` is, if a plain dim.
static std::optional<unsigned> dimAt(AffineMap map, int64_t position) {
  if (position < 0 || position >= map.getNumResults())
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(position)))
    return dim.getPosition();
  return std::nullopt;
}

std::optional<ProductLoopTiles>
mlir::tessel::planProductLoopTiles(linalg::LinalgOp op,
                                   const ProductTilingOptions &options) {
  if (op->getNumResults() != 1 || op.getNumDpsInputs() != 2 ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (resultType.getRank() < 1)
    return std::nullopt;
  // Only products the target has an emitted micro-kernel for. Its lanes
  // are the pass's vector width (the pipeline sets that from the same
  // target).
  Type lhs = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type rhs = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  const MicroKernel *microKernel =
      getMicroKernel(options.target, lhs, rhs, resultType.getElementType());
  if (!microKernel)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.empty() || dims->k.empty())
    return std::nullopt;

  // Vectors run along the output's innermost dimension, which must be a
  // column (n) dimension, read contiguously from the right-hand side too.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  std::optional<unsigned> nDim = dimAt(outMap, outMap.getNumResults() - 1);
  if (!nDim || !llvm::is_contained(dims->n, *nDim))
    return std::nullopt;
  // (Weights packed in reduction groups, [K/g, N, g], read a column's g
  // values together: the column is the second-innermost dimension.)
  AffineMap rhsMap = maps[1];
  int64_t rhsRank = rhsMap.getNumResults();
  bool groupedRhs =
      microKernel->getReductionGroup() > 1 && rhsRank >= 2 &&
      dimAt(rhsMap, rhsRank - 2) == nDim &&
      llvm::is_contained(dims->k, dimAt(rhsMap, rhsRank - 1).value_or(~0u));
  if (dimAt(rhsMap, rhsRank - 1) != nDim && !groupedRhs)
    return std::nullopt;
  // The row (m) dimension: the output's innermost one outside its column
  // dimensions (panels [M, P, T] put the panel between), if it is one and
  // more than one row (a matrix-vector product has none).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> mDim;
  for (int64_t position = outMap.getNumResults() - 2; position >= 0;
       --position) {
    std::optional<unsigned> dim = dimAt(outMap, position);
    if (dim && llvm::is_contained(dims->n, *dim))
      continue;
    if (dim && llvm::is_contained(dims->m, *dim) &&
        (position == outMap.getNumResults() - 2 || ranges[*dim] > 1))
      mDim = dim;
    break;
  }

  unsigned numLoops = ranges.size();
  // A micro-kernel that sums groups of reduction steps in each lane (VNNI's
  // 4 bytes) takes whole groups: one reduction loop of a multiple of them,
  // or (weights packed by packGroupedWeights) a second, innermost one of
  // exactly one group.
  int64_t group = microKernel->getReductionGroup();
  std::optional<unsigned> groupDim;
  if (group > 1) {
    if (!mDim)
      return std::nullopt;
    if (dims->k.size() == 1 && ranges[dims->k.front()] % group == 0) {
      groupDim = dims->k.front();
    } else if (dims->k.size() == 2) {
      AffineMap lhsMap = maps[0];
      std::optional<unsigned> last =
          dimAt(lhsMap, lhsMap.getNumResults() - 1);
      if (last && llvm::is_contained(dims->k, *last) &&
          ranges[*last] == group)
        groupDim = last;
    }
    if (!groupDim)
      return std::nullopt;
  }
  ProductShape shape;
  if (mDim)
    shape.rows = ranges[*mDim];
  shape.columns = ranges[*nDim];
  shape.overlappingRows = options.overlappingRows;
  shape.overlappingColumns = options.overlappingColumns;
  if (dims->k.size() == 1)
    shape.reduction = ranges[dims->k.front()];
  // The kernel for this extent: the best one may not cover it (AMX takes
  // whole tiles), the next one with the same groups then runs it.
  ProductExtent extent;
  extent.rows = shape.rows.value_or(1);
  extent.columns = shape.columns;
  extent.reduction = 1;
  for (unsigned d : dims->k)
    extent.reduction *= ranges[d];
  extent.packedRhs = groupDim && dims->k.size() == 2;
  {
    AffineMap lhsMap = maps[0];
    int64_t lhsRank = lhsMap.getNumResults();
    std::optional<unsigned> last = dimAt(lhsMap, lhsRank - 1);
    extent.rowMajorLhs =
        last && llvm::is_contained(dims->k, *last) &&
        (!mDim || dimAt(lhsMap, lhsRank - 2) == mDim);
  }
  microKernel = getProductMicroKernel(options.target, lhs, rhs,
                                      resultType.getElementType(), extent);
  if (!microKernel || microKernel->getReductionGroup() != group)
    return std::nullopt;
  int64_t elementBytes = llvm::divideCeil(lhs.getIntOrFloatBitWidth(), 8);
  ProductTilePlan tiles =
      planProductTiles(shape, options.lanes, options.accumulators,
                       elementBytes, options.target);
  if (std::optional<std::pair<int64_t, int64_t>> kernelTile =
          microKernel->getProductTile(extent)) {
    tiles.rows = kernelTile->first;
    tiles.columns = kernelTile->second;
    tiles.cacheBlocks.reset();
  }
  bool walksReduction = microKernel->walksReduction(extent);
  if (walksReduction && (groupDim || dims->k.size() != 1))
    return std::nullopt;

  ProductLoopTiles plan;
  plan.microKernel = microKernel;
  plan.tileSizes.assign(numLoops, 1);
  if (mDim)
    plan.tileSizes[*mDim] = tiles.rows;
  plan.tileSizes[*nDim] = tiles.columns;
  // (0: untiled.)
  if (walksReduction)
    plan.tileSizes[dims->k.front()] = 0;
  if (groupDim) {
    plan.tileSizes[*groupDim] = group;
    // Packed weights: the micro-kernel walks the whole reduction itself
    // (its loop over the groups carries the accumulators).
    for (unsigned d : dims->k)
      if (d != *groupDim && dims->k.size() == 2)
        plan.tileSizes[d] = 0;
  }

  // Loop order: everything else, then columns, rows, and the reduction
  // innermost so that the output tile stays in registers across it.
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != *nDim && (!mDim || d != *mDim) && !llvm::is_contained(dims->k, d))
      plan.interchange.push_back(d);
  // AMX tiles: each output block reads a whole row block of the left-hand
  // side and a whole column panel of the weights; the operand the inner
  // loop walks is read again for every outer iteration. Rows outer when
  // the left-hand side is at least as large (M >= N): the weights are read
  // again, from cache, and the activations once. 1024^3: 850 against 745
  // GOP/s columns outer; ResNet-18's 56 x 56 layer as a product, [3136,
  // 576] x [576, 64]: 0.32 ms against 0.33; a 7 x 7 one, [49, 4608] x
  // [4608, 512], columns outer: 0.43 ms against 0.83 (Xeon EMR,
  // tessel-bench p50).
  bool amx = microKernel->getKind() == MicroKernelKind::AmxInt8 ||
             microKernel->getKind() == MicroKernelKind::AmxBf16;
  bool rowsOuter = amx && mDim && ranges[*mDim] >= ranges[*nDim];
  if (rowsOuter)
    plan.interchange.push_back(*mDim);
  plan.interchange.push_back(*nDim);
  if (mDim && !rowsOuter)
    plan.interchange.push_back(*mDim);
  for (unsigned d : dims->k)
    plan.interchange.push_back(d);

  // Grouped reductions are not cache-blocked yet (a block must hold whole
  // groups).
  if (tiles.cacheBlocks && group == 1) {
    unsigned kDim = dims->k.front();
    plan.cacheTileSizes.assign(numLoops, 0);
    plan.cacheTileSizes[*mDim] = tiles.cacheBlocks->rows;
    plan.cacheTileSizes[*nDim] = tiles.cacheBlocks->columns;
    plan.cacheTileSizes[kDim] = tiles.cacheBlocks->reduction;
    for (unsigned d = 0; d < numLoops; ++d)
      if (d != *nDim && d != *mDim && d != kDim)
        plan.cacheInterchange.push_back(d);
    plan.cacheInterchange.append({*nDim, kDim, *mDim});
  }
  return plan;
}
