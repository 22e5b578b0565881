//===- DataMovementShapeInference.cpp - Types of data-movement ops --------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tessel;

static std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (!x || !idx || x.getRank() == 0 || axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  if (x.getDimSize(axis) == 0 && idx.getNumElements() != 0)
    return emitOptionalError(loc, "cannot gather from an empty dimension");
  SmallVector<int64_t> shape(x.getShape().take_front(axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, x.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (!x || !idx || x.getRank() != idx.getRank() || x.getRank() == 0)
    return emitOptionalError(loc, "input and indices must have one rank >= 1");
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) > x.getDimSize(d))
      return emitOptionalError(loc, "indices extent ", idx.getDimSize(d),
                               " exceeds the input's ", x.getDimSize(d),
                               " in dimension ", d);
  if (x.getDimSize(axis) == 0 && idx.getNumElements() != 0)
    return emitOptionalError(loc, "cannot gather from an empty dimension");
  types.push_back(RankedTensorType::get(idx.getShape(), x.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), sizes = adaptor.getSizes(),
                    steps = adaptor.getSteps();
  if (!x || static_cast<int64_t>(starts.size()) != x.getRank() ||
      sizes.size() != starts.size() || steps.size() != starts.size())
    return emitOptionalError(loc, "starts, sizes and steps need one entry per "
                                  "dimension");
  for (int64_t d = 0; d < x.getRank(); ++d) {
    int64_t extent = x.getDimSize(d);
    if (steps[d] == 0 || sizes[d] < 0)
      return emitOptionalError(loc, "dimension ", d,
                               ": steps must be non-zero and sizes >= 0");
    if (sizes[d] == 0)
      continue;
    int64_t last;
    if (starts[d] < 0 || starts[d] >= extent ||
        llvm::MulOverflow(sizes[d] - 1, steps[d], last) ||
        llvm::AddOverflow(starts[d], last, last) || last < 0 ||
        last >= extent)
      return emitOptionalError(loc, "dimension ", d, ": the slice from ",
                               starts[d], " by ", steps[d], " for ", sizes[d],
                               " elements leaves the extent ", extent);
  }
  types.push_back(RankedTensorType::get(sizes, x.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  FailureOr<SmallVector<int64_t>> result =
      x ? broadcastShapes(x.getShape(), shape)
        : FailureOr<SmallVector<int64_t>>(failure());
  if (failed(result) || ArrayRef<int64_t>(*result) != shape)
    return emitOptionalError(loc, "the input does not broadcast to ",
                             formatList(shape));
  int64_t count = 1;
  for (int64_t d : shape)
    if (llvm::MulOverflow(count, d, count) || count > (int64_t(1) << 40))
      return emitOptionalError(loc, "the shape ", formatList(shape),
                               " is too large");
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  if (!x || static_cast<int64_t>(repeats.size()) != x.getRank())
    return emitOptionalError(loc, "repeats needs one entry per dimension");
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (auto [extent, r] : llvm::zip(x.getShape(), repeats)) {
    int64_t d;
    if (r < 0 || llvm::MulOverflow(extent, r, d) ||
        llvm::MulOverflow(count, d, count) || count > (int64_t(1) << 40))
      return emitOptionalError(loc, "repeats ", formatList(repeats),
                               " are negative or too large");
    shape.push_back(d);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> pads = adaptor.getPads();
  if (!x || static_cast<int64_t>(pads.size()) != 2 * x.getRank())
    return emitOptionalError(loc, "pads needs two entries per dimension");
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    int64_t begin = pads[d], end = pads[x.getRank() + d], extent;
    if (begin < 0 || end < 0 ||
        llvm::AddOverflow(x.getDimSize(d), begin, extent) ||
        llvm::AddOverflow(extent, end, extent) ||
        llvm::MulOverflow(count, extent, count) || count > (int64_t(1) << 40))
      return emitOptionalError(loc, "pads ", formatList(pads),
                               " are negative or too large");
    shape.push_back(extent);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  PadMode mode = getMode();
  auto x = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> pads = getPads();
  for (int64_t d = 0; d < x.getRank(); ++d) {
    int64_t extent = x.getDimSize(d);
    int64_t most = std::max(pads[d], pads[x.getRank() + d]);
    if (mode == PadMode::Reflect && most > 0 && most >= extent)
      return emitOpError() << "reflect padding of " << most
                           << " needs an extent above it, dimension " << d
                           << " has " << extent;
    if (mode == PadMode::Edge && most > 0 && extent == 0)
      return emitOpError() << "edge padding of an empty dimension " << d;
  }
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x || x.getRank() < 2)
    return emitOptionalError(loc, "the input must have rank >= 2");
  if (Value k = adaptor.getK()) {
    auto kt = dyn_cast<RankedTensorType>(k.getType());
    if (!kt || kt.getNumElements() != 1 || kt.getRank() > 1)
      return emitOptionalError(loc, "k must hold one int64");
  }
  types.push_back(x);
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (!x || static_cast<int64_t>(sizes.size()) != x.getRank() ||
      static_cast<int64_t>(adaptor.getScales().size()) != x.getRank())
    return emitOptionalError(loc, "sizes and scales need one entry per "
                                  "dimension");
  int64_t count = 1;
  for (int64_t extent : sizes)
    if (extent < 1 || llvm::MulOverflow(count, extent, count) ||
        count > (int64_t(1) << 40))
      return emitOptionalError(loc, "sizes ", formatList(sizes),
                               " must be positive and at most 2^40 elements");
  if (llvm::any_of(adaptor.getScales(), [](double s) { return !(s > 0); }))
    return emitOptionalError(loc, "scales must be positive");
  types.push_back(RankedTensorType::get(sizes, x.getElementType()));
  return success();
}

LogicalResult ResizeOp::verify() {
  int64_t rank = cast<RankedTensorType>(getInput().getType()).getRank();
  std::optional<ArrayRef<double>> roi = getRoi();
  if (getCoordinateTransformationMode() ==
          CoordinateTransformationMode::TfCropAndResize &&
      (!roi || static_cast<int64_t>(roi->size()) != 2 * rank))
    return emitOpError() << "tf_crop_and_resize needs a roi of " << 2 * rank
                         << " entries";
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto grid = dyn_cast<RankedTensorType>(adaptor.getGrid().getType());
  if (!x || !grid || x.getRank() != 4 || grid.getRank() != 4)
    return emitOptionalError(loc, "only a 4-D input (N, C, H, W) and a 4-D "
                                  "grid (N, Hout, Wout, 2) are supported");
  if (grid.getDimSize(3) != 2)
    return emitOptionalError(loc, "the grid's last dimension must be 2, not ",
                             grid.getDimSize(3));
  if (x.getDimSize(0) != grid.getDimSize(0))
    return emitOptionalError(loc, "the input has batch ", x.getDimSize(0),
                             " but the grid ", grid.getDimSize(0));
  auto result = RankedTensorType::get({x.getDimSize(0), x.getDimSize(1),
                                       grid.getDimSize(1), grid.getDimSize(2)},
                                      x.getElementType());
  if ((x.getDimSize(2) == 0 || x.getDimSize(3) == 0) &&
      result.getNumElements() != 0)
    return emitOptionalError(loc, "cannot sample an empty image");
  types.push_back(result);
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!x || !idx || idx.getRank() < 1)
    return emitOptionalError(loc, "indices must have rank >= 1");
  int64_t b = adaptor.getBatchDims(), m = idx.getShape().back();
  if (b < 0 || b >= std::min(x.getRank(), idx.getRank()))
    return emitOptionalError(loc, "batch_dims ", b,
                             " must be below both ranks");
  for (int64_t d = 0; d < b; ++d)
    if (x.getDimSize(d) != idx.getDimSize(d))
      return emitOptionalError(loc, "batch dimension ", d,
                               " differs between input and indices");
  if (m < 1 || b + m > x.getRank())
    return emitOptionalError(loc, "index tuples of length ", m,
                             " do not fit the input's rank ", x.getRank());
  for (int64_t d = b; d < b + m; ++d)
    if (x.getDimSize(d) == 0 && idx.getNumElements() != 0)
      return emitOptionalError(loc, "cannot gather from an empty dimension");
  SmallVector<int64_t> shape(idx.getShape().drop_back());
  llvm::append_range(shape, x.getShape().drop_front(b + m));
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

/// A scatter's reduction: bools are only overwritten.
static LogicalResult verifyScatterReduction(Operation *op,
                                            ScatterReduction reduction) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (reduction != ScatterReduction::None &&
      type.getElementType().isInteger(1))
    return op->emitOpError() << "reduction '"
                             << stringifyScatterReduction(reduction)
                             << "' on bool is not supported";
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  auto upd = dyn_cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (!x || !idx || !upd || x.getRank() == 0 ||
      idx.getRank() != x.getRank() || upd.getShape() != idx.getShape() ||
      upd.getElementType() != x.getElementType())
    return emitOptionalError(loc, "indices and updates must share one shape "
                                  "of the input's rank, updates the input's "
                                  "element type");
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) > x.getDimSize(d))
      return emitOptionalError(loc, "indices extent ", idx.getDimSize(d),
                               " exceeds the input's ", x.getDimSize(d),
                               " in dimension ", d);
  if (x.getDimSize(axis) == 0 && idx.getNumElements() != 0)
    return emitOptionalError(loc, "cannot scatter into an empty dimension");
  types.push_back(x);
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  return verifyScatterReduction(*this, getReduction());
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  auto upd = dyn_cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (!x || !idx || !upd || idx.getRank() < 1)
    return emitOptionalError(loc, "indices must have rank >= 1");
  int64_t m = idx.getShape().back();
  if (m < 1 || m > x.getRank())
    return emitOptionalError(loc, "index tuples of length ", m,
                             " do not fit the input's rank ", x.getRank());
  SmallVector<int64_t> expected(idx.getShape().drop_back());
  llvm::append_range(expected, x.getShape().drop_front(m));
  if (upd.getShape() != ArrayRef<int64_t>(expected) ||
      upd.getElementType() != x.getElementType())
    return emitOptionalError(loc, "updates must have shape indices.shape[:-1] "
                                  "+ input.shape[m:] and the input's element "
                                  "type");
  for (int64_t d = 0; d < m; ++d)
    if (x.getDimSize(d) == 0 && idx.getNumElements() != 0)
      return emitOptionalError(loc, "cannot scatter into an empty dimension");
  types.push_back(x);
  return success();
}

LogicalResult ScatterNDOp::verify() {
  return verifyScatterReduction(*this, getReduction());
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto idx = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  auto values = dyn_cast<RankedTensorType>(adaptor.getValues().getType());
  if (!idx || !values || values.getRank() != 1 || values.getDimSize(0) != 2)
    return emitOptionalError(loc, "values must hold two elements [off, on]");
  if (idx.getElementType().isInteger(1))
    return emitOptionalError(loc, "indices must be numbers, not bool");
  int64_t depth = adaptor.getDepth(), axis = adaptor.getAxis();
  if (depth < 1)
    return emitOptionalError(loc, "depth ", depth, " must be positive");
  if (axis < 0 || axis > idx.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  SmallVector<int64_t> shape(idx.getShape());
  shape.insert(shape.begin() + axis, depth);
  types.push_back(RankedTensorType::get(shape, values.getElementType()));
  return success();
}
