//===- F16MicroKernel.cpp - f16 products on AVX512-FP16 -------------------===//
//
// AVX512-FP16 (Sapphire Rapids and later): `vfmadd231ph` multiplies and
// adds 32 f16 lanes, twice the multiply-adds of the f32 FMA per
// instruction, and sums in f16. A register tile of R rows x C columns
// (tessel/Codegen/CPU/F16Blocks.h: 7 x 32, 8 x 16, ...) walks the whole
// reduction in blocks of B steps (64 down to 8): each block sums in f16
// accumulators from zero, then converts them (`vcvtph2psx`) and adds them
// into the tile's f32 accumulators, carried in registers across the
// blocks. The f16 sums round at most 32 times, and the reduction as a
// whole sums in f32, as tessel-to-linalg's f16 products do.
//
// Constant weights are read from panels of the tile's columns with each
// pair of reduction steps interleaved per column, [N/C, K/2, 2C] (one
// contiguous run per tile, as the 8-bit kernels read theirs): a vector's
// even lanes sum the even steps, its odd lanes the odd ones, and each row
// broadcasts its two values as one 32-bit word (`vbroadcastss` from memory
// is a load alone; `vpbroadcastw` also takes the shuffle port that every
// second FMA needs). A block's two lanes per column are added in f16 before the
// conversion. A right-hand side that is not constant runs one step at a
// time, each row's value broadcast from memory into the FMA.
//
//===----------------------------------------------------------------------===//

#include "GroupedOperands.h"

#include "tessel/Codegen/CPU/F16Blocks.h"
#include "tessel/Codegen/CPU/MicroKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Whether `tile` is an f16 x f16 -> f32 matrix product, batched or not,
/// every batch loop of one iteration (cpu::isUnitBatchMatmul).
bool isF16Product(linalg::LinalgOp tile) {
  auto element = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  return cpu::isUnitBatchMatmul(tile) &&
         element(tile.getDpsInputs()[0]).isF16() &&
         element(tile.getDpsInputs()[1]).isF16() &&
         element(tile.getDpsInits()[0]).isF32();
}

class F16FmaMicroKernel final : public MicroKernel {
public:
  F16FmaMicroKernel() : MicroKernel(MicroKernelKind::F16Fma) {}

  int64_t getReductionGroup() const override { return 1; }

  /// One step for the convolution emitters (which do not select this
  /// kernel: they take f32 operands): the operands widened to f32.
  Value emitMultiplyAccumulate(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, Value acc) const override {
    return getMicroKernel(MicroKernelKind::WidenedFma)
        ->emitMultiplyAccumulate(b, loc, lhs, rhs, acc);
  }

  /// Its extents (F16Blocks.h), with the left-hand side's rows along the
  /// reduction (a transposed one runs on the widened FMA).
  bool coversProduct(const ProductExtent &extent) const override {
    return !extent.packedRhs && extent.rowMajorLhs &&
           f16_blocks::coverProduct(extent.rows, extent.columns,
                                    extent.reduction);
  }

  std::optional<std::pair<int64_t, int64_t>>
  getProductTile(const ProductExtent &extent) const override {
    return f16_blocks::selectTile(extent.rows, extent.columns);
  }

  bool walksReduction(const ProductExtent &extent) const override {
    return true;
  }

  LogicalResult emitProductTile(RewriterBase &rewriter,
                                linalg::LinalgOp tile) const override;
};

