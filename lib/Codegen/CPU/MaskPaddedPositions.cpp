//===- MaskPaddedPositions.cpp - Reductions over valid positions only -----===//
//
// A padded artifact runs a sequence of any length up to a build's length L
// on inputs padded to L: positions past the valid length hold whatever the
// padding computes to. This pass proves, on the linalg build, that no valid
// position's result depends on a padded one, except through reductions over
// the positions, and masks those reductions' operands so that a padded
// position adds nothing. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Passes.h"

#include "AxisTracking.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELMASKPADDEDPOSITIONSPASS
#include "tessel/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using mlir::tessel::cpu::AxisPos;

namespace {

constexpr llvm::StringLiteral kPaddedDimAttr = "tessel.padded_dim";
constexpr llvm::StringLiteral kValidLengthAttr = "tessel.valid_length";
constexpr llvm::StringLiteral kFusionGroupAttr = "tessel.fusion_group";

constexpr llvm::StringLiteral kAdvice =
    "; a padded dimension (--dim-range) needs each position computed apart "
    "from the others but in reductions over them: give the dimension a "
    "fixed size with --input-shape";

/// The dimensions where a value holds the positions: one, or several (the
/// scores of an attention hold the queries' and the keys' positions).
using Copies = SmallVector<AxisPos, 2>;

int64_t extent(Value value, int64_t dim) {
  return cast<RankedTensorType>(value.getType()).getDimSize(dim);
}

/// The value a reduction whose body combines its input and accumulator with
/// `combiner` leaves unchanged, or null.
TypedAttr neutralOf(Operation *combiner, Type type) {
  if (!combiner)
    return {};
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    auto value = [&](const APFloat &v) { return FloatAttr::get(type, v); };
    if (isa<arith::AddFOp>(combiner))
      return value(APFloat::getZero(sem));
    if (isa<arith::MulFOp>(combiner))
      return value(APFloat::getOne(sem));
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
      return value(APFloat::getInf(sem, /*Negative=*/true));
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
      return value(APFloat::getInf(sem));
    return {};
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return {};
  unsigned width = intType.getWidth();
  auto value = [&](const APInt &v) { return IntegerAttr::get(type, v); };
  if (isa<arith::AddIOp, arith::OrIOp, arith::XOrIOp, arith::MaxUIOp>(combiner))
    return value(APInt::getZero(width));
  if (isa<arith::MulIOp>(combiner))
    return value(APInt(width, 1));
  if (isa<arith::AndIOp, arith::MinUIOp>(combiner))
    return value(APInt::getAllOnes(width));
  if (isa<arith::MaxSIOp>(combiner))
    return value(APInt::getSignedMinValue(width));
  if (isa<arith::MinSIOp>(combiner))
    return value(APInt::getSignedMaxValue(width));
  return {};
}

/// The op that combines a one-input reduction's input with its accumulator,
/// when that is all its body does.
Operation *combinerOf(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return nullptr;
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      body->getOperations().size() != 2)
    return nullptr;
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getNumOperands() != 2)
    return nullptr;
  Value in = body->getArgument(0), acc = body->getArgument(1);
  Value a = combiner->getOperand(0), b = combiner->getOperand(1);
  if ((a == in && b == acc) || (a == acc && b == in))
    return combiner;
  return nullptr;
}

