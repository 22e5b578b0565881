//===- Contraction.cpp - MatMul and Gemm to linalg ------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// `acc + a * b` with an optional scale on the product.
Value multiplyAccumulate(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         Value acc, std::optional<double> scale) {
  Value product = createMul(b, loc, lhs, rhs);
  if (scale) {
    Value s = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(product.getType(), *scale));
    product = arith::MulFOp::create(b, loc, product, s);
  }
  return createAdd(b, loc, acc, product);
}

/// Builds a reduction generic over `iterators` with the given maps, `inputs`
/// read, `init` accumulated. With an f32 `init` and narrower inputs (f16,
/// bf16), each input is extended to f32 first.
Value buildContraction(OpBuilder &b, Location loc, ValueRange inputs,
                       Value init, ArrayRef<AffineMap> maps,
                       ArrayRef<utils::IteratorType> iterators,
                       std::optional<double> scale) {
  Type accElement = getElementTypeOrSelf(init.getType());
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value lhs = args[0], rhs = args[1];
        if (lhs.getType() != accElement)
          lhs = arith::ExtFOp::create(nb, nloc, accElement, lhs);
        if (rhs.getType() != accElement)
          rhs = arith::ExtFOp::create(nb, nloc, accElement, rhs);
        linalg::YieldOp::create(
            nb, nloc, multiplyAccumulate(nb, nloc, lhs, rhs, args[2], scale));
      });
  return generic.getResult(0);
}

/// `acc` (f32) rounded to `resultType`'s element type.
Value roundTo(OpBuilder &b, Location loc, RankedTensorType resultType,
              Value acc) {
  Type element = resultType.getElementType();
  return buildElementwise(b, loc, resultType, acc,
                          [element](OpBuilder &nb, Location l,
                                    ValueRange args) -> Value {
                            return arith::TruncFOp::create(nb, l, element,
                                                           args[0]);
                          });
}

/// [..., M, K] x [..., K, N] -> [..., M, N]: loops (batch..., m, n, k).
struct MatMulLowering : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> lhsShape = op.getLhs().getType().getShape();
    ArrayRef<int64_t> rhsShape = op.getRhs().getType().getShape();
    int64_t rank = resultType.getRank(), batch = rank - 2;
    unsigned numLoops = rank + 1;
    AffineExpr m = getAffineDimExpr(batch, ctx);
    AffineExpr n = getAffineDimExpr(batch + 1, ctx);
    AffineExpr k = getAffineDimExpr(batch + 2, ctx);

    // Batch dims broadcast like elementwise operands.
    auto operandMap = [&](ArrayRef<int64_t> shape, AffineExpr row,
                          AffineExpr col) {
      AffineMap bcast = getBroadcastMap(ctx, shape.drop_back(2),
                                        resultType.getShape().drop_back(2));
      SmallVector<AffineExpr> exprs(bcast.getResults());
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {operandMap(lhsShape, m, k),
                                   operandMap(rhsShape, k, n),
                                   AffineMap::get(numLoops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);

    bool widen = sumsInF32(resultType.getElementType());
    RankedTensorType accType =
        widen ? resultType.clone(rewriter.getF32Type()) : resultType;
    Value init = buildFilled(rewriter, op.getLoc(), accType,
                             rewriter.getZeroAttr(accType.getElementType()));
    Value acc = buildContraction(rewriter, op.getLoc(),
                                 {op.getLhs(), op.getRhs()}, init, maps,
                                 iterators, std::nullopt);
    rewriter.replaceOp(op, widen ? roundTo(rewriter, op.getLoc(), resultType,
                                           acc)
                                 : acc);
    return success();
  }
};

