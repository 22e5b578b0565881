//===- Resize.cpp - resize to linalg --------------------------------------===//
//
// Resize interpolates one dimension at a time, the last one first (as ONNX's
// reference does: inner dimensions are interpolated before outer ones, which
// matters only for tf_crop_and_resize's extrapolation). Each step is one
// linalg.generic over its output: the body maps the output index along the
// resized dimension to a source coordinate (in f64, as the reference), reads
// the neighbours with tensor.extract and weighs them.
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

/// What one step needs to know about its dimension.
struct AxisResize {
  int64_t axis, inputExtent, outputExtent;
  double scale, roiStart = 0.0, roiEnd = 1.0;
};

/// The source coordinate of output index `x` (f64), as ONNX's reference
/// computes it; `outside` is set for tf_crop_and_resize.
Value sourceCoordinate(F64Builder &f, CoordinateTransformationMode mode,
                       const AxisResize &a, Value x, Value &outside) {
  // The reference's "output width" is scale * input extent, unrounded.
  double width = a.scale * static_cast<double>(a.inputExtent);
  double last = static_cast<double>(a.inputExtent - 1);
  if (mode == CoordinateTransformationMode::AlignCorners)
    return width == 1.0 ? f.c(0.0)
                        : f.div(f.mul(x, f.c(last)), f.c(width - 1.0));
  if (mode == CoordinateTransformationMode::Asymmetric)
    return f.div(x, f.c(a.scale));
  if (mode == CoordinateTransformationMode::TfCropAndResize) {
    double span = a.roiEnd - a.roiStart;
    Value ori = width == 1.0
                    ? f.c(span * last / 2.0)
                    : f.div(f.mul(f.mul(x, f.c(span)), f.c(last)),
                            f.c(width - 1.0));
    ori = f.add(ori, f.c(a.roiStart * last));
    Value below = arith::CmpFOp::create(f.b, f.loc, arith::CmpFPredicate::OLT,
                                        ori, f.c(0.0));
    Value above = arith::CmpFOp::create(f.b, f.loc, arith::CmpFPredicate::OGT,
                                        ori, f.c(last));
    outside = arith::OrIOp::create(f.b, f.loc, below, above);
    return ori;
  }
  if (mode == CoordinateTransformationMode::TfHalfPixelForNN)
    return f.div(f.add(x, f.c(0.5)), f.c(a.scale));
  if (mode == CoordinateTransformationMode::PytorchHalfPixel && width == 1.0)
    return f.c(-0.5);
  // half_pixel, pytorch_half_pixel.
  return f.sub(f.div(f.add(x, f.c(0.5)), f.c(a.scale)), f.c(0.5));
}

/// Keys' cubic kernel weights of the 4 neighbours at `ratio` in (0, 1].
SmallVector<Value> cubicWeights(F64Builder &f, Value ratio, double A) {
  auto far = [&](Value t) { // |distance| in [1, 2]: t = distance.
    return f.sub(
        f.mul(f.add(f.mul(f.sub(f.mul(f.c(A), t), f.c(5 * A)), t), f.c(8 * A)),
              t),
        f.c(4 * A));
  };
  auto near = [&](Value t) { // |distance| in [0, 1].
    return f.add(
        f.mul(f.mul(f.sub(f.mul(f.c(A + 2), t), f.c(A + 3)), t), t), f.c(1.0));
  };
  Value one = f.c(1.0);
  Value rest = f.sub(one, ratio);
  return {far(f.add(ratio, one)), near(ratio), near(rest),
          far(f.add(rest, one))};
}

