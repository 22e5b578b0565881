//===- GridSample.cpp - grid_sample to linalg -----------------------------===//
//
// One linalg.generic over the output (N, C, Hout, Wout). The body reads the
// grid point with tensor.extract, maps each of its two coordinates to a pixel
// coordinate as ONNX's reference does (denormalise, round to f32, then clamp
// or reflect what lies outside the borders), and weighs the 1, 2x2 or 4x4
// neighbours read with tensor.extract. Each neighbour's row and column are
// padded separately: "zeros" reads 0 outside the image, "border" clamps the
// index, "reflection" mirrors it. All arithmetic is in f64.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// One spatial axis of the input: its extent and reflection borders.
struct Axis {
  int64_t extent;
  double lo, hi;
};

/// `x` mirrored at the borders until it lies within them (the reference's
/// `_gs_reflect`); a zero-width range maps everything to its border.
Value reflect(F64Builder &f, Value x, const Axis &a) {
  double range = a.hi - a.lo;
  Value below = f.cmp(arith::CmpFPredicate::OLT, x, f.c(a.lo));
  Value above = f.cmp(arith::CmpFPredicate::OGT, x, f.c(a.hi));
  if (range == 0.0)
    return f.select(arith::OrIOp::create(f.b, f.loc, below, above), f.c(a.lo),
                    x);
  Value dx = f.select(below, f.sub(f.c(a.lo), x), f.sub(x, f.c(a.hi)));
  Value n = f.floor(f.div(dx, f.c(range)));
  Value r = f.sub(dx, f.mul(n, f.c(range)));
  Value half = f.mul(n, f.c(0.5));
  Value even = f.cmp(arith::CmpFPredicate::OEQ, f.floor(half), half);
  Value fromLo = f.add(f.c(a.lo), r), fromHi = f.sub(f.c(a.hi), r);
  Value belowResult = f.select(even, fromLo, fromHi);
  Value aboveResult = f.select(even, fromHi, fromLo);
  return f.select(below, belowResult, f.select(above, aboveResult, x));
}

/// A neighbour along one axis: the index to read and, for "zeros", whether
/// it lies inside the image.
struct Tap {
  Value index, inside;
};

/// The index of integer coordinate `i` (f64) after padding.
Tap padIndex(F64Builder &f, Value i, const Axis &a, GridPaddingMode padding) {
  double last = static_cast<double>(a.extent - 1);
  Tap tap;
  if (padding == GridPaddingMode::Reflection)
    i = reflect(f, i, a);
  else if (padding == GridPaddingMode::Zeros)
    tap.inside = arith::AndIOp::create(
        f.b, f.loc, f.cmp(arith::CmpFPredicate::OGE, i, f.c(0.0)),
        f.cmp(arith::CmpFPredicate::OLE, i, f.c(last)));
  // Clamping keeps every read in bounds; it is the padding for "border".
  Value clamped = f.clamp(i, 0.0, last);
  tap.index = f.toIndex(clamped);
  return tap;
}

/// Keys' cubic kernel (a = -0.75) weights of the 4 neighbours at fraction
/// `t` in [0, 1).
SmallVector<Value> cubicWeights(F64Builder &f, Value t) {
  const double A = -0.75;
  auto far = [&](Value d) { // |distance| in [1, 2].
    return f.sub(
        f.mul(f.add(f.mul(f.sub(f.mul(f.c(A), d), f.c(5 * A)), d), f.c(8 * A)),
              d),
        f.c(4 * A));
  };
  auto near = [&](Value d) { // |distance| in [0, 1].
    return f.add(f.mul(f.mul(f.sub(f.mul(f.c(A + 2), d), f.c(A + 3)), d), d),
                 f.c(1.0));
  };
  Value one = f.c(1.0);
  Value rest = f.sub(one, t);
  return {far(f.add(t, one)), near(t), near(rest), far(f.add(rest, one))};
}