LogicalResult
F16FmaMicroKernel::emitProductTile(RewriterBase &rewriter,
                                   linalg::LinalgOp tile) const {
  if (!isF16Product(tile) || !tile.hasPureTensorSemantics() ||
      tile.hasDynamicShape())
    return failure();
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  int64_t batch = ranges.size() - 3;
  int64_t rows = ranges[batch], columns = ranges[batch + 1],
          reduction = ranges[batch + 2];
  int64_t block = f16_blocks::selectReductionBlock(reduction);
  if (block == 0 || columns % 16 != 0)
    return failure();

  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  // A batched tile's operands as matrices (its batch loops run once).
  Value lhs = cpu::asMatrix(rewriter, loc, tile.getDpsInputs()[0]);
  Value rhs = cpu::asMatrix(rewriter, loc, tile.getDpsInputs()[1]);
  Value batchedOut = tile.getDpsInits()[0];
  Value out = cpu::asMatrix(rewriter, loc, batchedOut);
  // Constant weights: read from panels of the tile's columns with each
  // pair of rows interleaved per column ([N/C, K/2, 2C]): one 32-lane
  // vector holds 16 columns' values at steps 2g and 2g + 1, and a row's
  // two values are broadcast as one 32-bit word (a load, where a 16-bit
  // broadcast also takes a shuffle port). Else the rows as they are: one
  // vector holds 32 columns (16 for a 16-column tile) at one step.
  Value pairs = cpu::panelRuns(rewriter, loc, rhs, 0, /*interleave=*/2);
  bool paired = static_cast<bool>(pairs);
  int64_t lanes = paired || columns % 32 == 0 ? 32 : 16;
  // Columns each f16 vector holds, and f16 vectors per row.
  int64_t spans = paired ? 16 : lanes;
  int64_t vectors = columns / spans;
  // Steps each lane sums in f16: at most 32 (paired: every other step).
  if (!paired)
    block = std::min<int64_t>(block, 32);
  int64_t stepsPerIteration = paired ? 2 : 1;

  Type f16 = rewriter.getF16Type(), f32 = rewriter.getF32Type();
  Type i32 = rewriter.getI32Type();
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto halfVector = VectorType::get({lanes}, f16);
  auto sumVector = VectorType::get({16}, f32);
  SmallVector<bool> inBounds = {true};
  Value zeroHalf =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(f16));
  Value zeroSum =
      arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(f32));
  Value zeros = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(halfVector, rewriter.getZeroAttr(f16)));

  // The f32 accumulators: row major, then 16-column vector.
  SmallVector<Value> sums;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; c += 16)
      sums.push_back(vector::TransferReadOp::create(
          rewriter, loc, sumVector, out,
          ValueRange{index(rewriter, r), index(rewriter, c)}, zeroSum,
          inBounds));

  // One iteration: a step (or, paired, two) of every f16 sum.
  auto iteration = [&](OpBuilder &b, Value k, ValueRange partial) {
    SmallVector<Value> next(partial.begin(), partial.end());
    SmallVector<Value> rhsVectors;
    Value rhsRow = paired ? arith::DivUIOp::create(b, loc, k, index(b, 2))
                          : k;
    for (int64_t v = 0; v < vectors; ++v)
      rhsVectors.push_back(vector::TransferReadOp::create(
          b, loc, halfVector, paired ? pairs : rhs,
          ValueRange{rhsRow, index(b, v * lanes)}, zeroHalf, inBounds));
    for (int64_t r = 0; r < rows; ++r) {
      Value broadcast;
      if (paired) {
        Value two = vector::TransferReadOp::create(
            b, loc, VectorType::get({2}, f16), lhs,
            ValueRange{index(b, r), k}, zeroHalf, inBounds);
        Value word = vector::ExtractOp::create(
            b, loc,
            vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), two),
            ArrayRef<int64_t>{0});
        broadcast = vector::BitCastOp::create(
            b, loc, halfVector,
            vector::BroadcastOp::create(b, loc, VectorType::get({16}, i32),
                                        word));
      } else {
        // Broadcast from memory into the FMA ({1to32}) where it has one
        // reader.
        Value value = tensor::ExtractOp::create(b, loc, lhs,
                                                ValueRange{index(b, r), k});
        broadcast = vector::BroadcastOp::create(b, loc, halfVector, value);
      }
      for (int64_t v = 0; v < vectors; ++v) {
        Value &sum = next[r * vectors + v];
        sum = vector::FMAOp::create(b, loc, broadcast, rhsVectors[v], sum);
      }
    }
    return next;
  };

  // A block's f16 sum as f32 sums of 16 columns each: paired, each column's
  // two lanes added (in f16: the odd lane shifted onto the even one, then
  // the even lanes kept); else the vector's halves.
  auto widen = [&](OpBuilder &b, Value sum) {
    SmallVector<Value> parts;
    if (paired) {
      auto words = VectorType::get({16}, i32);
      Value asWords = vector::BitCastOp::create(b, loc, words, sum);
      Value odd = arith::ShRUIOp::create(
          b, loc, asWords,
          arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(words, b.getI32IntegerAttr(16))));
      Value both = arith::AddFOp::create(
          b, loc, sum, vector::BitCastOp::create(b, loc, halfVector, odd));
      Value even = arith::TruncIOp::create(
          b, loc, VectorType::get({16}, b.getI16Type()),
          vector::BitCastOp::create(b, loc, words, both));
      Value halves = vector::BitCastOp::create(
          b, loc, VectorType::get({16}, f16), even);
      parts.push_back(arith::ExtFOp::create(b, loc, sumVector, halves));
      return parts;
    }
    for (int64_t h = 0; h < lanes / 16; ++h) {
      Value part = sum;
      if (lanes > 16)
        part = vector::ExtractStridedSliceOp::create(
            b, loc, sum, ArrayRef<int64_t>{h * 16}, ArrayRef<int64_t>{16},
            ArrayRef<int64_t>{1});
      parts.push_back(arith::ExtFOp::create(b, loc, sumVector, part));
    }
    return parts;
  };

  // One block: its f16 sums from zero, then added into the f32 ones.
  auto blockStep = [&](OpBuilder &b, Value start, ValueRange carried) {
    SmallVector<Value> blockSums(rows * vectors, zeros);
    auto steps = scf::ForOp::create(
        b, loc, index(b, 0), index(b, block), index(b, stepsPerIteration),
        blockSums,
        [&](OpBuilder &ib, Location, Value step, ValueRange partial) {
          Value k = arith::AddIOp::create(ib, loc, start, step);
          scf::YieldOp::create(ib, loc, iteration(ib, k, partial));
        });
    SmallVector<Value> next(carried.begin(), carried.end());
    int64_t perVector = spans / 16;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        SmallVector<Value> parts =
            widen(b, steps.getResult(r * vectors + v));
        for (int64_t h = 0; h < perVector; ++h) {
          Value &sum = next[r * (columns / 16) + v * perVector + h];
          sum = arith::AddFOp::create(b, loc, sum, parts[h]);
        }
      }
    return next;
  };
  auto blocks = scf::ForOp::create(
      rewriter, loc, index(rewriter, 0), index(rewriter, reduction),
      index(rewriter, block), sums,
      [&](OpBuilder &b, Location, Value start, ValueRange carried) {
        scf::YieldOp::create(b, loc, blockStep(b, start, carried));
      });

  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns / 16; ++c)
      out = vector::TransferWriteOp::create(
                rewriter, loc, blocks.getResult(r * (columns / 16) + c), out,
                ValueRange{index(rewriter, r), index(rewriter, c * 16)},
                inBounds)
                .getResult();
  out = cpu::intoBatched(rewriter, loc, out, batchedOut);
  rewriter.replaceOp(tile, out);
  return success();
}

} // namespace

const MicroKernel *mlir::tessel::cpu::getF16FmaMicroKernel() {
  static const F16FmaMicroKernel kernel;
  return &kernel;
}
