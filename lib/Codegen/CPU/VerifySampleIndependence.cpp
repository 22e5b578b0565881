//===- VerifySampleIndependence.cpp - A dynamic batch's samples apart -----===//
//
// A dynamic-batch artifact runs a batch of B samples as chunks of the batch
// sizes it was compiled for. This pass proves, on the linalg build of one
// of those sizes, that each sample is computed apart from the others; see
// the pass description in Passes.td.
//
// Each value that depends on the samples carries the batch somewhere: in
// one dimension, whose index is `... + n * stride + ...` for sample `n` (a
// reshape may fold the batch into a wider dimension: `[S, N, D]` collapsed
// to `[S * N, D]` holds sample `n` in rows `s * N + n`, stride 1). An op
// keeps the samples apart when one parallel loop walks the batch's
// dimension of everything it reads that depends on the samples, and of
// everything it writes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "AxisTracking.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELVERIFYSAMPLEINDEPENDENCEPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kAdvice =
    "; a dynamic batch (--dim-range) needs every sample computed apart "
    "from the others: give the batch a fixed size with --input-shape";

using BatchPos = tessel::cpu::AxisPos;

int64_t extent(Value value, int64_t dim) {
  return cast<RankedTensorType>(value.getType()).getDimSize(dim);
}

struct VerifySampleIndependencePass
    : tessel::impl::TesselVerifySampleIndependencePassBase<
          VerifySampleIndependencePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || func.getNumArguments() == 0)
      return;
    samples = batch;
    if (samples == 0)
      if (auto first = dyn_cast<RankedTensorType>(func.getArgumentTypes()[0]);
          first && first.getRank() > 0)
        samples = first.getDimSize(0);
    if (samples < 2) {
      emitError(func.getLoc()) << "the samples' independence is checked at "
                                  "a batch of 2 or more, not "
                               << samples;
      return signalPassFailure();
    }
    for (BlockArgument arg : func.getArguments()) {
      // A padded dimension's valid length is the same for every sample.
      if (func.getArgAttr(arg.getArgNumber(), "tessel.valid_length"))
        continue;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0 || type.getDimSize(0) != samples) {
        emitError(func.getLoc()) << "argument #" << arg.getArgNumber()
                                 << " is not a batch of " << samples << kAdvice;
        return signalPassFailure();
      }
      batches[arg] = BatchPos{};
    }
    for (Operation &op : func.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
          auto pos = batches.find(value);
          if (pos == batches.end() || !(pos->second == BatchPos{}) ||
              extent(value, 0) != samples) {
            emitError(ret.getLoc())
                << "result #" << i
                << " does not hold the samples, one each, in its "
                   "dimension 0"
                << kAdvice;
            return signalPassFailure();
          }
        }
        continue;
      }
      if (failed(visit(&op)))
        return signalPassFailure();
    }
  }

  /// Records where `op`'s results hold the batch, when it reads one, after
  /// checking that it computes each sample apart.
  LogicalResult visit(Operation *op) {
    bool readsBatch = llvm::any_of(op->getOperands(),
                                   [&](Value v) { return batches.count(v); });
    bool captures = false;
    op->walk([&](Operation *inner) {
      if (inner != op)
        captures |= llvm::any_of(inner->getOperands(),
                                 [&](Value v) { return batches.count(v); });
    });
    if (!readsBatch && !captures)
      return success();
    if (captures)
      return emitError(op->getLoc())
             << "reads the samples inside a region" << kAdvice;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return visitLinalg(linalgOp);
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
      return visitReshape(op, op->getOperand(0), op->getResult(0));
    if (auto reshape = dyn_cast<tensor::ReshapeOp>(op)) {
      if (batches.count(reshape.getShape()))
        return mixes(op, "its shape depends on the samples");
      return visitReshape(op, reshape.getSource(), reshape.getResult());
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      return visitPad(pad);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return visitExtract(slice);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return visitInsert(insert);
    return mixes(op, "it is not an op the check follows the batch through");
  }

  LogicalResult mixes(Operation *op, const Twine &why) {
    return emitError(op->getLoc())
           << "mixes the samples of the batch (" << why << ")" << kAdvice;
  }

  /// One parallel loop walks the batch of every operand that has it, each
  /// at the same stride, and writes it to every result.
  LogicalResult visitLinalg(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return mixes(op, "it works on buffers");
    std::optional<unsigned> loop;
    std::optional<int64_t> stride;
    for (OpOperand &operand : op->getOpOperands()) {
      auto pos = batches.find(operand.get());
      if (pos == batches.end())
        continue;
      AffineExpr expr =
          op.getMatchingIndexingMap(&operand).getResult(pos->second.dim);
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || (loop && *loop != dim.getPosition()) ||
          (stride && *stride != pos->second.stride))
        return mixes(op, "its operands' samples are not walked by one loop");
      loop = dim.getPosition();
      stride = pos->second.stride;
    }
    if (op.getIteratorTypesArray()[*loop] != utils::IteratorType::parallel)
      return mixes(op, "it reduces over the samples");
    if (tessel::cpu::readsLoopIndex(op, *loop))
      return mixes(op, "it reads a sample's position in the batch");
    // What the loop walks that does not depend on the samples must be the
    // same for each.
    for (OpOperand &operand : op->getOpOperands()) {
      if (batches.count(operand.get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(*loop))
          continue;
        if (!isa<AffineDimExpr>(expr) ||
            !tessel::cpu::isUniformAlong(operand.get(), i))
          return emitError(op->getLoc())
                 << "reads operand #" << operand.getOperandNumber()
                 << " along the samples, but it differs from one sample "
                    "to the next"
                 << kAdvice;
      }
    }
    for (OpResult result : op->getOpResults()) {
      AffineMap map = op.getMatchingIndexingMap(
          op.getDpsInitOperand(result.getResultNumber()));
      std::optional<int64_t> at;
      for (auto [i, expr] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(expr);
            dim && dim.getPosition() == *loop)
          at = i;
      if (!at)
        return mixes(op, "a result does not keep the samples apart");
      batches[result] = BatchPos{*at, *stride};
    }
    return success();
  }

  /// A reshape keeps the elements' row-major order: the samples' stride in
  /// the flattened tensor must fall on one dimension of the result, whose
  /// extent is a whole number of batches at that stride.
  LogicalResult visitReshape(Operation *op, Value source, Value result) {
    std::optional<BatchPos> pos = tessel::cpu::reshapeAxis(
        batches.lookup(source),
        cast<RankedTensorType>(source.getType()).getShape(),
        cast<RankedTensorType>(result.getType()).getShape(), samples);
    if (!pos)
      return mixes(op, "the reshape spreads the samples over dimensions");
    batches[result] = *pos;
    return success();
  }

  LogicalResult visitPad(tensor::PadOp op) {
    BatchPos pos = batches.lookup(op.getSource());
    ArrayRef<int64_t> low = op.getStaticLow(), high = op.getStaticHigh();
    if (low[pos.dim] != 0 || high[pos.dim] != 0)
      return mixes(op, "it pads the samples' dimension");
    if (!op.getRegion().getArgument(pos.dim).use_empty() ||
        batches.count(op.getConstantPaddingValue()))
      return mixes(op, "its padding depends on the sample");
    batches[op.getResult()] = pos;
    return success();
  }

  LogicalResult visitExtract(tensor::ExtractSliceOp op) {
    if (llvm::any_of(op->getOperands().drop_front(),
                     [&](Value v) { return batches.count(v); }))
      return mixes(op, "its bounds depend on the samples");
    BatchPos pos = batches.lookup(op.getSource());
    if (!tessel::cpu::takesWhole(op.getStaticOffsets(), op.getStaticSizes(),
                                 op.getStaticStrides(), pos.dim,
                                 extent(op.getSource(), pos.dim)))
      return mixes(op, "it takes part of the samples' dimension");
    batches[op.getResult()] =
        BatchPos{tessel::cpu::slicedDim(op, pos.dim), pos.stride};
    return success();
  }

  /// Into a batch, or a batch into something the same for every sample,
  /// over the whole of the samples' dimension.
  LogicalResult visitInsert(tensor::InsertSliceOp op) {
    Value source = op.getSource(), dest = op.getDest();
    if (llvm::any_of(op->getOperands().drop_front(2),
                     [&](Value v) { return batches.count(v); }))
      return mixes(op, "its bounds depend on the samples");
    // Dimensions of the source, as dimensions of the destination.
    SmallVector<int64_t> destDims = tessel::cpu::insertedDims(op);
    std::optional<BatchPos> pos;
    if (auto it = batches.find(source); it != batches.end())
      pos = BatchPos{destDims[it->second.dim], it->second.stride};
    if (auto it = batches.find(dest); it != batches.end()) {
      if (pos && !(*pos == it->second))
        return mixes(op, "the slice moves the samples");
      pos = it->second;
    }
    if (!tessel::cpu::takesWhole(op.getStaticOffsets(), op.getStaticSizes(),
                                 op.getStaticStrides(), pos->dim,
                                 extent(dest, pos->dim)))
      return mixes(op, "it writes part of the samples' dimension");
    int64_t sourceDim = llvm::find(destDims, pos->dim) - destDims.begin();
    if ((!batches.count(dest) &&
         !tessel::cpu::isUniformAlong(dest, pos->dim)) ||
        (!batches.count(source) &&
         !tessel::cpu::isUniformAlong(source, sourceDim)))
      return mixes(op, "what it writes differs from one sample to the next");
    batches[op.getResult()] = *pos;
    return success();
  }

  int64_t samples = 0;
  /// The values that depend on the samples, with where they hold them.
  DenseMap<Value, BatchPos> batches;
};

} // namespace
