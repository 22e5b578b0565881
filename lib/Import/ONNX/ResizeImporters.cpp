//===- ResizeImporters.cpp - Resize, Upsample and GridSample --------------===//
//
// Resize and Upsample become `tessel.resize` with the output shape resolved
// from constant scales or sizes. Upsample (opsets 7-9) and Resize-10 use the
// asymmetric coordinate transformation; their nearest mode rounds down, which
// is only settled for upsampling, so nearest downsampling is refused there.
// GridSample becomes `tessel.grid_sample` (4-D only).
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// Constant input `i` read as doubles (the exact values of its elements).
std::optional<SmallVector<double>> constantFloats(NodeContext &ctx, size_t i) {
  ElementsAttr value = ctx.constantInput(i);
  if (!value || !isa<FloatType>(value.getElementType()))
    return std::nullopt;
  SmallVector<double> result;
  for (APFloat v : value.getValues<APFloat>())
    result.push_back(v.convertToDouble());
  return result;
}

/// Whether input `i` is given and not an empty tensor.
bool hasNonEmptyInput(NodeContext &ctx, size_t i) {
  RankedTensorType type = ctx.inputType(i);
  return type && type.getNumElements() != 0;
}

/// The resolved geometry of one Resize/Upsample node.
struct Geometry {
  SmallVector<int64_t> sizes;
  SmallVector<double> scales;
};

/// Output sizes and scales from per-dimension `scales`: sizes are
/// floor(scale * extent), as in ONNX's reference.
LogicalResult fromScales(NodeContext &ctx, ArrayRef<int64_t> shape,
                         ArrayRef<double> scales, Geometry &g) {
  for (auto [extent, scale] : llvm::zip(shape, scales)) {
    if (!(scale > 0))
      return ctx.fail("scales must be positive");
    double size = std::floor(scale * static_cast<double>(extent));
    if (size < 1 || size > double(int64_t(1) << 40))
      return ctx.fail("scale " + std::to_string(scale) +
                      " gives an output extent of " + std::to_string(size));
    g.sizes.push_back(static_cast<int64_t>(size));
    g.scales.push_back(scale);
  }
  return success();
}

