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
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
    SmallVector<APInt> narrow;
    for (const APInt &v : constant.getValues<APInt>()) {
      if (!v.isSignedIntN(8))
        return std::nullopt;
      narrow.push_back(v.trunc(8));
    }
    auto narrowType = type.clone(IntegerType::get(input.getContext(), 8));
    return NarrowInput{Value(), DenseIntElementsAttr::get(narrowType, narrow),
                       true};
  }
  auto extend = input.getDefiningOp<linalg::GenericOp>();
  if (!extend || extend.getNumDpsInputs() != 1 || extend->getNumResults() != 1 ||
      extend.getNumReductionLoops() != 0 || !extend.hasPureTensorSemantics() ||
      !llvm::all_of(extend.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return std::nullopt;
  Block &body = extend.getRegion().front();
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation *ext = &body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!isa<arith::ExtSIOp, arith::ExtUIOp>(ext) ||
      ext->getOperand(0) != body.getArgument(0) ||
      yield.getValues()[0] != ext->getResult(0))
    return std::nullopt;
  Value source = extend.getDpsInputs()[0];
  if (!getElementTypeOrSelf(source.getType()).isInteger(8))
    return std::nullopt;
  return NarrowInput{source, DenseIntElementsAttr(), isa<arith::ExtSIOp>(ext)};
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
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulIOp>(&body.front());
  auto add = dyn_cast<arith::AddIOp>(mul ? mul->getNextNode() : nullptr);
  if (!mul || !add)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1),
        out = body.getArgument(2);
  bool mulReadsInputs = (mul.getLhs() == a && mul.getRhs() == b) ||
                        (mul.getLhs() == b && mul.getRhs() == a);
  bool addReadsMulAndOut = (add.getLhs() == out && add.getRhs() == mul) ||
                           (add.getLhs() == mul && add.getRhs() == out);
  return mulReadsInputs && addReadsMulAndOut;
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
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value lhsValue = lhs->materialize(rewriter, loc);
    Value rhsValue = rhs->materialize(rewriter, loc);
    auto narrowed = linalg::GenericOp::create(
        rewriter, loc, op->getResultTypes(), ValueRange{lhsValue, rhsValue},
        op.getDpsInits(), op.getIndexingMapsArray(),
        op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Type i32 = b.getI32Type();
          auto extend = [&](Value v, bool isSigned) -> Value {
            if (isSigned)
              return arith::ExtSIOp::create(b, bodyLoc, i32, v);
            return arith::ExtUIOp::create(b, bodyLoc, i32, v);
          };
          Value a = extend(args[0], lhs->isSigned);
          Value c = extend(args[1], rhs->isSigned);
          Value product = arith::MulIOp::create(b, bodyLoc, a, c);
          Value sum = arith::AddIOp::create(b, bodyLoc, args[2], product);
          linalg::YieldOp::create(b, bodyLoc, sum);
        });
    // The discardable attributes (the fusion group) stay.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      narrowed->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOp(op, narrowed->getResults());
    return success();
  }
};

struct NarrowIntegerProductsPass
    : tessel::impl::TesselNarrowIntegerProductsPassBase<
          NarrowIntegerProductsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<NarrowIntegerProduct>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
