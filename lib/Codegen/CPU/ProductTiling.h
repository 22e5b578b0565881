//===- ProductTiling.h - Shared by the product transforms -------*- C++ -*-===//
//
// Internal to lib/Codegen/CPU: what the matrix-product transformations
// (tessel-vectorize-contractions; their public entry points are in
// tessel/Codegen/CPU/Transforms.h) share between their files.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_CODEGEN_CPU_PRODUCTTILING_H
#define TESSEL_LIB_CODEGEN_CPU_PRODUCTTILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::tessel {

/// Drops the unit loops of `generic`, an elementwise neighbour of a product
/// whose unit loops were dropped, and reads the product's (or feeds it) its
/// values without the reshapes in between.
void dropNeighbourUnitLoops(RewriterBase &rewriter, linalg::GenericOp generic);

struct ProductLoopTiles;

/// Whether the cache blocks of `op` (planned as `plan`) copy their
/// right-hand side's block into a contiguous buffer: always for one computed
/// at run time; for a constant one only when several row blocks reuse the
/// copy (it runs on every call: with one row block it cost more than the
/// strided reads it replaced). Measurements:
/// bench/notes/vectorize-contractions.md.
bool shouldPackRhsBlocks(linalg::LinalgOp op, const ProductLoopTiles &plan);

/// Copies the right-hand side's block that the blocked tile `op` reads into
/// a contiguous buffer, once per block: the copy is hoisted out of
/// `rowLoop` (null: not hoisted), whose register tiles all stream it.
void packRhsBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                  LoopLikeOpInterface rowLoop);

/// Tiles `root` (a product, or the consumer of one) by `sizes` (its loops
/// in `interchange` order when given), inserted at `root`, with `product`
/// and its initialiser `init` (null: none) fused into the tiles and nothing
/// else: a product's kernel as one loop nest (tessel-vectorize-contractions'
/// epilogue fusion, the row blocks of a convolution's gathered windows).
FailureOr<scf::SCFTileAndFuseResult>
tileWithProduct(RewriterBase &rewriter, Operation *root,
                ArrayRef<int64_t> sizes, ArrayRef<int64_t> interchange,
                Operation *product, Operation *init);

/// Whether `op` (null: no) reads the values of its outputs: a register tile
/// that overlaps another would then read what that one wrote.
bool readsItsOutput(linalg::LinalgOp op);

/// Makes every tile of `loop` (from 0 to an extent its step does not
/// divide) whole: the tiles start at min(iv, extent - step), the last one
/// overlapping the one before, and the sizes the tiling bounded by the
/// extent become the step, every slice and destination in the loop static.
/// Only for tiles that never read what the loop writes. Fails, changing
/// nothing, for another loop or for a tensor op other than a slice or a
/// destination-style op.
LogicalResult overlapLastTile(RewriterBase &rewriter, scf::ForOp loop);

} // namespace mlir::tessel

#endif // TESSEL_LIB_CODEGEN_CPU_PRODUCTTILING_H
