//===- NormalizationShapeInference.cpp - Result types of normalisations ---===//
//
// batch_norm, instance_norm and layer_norm infer their types here; the
// axis verifiers of log_softmax and hardmax live here too. As in
// ShapeInference.cpp, a failing inference is the op's verifier error.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tessel;

/// Checks that each of `params` is a 1-D tensor of `extent` elements of
/// `element` type.
static LogicalResult verifyChannelParams(std::optional<Location> loc,
                                         ValueRange params, int64_t extent,
                                         Type element) {
  for (Value p : params) {
    auto t = dyn_cast<RankedTensorType>(p.getType());
    if (!t || t.getRank() != 1 || t.getDimSize(0) != extent ||
        t.getElementType() != element)
      return emitOptionalError(loc, "per-channel operands must be 1-D with ",
                               extent, " elements of the input's type");
  }
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x || x.getRank() < 2)
    return emitOptionalError(loc, "input must have rank >= 2");
  if (failed(verifyChannelParams(loc,
                                 {adaptor.getScale(), adaptor.getBias(),
                                  adaptor.getMean(), adaptor.getVar()},
                                 x.getDimSize(1), x.getElementType())))
    return failure();
  types.push_back(x);
  return success();
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!x || x.getRank() < 3)
    return emitOptionalError(loc, "input must have rank >= 3");
  if (failed(verifyChannelParams(loc, {adaptor.getScale(), adaptor.getBias()},
                                 x.getDimSize(1), x.getElementType())))
    return failure();
  types.push_back(x);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  if (!x || axis < 0 || axis >= x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  ArrayRef<int64_t> normalized = x.getShape().drop_front(axis);
  SmallVector<Value, 2> params = {adaptor.getScale()};
  if (adaptor.getBias())
    params.push_back(adaptor.getBias());
  for (Value p : params) {
    auto t = dyn_cast<RankedTensorType>(p.getType());
    if (!t || t.getElementType() != x.getElementType() ||
        t.getRank() > static_cast<int64_t>(normalized.size()) ||
        failed(broadcastShapes(t.getShape(), normalized)) ||
        *broadcastShapes(t.getShape(), normalized) !=
            SmallVector<int64_t>(normalized))
      return emitOptionalError(
          loc, "scale and bias must broadcast to the normalised dimensions");
  }
  SmallVector<int64_t> statShape(x.getShape());
  std::fill(statShape.begin() + axis, statShape.end(), 1);
  auto stats = RankedTensorType::get(statShape, x.getElementType());
  types.append({x, stats, stats});
  return success();
}

/// The axis of a softmax-like op must name a dimension.
template <typename OpTy> static LogicalResult verifySoftmaxAxis(OpTy op) {
  int64_t rank = op.getInput().getType().getRank();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return op.emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxAxis(*this); }
LogicalResult HardmaxOp::verify() { return verifySoftmaxAxis(*this); }