struct MaskPaddedPositionsPass
    : tessel::impl::TesselMaskPaddedPositionsPassBase<MaskPaddedPositionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments()) {
      auto dim = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                    kPaddedDimAttr);
      if (!dim)
        continue;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      int64_t at = dim.getInt();
      if (!type || at < 0 || at >= type.getRank() || type.isDynamicDim(at) ||
          (length != 0 && type.getDimSize(at) != length)) {
        emitError(func.getLoc())
            << "argument #" << arg.getArgNumber()
            << " is not padded to the other arguments' length in its "
               "dimension "
            << at;
        return signalPassFailure();
      }
      length = type.getDimSize(at);
      positions[arg] = Copies{AxisPos{at, 1}};
    }
    if (positions.empty())
      return;
    if (length < minLength) {
      emitError(func.getLoc())
          << "the arguments are padded to " << length
          << " positions, fewer than the fewest valid (" << minLength << ")";
      return signalPassFailure();
    }
    // The valid length, appended: the entry's last argument.
    unsigned index = func.getNumArguments();
    OpBuilder builder(func.getContext());
    auto attrs = builder.getDictionaryAttr(
        builder.getNamedAttr(kValidLengthAttr, builder.getUnitAttr()));
    if (failed(func.insertArgument(
            index, RankedTensorType::get({}, builder.getI64Type()), attrs,
            func.getLoc())))
      return signalPassFailure();
    validLength = func.getArgument(index);

    for (Operation &op :
         llvm::make_early_inc_range(func.getBody().front().getOperations())) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        if (failed(visitReturn(func, ret)))
          return signalPassFailure();
        continue;
      }
      if (failed(visit(&op)))
        return signalPassFailure();
    }
  }

  LogicalResult mixes(Operation *op, const Twine &why) {
    return emitError(op->getLoc()) << "mixes the padded positions with the "
                                      "valid ones ("
                                   << why << ")" << kAdvice;
  }

  LogicalResult visitReturn(func::FuncOp func, func::ReturnOp ret) {
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto it = positions.find(value);
      if (it == positions.end())
        continue;
      // One dimension of the positions alone: stride 1, extent the length
      // (`[N * S]` holds them at stride 1 too, N times over).
      if (it->second.size() != 1 || it->second.front().stride != 1 ||
          extent(value, it->second.front().dim) != length)
        return emitError(ret.getLoc())
               << "result #" << i
               << " does not hold the positions in one dimension of their "
                  "own"
               << kAdvice;
      func.setResultAttr(
          i, kPaddedDimAttr,
          OpBuilder(func).getI64IntegerAttr(it->second.front().dim));
    }
    return success();
  }

  /// Records where `op`'s results hold the positions, when it reads them,
  /// after checking that it keeps them apart, and masks its reductions.
  LogicalResult visit(Operation *op) {
    auto tracked = [&](Value v) { return positions.count(v) != 0; };
    bool reads = llvm::any_of(op->getOperands(), tracked);
    bool captures = false;
    op->walk([&](Operation *inner) {
      if (inner != op)
        captures |= llvm::any_of(inner->getOperands(), tracked);
    });
    if (!reads && !captures)
      return success();
    if (captures)
      return mixes(op, "it reads them inside a region");
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return visitLinalg(linalgOp);
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
      return visitReshape(op, op->getOperand(0), op->getResult(0));
    if (auto reshape = dyn_cast<tensor::ReshapeOp>(op)) {
      if (tracked(reshape.getShape()))
        return mixes(op, "its shape depends on them");
      return visitReshape(op, reshape.getSource(), reshape.getResult());
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      return visitPad(pad);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return visitExtract(slice);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return visitInsert(insert);
    return mixes(op, "it is not an op the check follows the positions "
                     "through");
  }

  LogicalResult visitLinalg(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics())
      return mixes(op, "it works on buffers");
    // The loops that walk the positions, with their stride.
    llvm::SmallMapVector<unsigned, int64_t, 4> loops;
    for (OpOperand &operand : op->getOpOperands()) {
      auto it = positions.find(operand.get());
      if (it == positions.end())
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      llvm::SmallDenseSet<unsigned> seen;
      for (AxisPos copy : it->second) {
        auto dim = dyn_cast<AffineDimExpr>(map.getResult(copy.dim));
        if (!dim)
          return mixes(op, "it reads them through an index expression");
        if (!seen.insert(dim.getPosition()).second)
          return mixes(op, "one loop walks two of an operand's position "
                           "dimensions");
        auto [at, inserted] = loops.try_emplace(dim.getPosition(), copy.stride);
        if (!inserted && at->second != copy.stride)
          return mixes(op, "one loop walks them at two strides");
      }
    }
    for (auto [loop, stride] : loops)
      if (tessel::cpu::readsLoopIndex(op, loop))
        return mixes(op, "it reads a position's index");
    // What else those loops walk must be the same at every position, or a
    // table of constants (a position embedding).
    for (OpOperand &operand : op->getOpOperands()) {
      if (positions.count(operand.get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        bool walked = llvm::any_of(loops, [&](auto entry) {
          return expr.isFunctionOfDim(entry.first);
        });
        if (!walked)
          continue;
        if (dim && (tessel::cpu::isUniformAlong(operand.get(), i) ||
                    isPositionTable(operand.get(), i,
                                    loops.lookup(dim.getPosition()))))
          continue;
        return emitError(op->getLoc())
               << "reads operand #" << operand.getOperandNumber()
               << " along the positions, but it differs from one position "
                  "to the next and is not a table of constants"
               << kAdvice;
      }
    }
    SmallVector<unsigned> reduced;
    for (auto [loop, stride] : loops)
      if (op.getIteratorTypesArray()[loop] == utils::IteratorType::reduction)
        reduced.push_back(loop);
    if (!reduced.empty() && failed(maskReduction(op, reduced)))
      return failure();
    for (OpResult result : op->getOpResults()) {
      AffineMap map = op.getMatchingIndexingMap(
          op.getDpsInitOperand(result.getResultNumber()));
      Copies copies;
      for (auto [loop, stride] : loops) {
        if (llvm::is_contained(reduced, loop))
          continue;
        std::optional<int64_t> at;
        for (auto [i, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr);
              dim && dim.getPosition() == loop)
            at = i;
        if (!at)
          return mixes(op, "a result does not keep them apart");
        copies.push_back(AxisPos{*at, stride});
      }
      if (!copies.empty())
        positions[result] = copies;
    }
    return success();
  }

  /// Whether `value` is a constant whose dimension `dim`, read at stride
  /// `stride`, is a table of one entry per position: a build for a longer
  /// sequence holds the same entries first (the driver compares two
  /// builds' constants).
  bool isPositionTable(Value value, int64_t dim, int64_t stride) {
    auto constant = value.getDefiningOp<arith::ConstantOp>();
    return constant && stride == 1 && extent(value, dim) == length;
  }

  /// Masks the operands of `op` that a reduction loop in `reduced` walks
  /// along the positions, with the value the reduction leaves unchanged.
  LogicalResult maskReduction(linalg::LinalgOp op, ArrayRef<unsigned> reduced) {
    bool contraction = linalg::isaContractionOpInterface(op);
    Operation *combiner = contraction ? nullptr : combinerOf(op);
    if (!contraction && !combiner)
      return mixes(op, "it reduces over them with a body the mask does not "
                       "know");
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto it = positions.find(input->get());
      if (it == positions.end())
        continue;
      AffineMap map = op.getMatchingIndexingMap(input);
      Copies masked;
      for (AxisPos copy : it->second)
        if (llvm::is_contained(
                reduced,
                cast<AffineDimExpr>(map.getResult(copy.dim)).getPosition()))
          masked.push_back(copy);
      if (masked.empty())
        continue;
      Type element = getElementTypeOrSelf(input->get().getType());
      TypedAttr neutral = contraction ? OpBuilder(op).getZeroAttr(element)
                                      : neutralOf(combiner, element);
      if (!neutral)
        return mixes(op, "it reduces over them with a body the mask does "
                         "not know");
      input->set(mask(op, input->get(), masked, neutral));
    }
    return success();
  }

  /// `value` with `neutral` at every padded position of its dimensions
  /// `masked`, built before `user`.
  Value mask(Operation *user, Value value, ArrayRef<AxisPos> masked,
             TypedAttr neutral) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    auto type = cast<RankedTensorType>(value.getType());
    int64_t rank = type.getRank();
    Value empty =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, ctx),
        AffineMap::get(rank, 0, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, type, ValueRange{value, validLength}, ValueRange{empty}, maps,
        iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value valid;
          Value limit =
              arith::IndexCastOp::create(nb, nl, nb.getIndexType(), args[1]);
          for (AxisPos copy : masked) {
            Value pos = linalg::IndexOp::create(nb, nl, copy.dim);
            if (copy.stride != 1)
              pos = arith::DivUIOp::create(
                  nb, nl, pos,
                  arith::ConstantIndexOp::create(nb, nl, copy.stride));
            if (type.getDimSize(copy.dim) > length * copy.stride)
              pos = arith::RemUIOp::create(
                  nb, nl, pos, arith::ConstantIndexOp::create(nb, nl, length));
            Value in = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult,
                                             pos, limit);
            valid = valid ? arith::AndIOp::create(nb, nl, valid, in) : in;
          }
          Value fill = arith::ConstantOp::create(nb, nl, neutral);
          linalg::YieldOp::create(
              nb, nl,
              ValueRange{arith::SelectOp::create(nb, nl, valid, args[0], fill)
                             .getResult()});
        });
    if (Attribute group = user->getAttr(kFusionGroupAttr))
      generic->setAttr(kFusionGroupAttr, group);
    return generic.getResult(0);
  }

  LogicalResult visitReshape(Operation *op, Value source, Value result) {
    ArrayRef<int64_t> from =
        cast<RankedTensorType>(source.getType()).getShape();
    ArrayRef<int64_t> to = cast<RankedTensorType>(result.getType()).getShape();
    Copies copies;
    for (AxisPos copy : positions.lookup(source)) {
      std::optional<AxisPos> pos =
          tessel::cpu::reshapeAxis(copy, from, to, length);
      if (!pos)
        return mixes(op, "the reshape spreads them over dimensions");
      copies.push_back(*pos);
    }
    positions[result] = copies;
    return success();
  }

  LogicalResult visitPad(tensor::PadOp op) {
    ArrayRef<int64_t> low = op.getStaticLow(), high = op.getStaticHigh();
    if (positions.count(op.getConstantPaddingValue()))
      return mixes(op, "its padding depends on them");
    for (AxisPos copy : positions.lookup(op.getSource()))
      if (low[copy.dim] != 0 || high[copy.dim] != 0 ||
          !op.getRegion().getArgument(copy.dim).use_empty())
        return mixes(op, "it pads their dimension");
    positions[op.getResult()] = positions.lookup(op.getSource());
    return success();
  }

  LogicalResult visitExtract(tensor::ExtractSliceOp op) {
    if (llvm::any_of(op->getOperands().drop_front(),
                     [&](Value v) { return positions.count(v); }))
      return mixes(op, "its bounds depend on them");
    ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                      sizes = op.getStaticSizes(),
                      strides = op.getStaticStrides();
    Copies copies;
    for (AxisPos copy : positions.lookup(op.getSource())) {
      int64_t d = copy.dim;
      bool whole = tessel::cpu::takesWhole(offsets, sizes, strides, d,
                                           extent(op.getSource(), d));
      // Positions every run has valid: the result holds none padded.
      bool valid = copy.stride == 1 && !ShapedType::isDynamic(offsets[d]) &&
                   !ShapedType::isDynamic(sizes[d]) &&
                   !ShapedType::isDynamic(strides[d]) &&
                   offsets[d] + (sizes[d] - 1) * strides[d] < minLength;
      if (whole)
        copies.push_back(AxisPos{tessel::cpu::slicedDim(op, d), copy.stride});
      else if (!valid)
        return mixes(op, "it takes part of their dimension");
    }
    if (!copies.empty())
      positions[op.getResult()] = copies;
    return success();
  }

  /// A slice written over the whole of each position dimension: where the
  /// source and the destination both hold positions, the same ones; where
  /// one does not, it is the same at every position.
  LogicalResult visitInsert(tensor::InsertSliceOp op) {
    Value source = op.getSource(), dest = op.getDest();
    if (llvm::any_of(op->getOperands().drop_front(2),
                     [&](Value v) { return positions.count(v); }))
      return mixes(op, "its bounds depend on them");
    SmallVector<int64_t> destDims = tessel::cpu::insertedDims(op);
    Copies fromSource;
    for (AxisPos copy : positions.lookup(source))
      fromSource.push_back(AxisPos{destDims[copy.dim], copy.stride});
    Copies fromDest = positions.lookup(dest);
    if (!fromSource.empty() && !fromDest.empty() && fromSource != fromDest)
      return mixes(op, "the slice moves them");
    Copies copies = fromDest.empty() ? fromSource : fromDest;
    for (AxisPos copy : copies) {
      if (!tessel::cpu::takesWhole(op.getStaticOffsets(), op.getStaticSizes(),
                                   op.getStaticStrides(), copy.dim,
                                   extent(dest, copy.dim)))
        return mixes(op, "it writes part of their dimension");
      int64_t sourceDim = llvm::find(destDims, copy.dim) - destDims.begin();
      if (sourceDim == int64_t(destDims.size()))
        return mixes(op, "it writes part of their dimension");
      if ((fromDest.empty() && !tessel::cpu::isUniformAlong(dest, copy.dim)) ||
          (fromSource.empty() &&
           !tessel::cpu::isUniformAlong(source, sourceDim)))
        return mixes(op, "what it writes differs from one position to the "
                         "next");
    }
    positions[op.getResult()] = copies;
    return success();
  }

  int64_t length = 0;
  Value validLength;
  /// The values that depend on the positions, with where they hold them.
  DenseMap<Value, Copies> positions;
};

} // namespace
