//===- PrefetchStores.cpp - Prefetch the lines the next tile writes -------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "SteppedLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELPREFETCHSTORESPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using mlir::tessel::cpu::loopOf;

namespace {

constexpr int64_t kLineBytes = 64;

struct PrefetchStoresPass
    : tessel::impl::TesselPrefetchStoresPassBase<PrefetchStoresPass> {
  void runOnOperation() override {
    SmallVector<vector::TransferWriteOp> writes;
    getOperation().walk(
        [&](vector::TransferWriteOp write) { writes.push_back(write); });
    for (vector::TransferWriteOp write : writes)
      prefetchNext(write);
  }

  /// Before a store of whole lines, a vector tile of R <= 8 rows (1 for a
  /// 1-D vector) by C columns into a row-major buffer at [..., i, j], j a
  /// loop's induction variable of step S: prefetches for writing the lines
  /// of [i .. i+R, j+S .. j+S+C), what the same rows of the loop's next
  /// iteration store. Each read of the same block before the store, of
  /// another buffer, at the same indices and of the same vector type (an
  /// operand of the tile's epilogue: a residual added to a product's tile)
  /// gets the same prefetches, for reading, before it.
  static void prefetchNext(vector::TransferWriteOp write) {
    VectorType vector = write.getVectorType();
    if (!isWholeLineTile(write))
      return;
    ValueRange indices = write.getIndices();
    int64_t step = 0, last = 0;
    if (!loopOf(indices.back(), step, last))
      return;
    for (Operation *op = write->getPrevNode(); op; op = op->getPrevNode()) {
      auto read = dyn_cast<vector::TransferReadOp>(op);
      if (read && read.getBase() != write.getBase() &&
          read.getVectorType() == vector && isWholeLineTile(read) &&
          llvm::equal(read.getIndices(), indices))
        prefetchLines(read, read.getBase(), indices, vector, step, last,
                      /*isWrite=*/false);
    }
    prefetchLines(write, write.getBase(), indices, vector, step, last,
                  /*isWrite=*/true);
  }

  /// Whether `op` moves an f32 vector tile of at most 8 rows of whole 64-byte
  /// lines, unmasked and in bounds, to or from a row-major buffer.
  static bool isWholeLineTile(VectorTransferOpInterface op) {
    auto memref = dyn_cast<MemRefType>(op.getBase().getType());
    VectorType vector = op.getVectorType();
    if (!memref || !memref.getLayout().isIdentity() ||
        !memref.getElementType().isF32() || vector.getRank() > 2 ||
        memref.getRank() < 2 || !op.getPermutationMap().isMinorIdentity() ||
        op.getMask() ||
        !llvm::all_of(op.getInBoundsValues(), [](bool b) { return b; }))
      return false;
    int64_t rows = vector.getRank() == 2 ? vector.getDimSize(0) : 1;
    return vector.getShape().back() % (kLineBytes / 4) == 0 && rows <= 8;
  }

  /// Before `before`: one prefetch per line of the rows of `vector` at
  /// `indices` in `base`, the last index moved to `min(j + step, last)`.
  static void prefetchLines(Operation *before, Value base, ValueRange indices,
                            VectorType vector, int64_t step, int64_t last,
                            bool isWrite) {
    int64_t rows = vector.getRank() == 2 ? vector.getDimSize(0) : 1;
    int64_t columns = vector.getShape().back();
    int64_t perLine = kLineBytes / 4;
    OpBuilder b(before);
    Location loc = before->getLoc();
    auto idx = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    // The last iteration prefetches its own lines: every address stays in
    // the buffer (the store is in bounds at each iteration's start).
    // (One op per statement: the order of a call's arguments is the
    // compiler's, and the printed IR would differ between compilers.)
    Value stepValue = idx(step), lastValue = idx(last);
    Value stepped = arith::AddIOp::create(b, loc, indices.back(), stepValue);
    Value next = arith::MinSIOp::create(b, loc, stepped, lastValue);
    for (int64_t r = 0; r < rows; ++r) {
      SmallVector<Value> at(indices.begin(), indices.end());
      Value &row = at[at.size() - 2];
      if (r) {
        Value offset = idx(r);
        row = arith::AddIOp::create(b, loc, row, offset);
      }
      for (int64_t c = 0; c < columns; c += perLine) {
        if (c) {
          Value offset = idx(c);
          at.back() = arith::AddIOp::create(b, loc, next, offset);
        } else {
          at.back() = next;
        }
        memref::PrefetchOp::create(b, loc, base, at, isWrite,
                                   /*localityHint=*/3,
                                   /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