/// One interpolation step along `a.axis` of `input`.
Value resizeAxis(OpBuilder &b, Location loc, ResizeOp op, Value input,
                 const AxisResize &a) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Type element = inputType.getElementType();
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> shape(inputType.getShape());
  shape[a.axis] = a.outputExtent;
  auto resultType = RankedTensorType::get(shape, element);
  Value init = tensor::EmptyOp::create(b, loc, shape, element);
  InterpolationMode mode = op.getMode();
  CoordinateTransformationMode coordinates =
      op.getCoordinateTransformationMode();
  NearestMode nearestMode = op.getNearestMode();
  bool excludeOutside = op.getExcludeOutside();
  double cubicA = op.getCubicCoeffA().convertToDouble();
  double extrapolation = op.getExtrapolationValue().convertToDouble();

  auto body = [&](OpBuilder &nb, Location l, ValueRange) {
    F64Builder f{nb, l};
    SmallVector<Value> indices;
    for (int64_t i = 0; i < rank; ++i)
      indices.push_back(linalg::IndexOp::create(nb, l, i));
    Value outside;
    Value x = sourceCoordinate(f, coordinates, a, f.fromIndex(indices[a.axis]),
                               outside);
    Value zero = arith::ConstantIndexOp::create(nb, l, 0);
    Value lastIndex = arith::ConstantIndexOp::create(nb, l, a.inputExtent - 1);
    auto clamp = [&](Value i) {
      return arith::MinSIOp::create(
          nb, l, arith::MaxSIOp::create(nb, l, i, zero), lastIndex);
    };
    auto read = [&](Value i) {
      SmallVector<Value> at(indices);
      at[a.axis] = clamp(i);
      return tensor::ExtractOp::create(nb, l, input, at).getResult();
    };

    Value result;
    if (mode == InterpolationMode::Nearest) {
      // The reference picks the neighbour below the coordinate unless the
      // rounding mode says otherwise; an integer coordinate is exact.
      Value rounded;
      if (nearestMode == NearestMode::RoundPreferFloor)
        rounded = f.ceil(f.sub(x, f.c(0.5)));
      else if (nearestMode == NearestMode::RoundPreferCeil)
        rounded = f.floor(f.add(x, f.c(0.5)));
      else if (nearestMode == NearestMode::Floor)
        rounded = f.floor(x);
      else
        rounded = f.ceil(x);
      result = read(f.toIndex(rounded));
    } else {
      // Neighbours from base - (n/2 - 1): base = ceil(x) - 1, so that the
      // ratio x - base is in (0, 1] as in the reference.
      Value base = f.sub(f.ceil(x), f.c(1.0));
      Value ratio = f.sub(x, base);
      SmallVector<Value> weights;
      if (mode == InterpolationMode::Linear)
        weights = {f.sub(f.c(1.0), ratio), ratio};
      else
        weights = cubicWeights(f, ratio, cubicA);
      int64_t n = weights.size();
      Value first = f.toIndex(base);
      Value sum = f.c(0.0), total = f.c(0.0);
      for (int64_t t = 0; t < n; ++t) {
        Value i = arith::AddIOp::create(
            nb, l, first,
            arith::ConstantIndexOp::create(nb, l, t - (n / 2 - 1)));
        Value w = weights[t];
        if (excludeOutside) {
          Value inside = arith::AndIOp::create(
              nb, l,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, i, zero),
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sle, i,
                                    lastIndex));
          w = arith::SelectOp::create(nb, l, inside, w, f.c(0.0));
          total = f.add(total, w);
        }
        Value v = convertScalar(nb, l, read(i), element, nb.getF64Type());
        sum = f.add(sum, f.mul(w, v));
      }
      if (excludeOutside)
        sum = f.div(sum, total);
      result = convertScalar(nb, l, sum, nb.getF64Type(), element);
    }
    if (outside) {
      Value fill = arith::ConstantOp::create(
          nb, l, FloatAttr::get(element, extrapolation));
      result = arith::SelectOp::create(nb, l, outside, fill, result);
    }
    linalg::YieldOp::create(nb, l, result);
  };
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{}, init,
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             body)
      .getResult(0);
}

struct ResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = inputType.getRank();
    bool crop = op.getCoordinateTransformationMode() ==
                CoordinateTransformationMode::TfCropAndResize;
    ArrayRef<int64_t> sizes = op.getSizes();
    ArrayRef<double> scales = op.getScales();
    Value current = op.getInput();
    for (int64_t axis = rank - 1; axis >= 0; --axis) {
      AxisResize a{axis, inputType.getDimSize(axis), sizes[axis],
                   scales[axis]};
      if (crop) {
        a.roiStart = (*op.getRoi())[axis];
        a.roiEnd = (*op.getRoi())[rank + axis];
      }
      // An unscaled dimension maps every index to itself.
      if (a.inputExtent == a.outputExtent && a.scale == 1.0 &&
          (!crop || (a.roiStart == 0.0 && a.roiEnd == 1.0)))
        continue;
      current = resizeAxis(rewriter, op.getLoc(), op, current, a);
    }
    rewriter.replaceOp(op, current);
    return success();
  }
};

} // namespace

void mlir::tessel::populateResizeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(patterns.getContext());
}