/// Emits the resize, refusing nearest downsampling for the legacy
/// (asymmetric, round-down) semantics.
LogicalResult emitLegacy(NodeContext &ctx, SmallVectorImpl<Value> &results,
                         ArrayRef<double> scales) {
  std::string mode = ctx.stringAttr("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    return ctx.fail("unknown mode '" + mode + "' (nearest, linear)");
  RankedTensorType x = ctx.inputType(0);
  if (scales.size() != static_cast<size_t>(x.getRank()))
    return ctx.fail("scales needs one entry per dimension of the input");
  if (mode == "nearest" && llvm::any_of(scales, [](double s) { return s < 1; }))
    return ctx.fail("nearest downsampling before Resize-11 is not supported "
                    "(its rounding is not settled)");
  Geometry g;
  if (failed(fromScales(ctx, x.getShape(), scales, g)))
    return failure();
  Builder &b = ctx.builder;
  MLIRContext *context = b.getContext();
  return ctx.emit<ResizeOp>(
      results, ctx.input(0), b.getDenseI64ArrayAttr(g.sizes),
      b.getDenseF64ArrayAttr(g.scales),
      InterpolationModeAttr::get(context, mode == "nearest"
                                              ? InterpolationMode::Nearest
                                              : InterpolationMode::Linear),
      CoordinateTransformationModeAttr::get(
          context, CoordinateTransformationMode::Asymmetric),
      NearestModeAttr::get(context, NearestMode::Floor),
      b.getF64FloatAttr(-0.75), b.getBoolAttr(false), b.getF64FloatAttr(0.0),
      DenseF64ArrayAttr());
}

LogicalResult importUpsample(NodeContext &ctx,
                             SmallVectorImpl<Value> &results) {
  if (!isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.fail("only floating-point inputs are supported");
  if (ctx.opset < 9) {
    const onnx::AttributeProto *a = ctx.attr("scales");
    if (!a || ctx.input(1))
      return ctx.fail("Upsample before opset 9 takes the 'scales' attribute");
    return emitLegacy(ctx, results,
                      SmallVector<double>(a->floats().begin(),
                                          a->floats().end()));
  }
  std::optional<SmallVector<double>> scales = constantFloats(ctx, 1);
  if (!scales)
    return ctx.failNonConstant(
        "scales must be a constant float tensor (the output "
        "shape depends on it)");
  return emitLegacy(ctx, results, *scales);
}

LogicalResult importResize(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("only floating-point inputs are supported");
  int64_t rank = x.getRank();
  if (ctx.opset < 11) {
    if (ctx.inputs.size() != 2)
      return ctx.fail("Resize-10 takes X and scales");
    std::optional<SmallVector<double>> scales = constantFloats(ctx, 1);
    if (!scales)
      return ctx.failNonConstant(
          "scales must be a constant float tensor (the output "
          "shape depends on it)");
    return emitLegacy(ctx, results, *scales);
  }

  if (ctx.intAttr("antialias", 0) != 0)
    return ctx.fail("antialias is not supported yet");
  std::string mode = ctx.stringAttr("mode", "nearest");
  std::string coordinates =
      ctx.stringAttr("coordinate_transformation_mode", "half_pixel");
  std::string policy = ctx.stringAttr("keep_aspect_ratio_policy", "stretch");
  if (coordinates == "half_pixel_symmetric")
    return ctx.fail("coordinate_transformation_mode '" + coordinates +
                    "' is not supported yet");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ctx.fail("unknown keep_aspect_ratio_policy '" + policy + "'");

  // The dimensions that scales, sizes and roi speak of.
  SmallVector<int64_t> axes;
  if (auto declared = ctx.intsAttr("axes")) {
    for (int64_t a : *declared) {
      std::optional<int64_t> axis = normalizeAxis(a, rank);
      if (!axis || llvm::is_contained(axes, *axis))
        return ctx.fail("axes must be distinct dimensions of the input");
      axes.push_back(*axis);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  size_t n = axes.size();

  bool hasScales = hasNonEmptyInput(ctx, 2), hasSizes = hasNonEmptyInput(ctx, 3);
  if (hasScales == hasSizes)
    return ctx.fail("exactly one of scales and sizes must be given");
  Geometry g;
  g.sizes.assign(x.getShape().begin(), x.getShape().end());
  g.scales.assign(rank, 1.0);
  if (hasScales) {
    std::optional<SmallVector<double>> scales = constantFloats(ctx, 2);
    if (!scales)
      return ctx.failNonConstant(
          "scales must be a constant float tensor (the output "
          "shape depends on it)");
    if (scales->size() != n)
      return ctx.fail("scales has " + llvm::Twine(scales->size()) +
                      " entries, expected " + llvm::Twine(n));
    SmallVector<int64_t> shape;
    for (int64_t axis : axes)
      shape.push_back(x.getDimSize(axis));
    Geometry selected;
    if (failed(fromScales(ctx, shape, *scales, selected)))
      return failure();
    for (auto [i, axis] : llvm::enumerate(axes)) {
      g.sizes[axis] = selected.sizes[i];
      g.scales[axis] = selected.scales[i];
    }
  } else {
    std::optional<SmallVector<int64_t>> sizes = ctx.constantInts(3);
    if (!sizes)
      return ctx.failNonConstant(
          "sizes must be a constant int64 tensor (the output "
          "shape depends on it)");
    if (sizes->size() != n)
      return ctx.fail("sizes has " + llvm::Twine(sizes->size()) +
                      " entries, expected " + llvm::Twine(n));
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if ((*sizes)[i] < 1)
        return ctx.fail("sizes must be positive");
      g.sizes[axis] = (*sizes)[i];
      g.scales[axis] = static_cast<double>((*sizes)[i]) /
                       static_cast<double>(x.getDimSize(axis));
    }
    if (policy != "stretch") {
      double scale = g.scales[axes.front()];
      for (int64_t axis : axes)
        scale = policy == "not_larger" ? std::min(scale, g.scales[axis])
                                       : std::max(scale, g.scales[axis]);
      for (int64_t axis : axes) {
        g.scales[axis] = scale;
        g.sizes[axis] = static_cast<int64_t>(
            scale * static_cast<double>(x.getDimSize(axis)) + 0.5);
      }
    }
  }

  DenseF64ArrayAttr roiAttr;
  if (coordinates == "tf_crop_and_resize") {
    std::optional<SmallVector<double>> roi = constantFloats(ctx, 1);
    if (!roi || roi->size() != 2 * n)
      return ctx.failNonConstant("tf_crop_and_resize needs a constant roi of " +
                                 llvm::Twine(2 * n) + " entries");
    SmallVector<double> full(rank, 0.0);
    full.append(rank, 1.0);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      full[axis] = (*roi)[i];
      full[rank + axis] = (*roi)[n + i];
    }
    roiAttr = ctx.builder.getDenseF64ArrayAttr(full);
  }

  std::optional<InterpolationMode> interpolation =
      symbolizeInterpolationMode(mode);
  if (!interpolation)
    return ctx.fail("unknown mode '" + mode + "' (nearest, linear, cubic)");
  std::optional<CoordinateTransformationMode> transformation =
      symbolizeCoordinateTransformationMode(coordinates);
  if (!transformation)
    return ctx.fail("unknown coordinate_transformation_mode '" + coordinates +
                    "' (half_pixel, pytorch_half_pixel, align_corners, "
                    "asymmetric, tf_crop_and_resize, tf_half_pixel_for_nn)");
  std::string nearest = ctx.stringAttr("nearest_mode", "round_prefer_floor");
  std::optional<NearestMode> rounding = symbolizeNearestMode(nearest);
  if (!rounding)
    return ctx.fail("unknown nearest_mode '" + nearest +
                    "' (round_prefer_floor, round_prefer_ceil, floor, ceil)");

  Builder &b = ctx.builder;
  MLIRContext *context = b.getContext();
  return ctx.emit<ResizeOp>(
      results, ctx.input(0), b.getDenseI64ArrayAttr(g.sizes),
      b.getDenseF64ArrayAttr(g.scales),
      InterpolationModeAttr::get(context, *interpolation),
      CoordinateTransformationModeAttr::get(context, *transformation),
      NearestModeAttr::get(context, *rounding),
      b.getF64FloatAttr(ctx.floatAttr("cubic_coeff_a", -0.75f)),
      b.getBoolAttr(ctx.intAttr("exclude_outside", 0) != 0),
      b.getF64FloatAttr(ctx.floatAttr("extrapolation_value", 0.0f)), roiAttr);
}

LogicalResult importGridSample(NodeContext &ctx,
                               SmallVectorImpl<Value> &results) {
  RankedTensorType x = ctx.inputType(0), grid = ctx.inputType(1);
  if (!isa<FloatType>(x.getElementType()))
    return ctx.fail("only floating-point inputs are supported");
  if (!isa<FloatType>(grid.getElementType()))
    return ctx.fail("the grid must be floating-point");
  if (x.getRank() != 4)
    return ctx.fail("only 4-D inputs (N, C, H, W) are supported, not rank " +
                    llvm::Twine(x.getRank()));
  // Opset 16 names the modes after the 2-D case; opset 20 after any rank.
  std::string mode =
      ctx.stringAttr("mode", ctx.opset < 20 ? "bilinear" : "linear");
  if (mode == "bilinear")
    mode = "linear";
  else if (mode == "bicubic")
    mode = "cubic";
  std::optional<InterpolationMode> interpolation =
      symbolizeInterpolationMode(mode);
  if (!interpolation)
    return ctx.fail("unknown mode '" + mode + "'");
  std::string padding = ctx.stringAttr("padding_mode", "zeros");
  std::optional<GridPaddingMode> paddingMode =
      symbolizeGridPaddingMode(padding);
  if (!paddingMode)
    return ctx.fail("unknown padding_mode '" + padding + "'");
  Builder &b = ctx.builder;
  MLIRContext *context = b.getContext();
  return ctx.emit<GridSampleOp>(
      results, ctx.input(0), ctx.input(1),
      InterpolationModeAttr::get(context, *interpolation),
      GridPaddingModeAttr::get(context, *paddingMode),
      b.getBoolAttr(ctx.intAttr("align_corners", 0) != 0));
}

} // namespace

void mlir::tessel::onnx_import::registerResizeImporters(
    ImporterRegistry &registry) {
  registry.add("Resize", importResize, {1, 4}, 10);
  registry.add("Upsample", importUpsample, {1, 2}, 7, 9);
  registry.add("GridSample", importGridSample, {2, 2}, 16);
}