/// alpha * op(A) * op(B) + beta * C: the accumulator starts as beta * C
/// broadcast (or zero), and the contraction adds alpha * a * b.
struct GemmLowering : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    bool widen = sumsInF32(resultType.getElementType());
    RankedTensorType accType =
        widen ? resultType.clone(rewriter.getF32Type()) : resultType;
    Type element = accType.getElementType();
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();

    Value init;
    if (op.getC() && beta != 0.0) {
      init = buildElementwise(
          rewriter, loc, accType, op.getC(),
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value c = args[0];
            if (c.getType() != element)
              c = arith::ExtFOp::create(b, l, element, c);
            if (beta == 1.0)
              return c;
            Value s = arith::ConstantOp::create(b, l,
                                                b.getFloatAttr(element, beta));
            return arith::MulFOp::create(b, l, c, s);
          });
    } else {
      init = buildFilled(rewriter, loc, accType,
                         rewriter.getZeroAttr(element));
    }

    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
               k = getAffineDimExpr(2, ctx);
    auto map = [&](AffineExpr r, AffineExpr c) {
      return AffineMap::get(3, 0, {r, c}, ctx);
    };
    SmallVector<AffineMap> maps = {
        op.getTransA() ? map(k, m) : map(m, k),
        op.getTransB() ? map(n, k) : map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    std::optional<double> scale;
    if (alpha != 1.0)
      scale = alpha;
    Value acc = buildContraction(rewriter, loc, {op.getA(), op.getB()}, init,
                                 maps, iterators, scale);
    rewriter.replaceOp(op, widen ? roundTo(rewriter, loc, resultType, acc)
                                 : acc);
    return success();
  }
};

/// One generic over every letter of the equation: the output's letters are
/// parallel loops, the others reductions; each operand reads its letters'
/// loops (a repeated letter reads a diagonal; a size-1 dimension under a
/// larger letter reads index 0), and the body accumulates their product.
struct EinsumLowering : OpRewritePattern<EinsumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EinsumOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto [ins, out] = op.getTerms();

    // Loops: the output letters, then the summed ones in order of use.
    SmallVector<char> letters(out.begin(), out.end());
    llvm::SmallDenseMap<char, int64_t> sizes;
    for (auto [term, input] : llvm::zip(ins, op.getInputs())) {
      auto type = cast<RankedTensorType>(input.getType());
      for (auto [letter, size] : llvm::zip(term, type.getShape())) {
        if (!llvm::is_contained(letters, letter))
          letters.push_back(letter);
        int64_t &known = sizes[letter];
        known = std::max(known, size);
      }
    }
    auto loopOf = [&](char letter) {
      return getAffineDimExpr(llvm::find(letters, letter) - letters.begin(),
                              ctx);
    };
    unsigned numLoops = letters.size();
    SmallVector<AffineMap> maps;
    for (auto [term, input] : llvm::zip(ins, op.getInputs())) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<AffineExpr> exprs;
      for (auto [letter, size] : llvm::zip(term, type.getShape()))
        exprs.push_back(size == 1 && sizes[letter] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : loopOf(letter));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (char letter : out)
      outExprs.push_back(loopOf(letter));
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators(out.size(),
                                               utils::IteratorType::parallel);
    iterators.append(numLoops - out.size(), utils::IteratorType::reduction);

    // f16 and bf16 sum in f32 (as MatMul does), each operand extended, and
    // round once at the end.
    bool widen = sumsInF32(resultType.getElementType());
    RankedTensorType accType =
        widen ? resultType.clone(rewriter.getF32Type()) : resultType;
    Type accElement = accType.getElementType();
    Value init =
        buildFilled(rewriter, loc, accType, rewriter.getZeroAttr(accElement));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accType, op.getInputs(), init, maps, iterators,
        [accElement](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> factors;
          for (Value arg : args.drop_back())
            factors.push_back(
                arg.getType() == accElement
                    ? arg
                    : arith::ExtFOp::create(b, l, accElement, arg));
          Value product = factors.front();
          for (Value factor : llvm::drop_begin(factors))
            product = createMul(b, l, product, factor);
          linalg::YieldOp::create(b, l, createAdd(b, l, args.back(), product));
        });
    Value acc = generic.getResult(0);
    rewriter.replaceOp(op,
                       widen ? roundTo(rewriter, loc, resultType, acc) : acc);
    return success();
  }
};

} // namespace

void mlir::tessel::populateContractionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, GemmLowering, EinsumLowering>(patterns.getContext());
}
