//===- NarrowIntegerProducts.cpp - i32 products of 8-bit values ----------===//
//
// ONNX's MatMulInteger (without zero points) imports as a sign extension of
// its 8-bit operands to i32 and an i32 product, and the extension of a
// constant folds into an i32 constant. The product then reads four times the
// bytes it needs, and no 8-bit dot-product instruction (VNNI's vpdpbusd) can
// run it. This rewrite gives the product its 8-bit operands back: an input
// that is an all-parallel extension from i8 (or a constant whose values all
// fit i8) is read narrow, extended inside the product's body. The result is
// exactly the same integers.
//
// A left-hand side centred by a constant zero point (MatMulInteger's
// a_zero_point: `ext(a) - zp`) is read narrow too when the right-hand side
// is a constant: (a - zp) . b = a . b - zp * sum(b) per column, and that
// column sum is taken out of the product's initial value once.
//
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <vector>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELNARROWINTEGERPRODUCTSPASS
#include "tessel/Linalg/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// An i32 input read as 8 bits: the narrow value (or the narrow constant
/// to create) and whether it extends signed (extsi) or unsigned (extui).
struct NarrowInput {
  Value value;
  DenseIntElementsAttr constant;
  bool isSigned;
  /// The constant subtracted from every extended value (a zero point).
  int64_t zeroPoint = 0;

  Value materialize(OpBuilder &b, Location loc) const {
    if (value)
      return value;
    return arith::ConstantOp::create(b, loc, constant);
  }
};

/// `input` as an 8-bit value, when it is one extended: an all-parallel
/// identity generic whose body extends its one i8 input, or a constant whose
/// values all fit i8 (signed).
std::optional<NarrowInput> narrowOf(Value input) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || !type.getElementType().isInteger(32) || !type.hasStaticShape())
    return std::nullopt;
  DenseIntElementsAttr constant;
  if (matchPattern(input, m_Constant(&constant))) {
    // Value by value, one byte each (weights can be large).
    auto fits = [](int32_t v) { return v >= -128 && v <= 127; };
    auto narrowType = type.clone(IntegerType::get(input.getContext(), 8));
    DenseElementsAttr attr;
    if (constant.isSplat()) {
      int32_t v = constant.getSplatValue<int32_t>();
      if (!fits(v))
        return std::nullopt;
      attr = DenseElementsAttr::get(narrowType, static_cast<int8_t>(v));
    } else {
      std::vector<int8_t> narrow;
      narrow.reserve(constant.getNumElements());
      for (int32_t v : constant.getValues<int32_t>()) {
        if (!fits(v))
          return std::nullopt;
        narrow.push_back(static_cast<int8_t>(v));
      }
      attr = DenseElementsAttr::get(narrowType, llvm::ArrayRef<int8_t>(narrow));
    }
    return NarrowInput{Value(), cast<DenseIntElementsAttr>(attr), true};
  }
  auto extend = input.getDefiningOp<linalg::GenericOp>();
  if (!extend || extend.getNumDpsInputs() < 1 || extend.getNumDpsInputs() > 2 ||
      extend->getNumResults() != 1 || extend.getNumReductionLoops() != 0 ||
      !extend.hasPureTensorSemantics() ||
      !extend.getMatchingIndexingMap(extend.getDpsInputOperand(0))
           .isIdentity() ||
      !extend.getIndexingMapMatchingResult(extend->getResult(0)).isIdentity())
    return std::nullopt;
  Block &body = extend.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *ext = &body.front();
  if (!isa<arith::ExtSIOp, arith::ExtUIOp>(ext) ||
      ext->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  int64_t zeroPoint = 0;
  if (extend.getNumDpsInputs() == 1) {
    if (body.getOperations().size() != 2 ||
        yield.getValues()[0] != ext->getResult(0))
      return std::nullopt;
  } else {
    // ext(a) - zp, zp one constant value broadcast.
    DenseIntElementsAttr zp;
    auto sub = dyn_cast<arith::SubIOp>(ext->getNextNode());
    if (body.getOperations().size() != 3 || !sub ||
        sub.getLhs() != ext->getResult(0) ||
        sub.getRhs() != body.getArgument(1) ||
        yield.getValues()[0] != sub.getResult() ||
        !matchPattern(extend.getDpsInputs()[1], m_Constant(&zp)) ||
        !zp.isSplat())
      return std::nullopt;
    zeroPoint = zp.getSplatValue<APInt>().getSExtValue();
  }
  Value source = extend.getDpsInputs()[0];
  if (!getElementTypeOrSelf(source.getType()).isInteger(8))
    return std::nullopt;
  // A sign extension of constant weights reads that constant (whose column
  // sums can absorb the other side's zero point).
  DenseIntElementsAttr weights;
  if (isa<arith::ExtSIOp>(ext) && zeroPoint == 0 &&
      matchPattern(source, m_Constant(&weights)))
    return NarrowInput{Value(), weights, true};
  return NarrowInput{source, DenseIntElementsAttr(), isa<arith::ExtSIOp>(ext),
                     zeroPoint};
}