/// The neighbours of pixel coordinate `x` along one axis and their weights.
void neighbours(F64Builder &f, Value x, const Axis &a, InterpolationMode mode,
                GridPaddingMode padding, SmallVectorImpl<Tap> &taps,
                SmallVectorImpl<Value> &weights) {
  if (mode == InterpolationMode::Nearest) {
    taps.push_back(
        padIndex(f, math::TruncOp::create(f.b, f.loc, x), a, padding));
    weights.push_back(Value());
    return;
  }
  Value x0 = f.floor(x);
  Value t = f.sub(x, x0);
  int64_t first = 0;
  if (mode == InterpolationMode::Linear) {
    weights.append({f.sub(f.c(1.0), t), t});
  } else {
    weights.append(cubicWeights(f, t));
    first = -1;
  }
  for (int64_t k = 0, e = weights.size(); k < e; ++k)
    taps.push_back(padIndex(f, f.add(x0, f.c(static_cast<double>(first + k))),
                            a, padding));
}

struct GridSampleLowering : OpRewritePattern<GridSampleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GridSampleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), grid = op.getGrid();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = inputType.getElementType();
    Type gridElement = cast<RankedTensorType>(grid.getType()).getElementType();
    InterpolationMode mode = op.getMode();
    GridPaddingMode padding = op.getPaddingMode();
    bool alignCorners = op.getAlignCorners();
    // Axis 0 is the height (read with the grid's y), axis 1 the width (x).
    Axis axes[2];
    for (int d = 0; d < 2; ++d) {
      int64_t extent = inputType.getDimSize(2 + d);
      double e = static_cast<double>(extent);
      axes[d] = alignCorners ? Axis{extent, 0.0, e - 1.0}
                             : Axis{extent, -0.5, e - 0.5};
    }

    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element);
    auto body = [&](OpBuilder &nb, Location l, ValueRange) {
      F64Builder f{nb, l};
      Value n = linalg::IndexOp::create(nb, l, 0);
      Value c = linalg::IndexOp::create(nb, l, 1);
      Value h = linalg::IndexOp::create(nb, l, 2);
      Value w = linalg::IndexOp::create(nb, l, 3);
      SmallVector<Tap> taps[2];
      SmallVector<Value> weights[2];
      for (int d = 0; d < 2; ++d) {
        const Axis &a = axes[d];
        Value component = arith::ConstantIndexOp::create(nb, l, 1 - d);
        Value g = tensor::ExtractOp::create(nb, l, grid,
                                            ValueRange{n, h, w, component});
        g = convertScalar(nb, l, g, gridElement, nb.getF64Type());
        double e = static_cast<double>(a.extent);
        // Denormalise: [-1, 1] spans the corner centres or the edges.
        Value x =
            alignCorners
                ? f.mul(f.div(f.add(g, f.c(1.0)), f.c(2.0)), f.c(e - 1))
                : f.div(f.sub(f.mul(f.add(g, f.c(1.0)), f.c(e)), f.c(1.0)),
                        f.c(2.0));
        x = f.roundToF32(x);
        if (mode == InterpolationMode::Nearest)
          x = math::RoundEvenOp::create(nb, l, x);
        if (padding == GridPaddingMode::Border) {
          Value outside = arith::OrIOp::create(
              nb, l, f.cmp(arith::CmpFPredicate::OLT, x, f.c(a.lo)),
              f.cmp(arith::CmpFPredicate::OGT, x, f.c(a.hi)));
          x = f.select(outside, f.clamp(x, 0.0, e - 1), x);
        } else if (padding == GridPaddingMode::Reflection) {
          x = reflect(f, x, a);
        }
        x = f.roundToF32(x);
        neighbours(f, x, a, mode, padding, taps[d], weights[d]);
      }

      Value sum = f.c(0.0);
      Value zero = f.c(0.0);
      for (auto [tapY, weightY] : llvm::zip(taps[0], weights[0])) {
        for (auto [tapX, weightX] : llvm::zip(taps[1], weights[1])) {
          Value v = tensor::ExtractOp::create(
              nb, l, input, ValueRange{n, c, tapY.index, tapX.index});
          v = convertScalar(nb, l, v, element, nb.getF64Type());
          if (padding == GridPaddingMode::Zeros)
            v = f.select(arith::AndIOp::create(nb, l, tapY.inside, tapX.inside),
                         v, zero);
          if (weightY)
            v = f.mul(f.mul(weightY, weightX), v);
          sum = mode == InterpolationMode::Nearest ? v : f.add(sum, v);
        }
      }
      linalg::YieldOp::create(
          nb, l, convertScalar(nb, l, sum, nb.getF64Type(), element));
    };
    int64_t rank = resultType.getRank();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{}, init,
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        body);
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::tessel::populateGridSampleToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(patterns.getContext());
}