/// Whether `op` is a contraction on i32 whose body is `out + a * b`.
bool isI32MultiplyAdd(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op->getNumResults() != 1 ||
      !op.hasPureTensorSemantics() || !linalg::isaContractionOpInterface(op))
    return false;
  if (!llvm::all_of(op->getOperandTypes(), [](Type t) {
        return getElementTypeOrSelf(t).isInteger(32);
      }))
    return false;
  // A contraction body (the multiply of the inputs, the add to the output)
  // of exactly those two ops: no conversions, and a multiply-add, not an
  // or-of-and.
  Block &body = op.getRegion().front();
  return body.getOperations().size() == 3 && isa<arith::MulIOp>(body.front());
}

/// Whether `op` reads its right-hand side as a matrix [K, N] of its one
/// reduction dimension k and its result's last dimension n, the left-hand
/// side's last dimension being k: a product (maybe with leading batch or
/// row dimensions on the left and the result) whose output column n is a
/// column of the right-hand side.
bool readsColumns(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 1)
    return false;
  AffineMap lhs = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!rhs.isProjectedPermutation() || rhs.getNumResults() != 2 ||
      !lhs.isProjectedPermutation() || !out.isProjectedPermutation() ||
      out.getNumResults() + 1 != op.getNumLoops() || out.getNumResults() < 2)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned k = cast<AffineDimExpr>(rhs.getResult(0)).getPosition();
  unsigned n = cast<AffineDimExpr>(rhs.getResult(1)).getPosition();
  return iterators[k] == utils::IteratorType::reduction &&
         lhs.getResults().back() == rhs.getResult(0) &&
         out.getResults().back() == rhs.getResult(1) &&
         !llvm::is_contained(lhs.getResults(),
                             getAffineDimExpr(n, op.getContext()));
}

/// The sums of the i8 constant `weights` per entry of `channelDim` (a
/// product's columns of [K, N], a convolution's filters of [F, ...]).
SmallVector<int64_t> channelSums(DenseIntElementsAttr weights,
                                 unsigned channelDim) {
  auto type = cast<RankedTensorType>(weights.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t channels = shape[channelDim];
  int64_t inner = 1;
  for (size_t d = channelDim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  SmallVector<int64_t> sums(channels, 0);
  // (A splat's raw data is its one value.)
  ArrayRef<char> values = weights.getRawData();
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
    sums[(i / inner) % channels] +=
        static_cast<int8_t>(values[weights.isSplat() ? 0 : i]);
  return sums;
}

/// `init - zeroPoint * sums[j]`, j the index along `column` of the
/// product's output: the correction of a zero point subtracted from the
/// left-hand side, `sums` the right-hand side's sums per output column.
/// The new generic is the product's prologue (it keeps the product's
/// fusion group).
Value correctedInit(PatternRewriter &rewriter, linalg::GenericOp op,
                    Value init, int64_t zeroPoint, ArrayRef<int64_t> sums,
                    unsigned column) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<APInt> corrections;
  for (int64_t sum : sums)
    // i32 arithmetic wraps: the correction is taken modulo 2^32 too.
    corrections.push_back(APInt(32, uint64_t(zeroPoint * sum),
                                /*isSigned=*/false, /*implicitTrunc=*/true));
  auto correctionType = RankedTensorType::get(
      {static_cast<int64_t>(sums.size())}, rewriter.getI32Type());
  Value correction = arith::ConstantOp::create(
      rewriter, loc, DenseIntElementsAttr::get(correctionType, corrections));
  auto initType = cast<RankedTensorType>(init.getType());
  Value empty = tensor::EmptyOp::create(rewriter, loc, initType.getShape(),
                                        initType.getElementType());
  unsigned rank = initType.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap columnMap =
      AffineMap::get(rank, 0, getAffineDimExpr(column, ctx), ctx);
  // A fill (the product's zeros) is read as its value: the corrected
  // initial value then reads the correction only.
  Value start;
  SmallVector<Value> inputs = {init, correction};
  SmallVector<AffineMap> maps = {identity, columnMap, identity};
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    start = fill.getInputs()[0];
    inputs.erase(inputs.begin());
    maps.erase(maps.begin());
  }
  auto corrected = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        Value from = start ? start : args[0];
        linalg::YieldOp::create(
            b, bodyLoc,
            arith::SubIOp::create(b, bodyLoc, from, args.drop_back().back())
                .getResult());
      });
  for (NamedAttribute attr : op->getDiscardableAttrs())
    corrected->setAttr(attr.getName(), attr.getValue());
  return corrected.getResult(0);
}

/// `op` (an i32 multiply-add) on 8-bit inputs extended in its body, from
/// `init`; it keeps its maps, iterators and discardable attributes (the
/// fusion group).
linalg::GenericOp narrowedProduct(PatternRewriter &rewriter,
                                  linalg::GenericOp op, Value lhs, Value rhs,
                                  Value init, bool lhsSigned, bool rhsSigned) {
  auto narrowed = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), ValueRange{lhs, rhs},
      ValueRange{init}, op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        Type i32 = b.getI32Type();
        auto extend = [&](Value v, bool isSigned) -> Value {
          if (isSigned)
            return arith::ExtSIOp::create(b, bodyLoc, i32, v);
          return arith::ExtUIOp::create(b, bodyLoc, i32, v);
        };
        Value a = extend(args[0], lhsSigned);
        Value c = extend(args[1], rhsSigned);
        Value product = arith::MulIOp::create(b, bodyLoc, a, c);
        Value sum = arith::AddIOp::create(b, bodyLoc, args[2], product);
        linalg::YieldOp::create(b, bodyLoc, sum);
      });
  for (NamedAttribute attr : op->getDiscardableAttrs())
    narrowed->setAttr(attr.getName(), attr.getValue());
  return narrowed;
}

struct NarrowIntegerProduct : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isI32MultiplyAdd(op))
      return rewriter.notifyMatchFailure(op, "not an i32 multiply-add");
    std::optional<NarrowInput> lhs = narrowOf(op.getDpsInputs()[0]);
    std::optional<NarrowInput> rhs = narrowOf(op.getDpsInputs()[1]);
    if (!lhs || !rhs)
      return rewriter.notifyMatchFailure(op, "an input is not 8-bit");
    // A zero point on the left-hand side folds into the initial value when
    // the right-hand side is a constant [K, N] of a plain product; one on
    // the right-hand side would need the run-time row sums of the left.
    if (rhs->zeroPoint != 0 ||
        (lhs->zeroPoint != 0 && (!rhs->constant || !readsColumns(op))))
      return rewriter.notifyMatchFailure(op, "a zero point that cannot fold");
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value lhsValue = lhs->materialize(rewriter, loc);
    Value rhsValue = rhs->materialize(rewriter, loc);
    Value init = op.getDpsInits()[0];
    if (lhs->zeroPoint != 0) {
      // init - zp * sum_k b[k][n], the sum along each column.
      auto initType = cast<RankedTensorType>(init.getType());
      init = correctedInit(rewriter, op, init, lhs->zeroPoint,
                           channelSums(rhs->constant, /*channelDim=*/1),
                           initType.getRank() - 1);
    }
    auto narrowed = narrowedProduct(rewriter, op, lhsValue, rhsValue, init,
                                    lhs->isSigned, rhs->isSigned);
    rewriter.replaceOp(op, narrowed->getResults());
    return success();
  }
};

/// Whether `op` is a convolution on i32 whose body is `out + in * w`.
bool isI32Convolution(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op->getNumResults() != 1 ||
      !op.hasPureTensorSemantics() ||
      !linalg::isaConvolutionOpInterface(op))
    return false;
  if (!llvm::all_of(op->getOperandTypes(), [](Type t) {
        return getElementTypeOrSelf(t).isInteger(32);
      }))
    return false;
  Block &body = op.getRegion().front();
  auto mul = dyn_cast<arith::MulIOp>(body.front());
  auto add = dyn_cast_or_null<arith::AddIOp>(mul ? mul->getNextNode() : nullptr);
  return body.getOperations().size() == 3 && add &&
         llvm::is_contained(mul->getOperands(), body.getArgument(0)) &&
         llvm::is_contained(mul->getOperands(), body.getArgument(1)) &&
         llvm::is_contained(add->getOperands(), body.getArgument(2));
}

/// The sum of each filter's weights, when `op` reads its constant weights
/// (input 1) as [F, reduction dims...] and writes filter f at output
/// dimension `column`.
std::optional<SmallVector<int64_t>>
filterSums(linalg::GenericOp op, DenseIntElementsAttr weights,
           unsigned &column) {
  AffineMap weightMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (!weightMap.isProjectedPermutation() || weightMap.getNumResults() < 1)
    return std::nullopt;
  for (AffineExpr e : weightMap.getResults().drop_front())
    if (iterators[cast<AffineDimExpr>(e).getPosition()] !=
        utils::IteratorType::reduction)
      return std::nullopt;
  std::optional<unsigned> at =
      outMap.getResultPosition(weightMap.getResult(0));
  if (!at)
    return std::nullopt;
  column = *at;
  return channelSums(weights, /*channelDim=*/0);
}

/// An i32 convolution of 8-bit values, as ConvInteger, QLinearConv and
/// the integer products of QDQ models lower: its input `ext(x) - zp`,
/// padded with 0, is read as x padded with zp (the padding then centres to
/// 0 as before), and zp * (the sum of each filter's weights) comes off the
/// initial value once.
struct NarrowIntegerConvolution : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isI32Convolution(op))
      return rewriter.notifyMatchFailure(op, "not an i32 convolution");
    Value input = op.getDpsInputs()[0];
    auto pad = input.getDefiningOp<tensor::PadOp>();
    if (pad) {
      Value padding = pad.getConstantPaddingValue();
      if (!padding || !matchPattern(padding, m_Zero()))
        return rewriter.notifyMatchFailure(op, "padded with a nonzero value");
      input = pad.getSource();
    }
    std::optional<NarrowInput> lhs = narrowOf(input);
    std::optional<NarrowInput> rhs = narrowOf(op.getDpsInputs()[1]);
    if (!lhs || !rhs || rhs->zeroPoint != 0)
      return rewriter.notifyMatchFailure(op, "an input is not 8-bit");
    std::optional<SmallVector<int64_t>> sums;
    unsigned column = 0;
    if (lhs->zeroPoint != 0 &&
        (!rhs->constant ||
         !(sums = filterSums(op, rhs->constant, column))))
      return rewriter.notifyMatchFailure(op, "a zero point that cannot fold");
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value lhsValue = lhs->materialize(rewriter, loc);
    if (pad) {
      auto type = cast<RankedTensorType>(pad.getType())
                      .clone(rewriter.getIntegerType(8));
      Value zeroPoint = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getIntegerAttr(rewriter.getIntegerType(8),
                                  APInt(8, uint64_t(lhs->zeroPoint),
                                        /*isSigned=*/false,
                                        /*implicitTrunc=*/true)));
      lhsValue = tensor::PadOp::create(
                     rewriter, pad.getLoc(), type, lhsValue,
                     pad.getMixedLowPad(), pad.getMixedHighPad(), zeroPoint,
                     pad.getNofold())
                     .getResult();
    }
    Value rhsValue = rhs->materialize(rewriter, loc);
    Value init = op.getDpsInits()[0];
    if (lhs->zeroPoint != 0)
      init = correctedInit(rewriter, op, init, lhs->zeroPoint, *sums, column);
    auto narrowed = narrowedProduct(rewriter, op, lhsValue, rhsValue, init,
                                    lhs->isSigned, rhs->isSigned);
    rewriter.replaceOp(op, narrowed->getResults());
    return success();
  }
};

struct NarrowIntegerProductsPass
    : tessel::impl::TesselNarrowIntegerProductsPassBase<
          NarrowIntegerProductsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<NarrowIntegerProduct, NarrowIntegerConvolution>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
