//===- SplitFilterRemainder.cpp - Filters past the last whole vector ------===//
//
// A convolution whose filters fill no whole number of vectors (a
// classifier's 1000 written as a 1x1 convolution) would run every filter
// tile on half vectors. It becomes two convolutions instead, on the two
// slices of its output: the filters that fill whole vectors, and the rest.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tessel;

/// Filters below this many vectors are left whole.
static constexpr int64_t kMinSplitVectors = 4;

/// Filters [first, first + count) of the constant FCHW `weights`.
static DenseElementsAttr sliceFilters(DenseElementsAttr weights,
                                      int64_t first, int64_t count) {
  auto type = cast<RankedTensorType>(weights.getType());
  int64_t perFilter = type.getNumElements() / type.getDimSize(0);
  SmallVector<float> values;
  values.reserve(count * perFilter);
  auto all = weights.getValues<float>();
  for (int64_t i = first * perFilter, e = (first + count) * perFilter; i < e;
       ++i)
    values.push_back(all[i]);
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = count;
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, type.getElementType()),
      ArrayRef<float>(values));
}

FailureOr<std::pair<linalg::GenericOp, linalg::GenericOp>>
mlir::tessel::splitFilterRemainder(RewriterBase &rewriter,
                                   linalg::GenericOp op, int64_t lanes) {
  std::optional<cpu::Conv2D> conv = cpu::matchConv2D(op);
  // Few filters (24, 40) keep their measured half-vector tiles; the rest
  // must be a half vector, which the over-filters kernel tiles.
  if (!conv || conv->channelsLast || conv->filtersPerGroup != conv->filters ||
      conv->filters < kMinSplitVectors * lanes || conv->filters % lanes == 0 ||
      lanes % 2 != 0 || conv->filters % (lanes / 2) != 0)
    return rewriter.notifyMatchFailure(
        op, "not an ungrouped NCHW convolution of many filters ending in a "
            "half vector");
  DenseElementsAttr weights;
  if (!matchPattern(op.getDpsInputs()[1], m_Constant(&weights)) ||
      !weights.getElementType().isF32())
    return rewriter.notifyMatchFailure(op, "weights not an f32 constant");

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value init = op.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t whole = conv->filters / lanes * lanes;
  auto index = [&](int64_t v) { return rewriter.getIndexAttr(v); };
  auto part = [&](int64_t first, int64_t count, Value into) {
    SmallVector<OpFoldResult> offsets(4, index(0)), sizes, strides(4, index(1));
    for (int64_t extent : outType.getShape())
      sizes.push_back(index(extent));
    offsets[conv->channelDim()] = index(first);
    sizes[conv->channelDim()] = index(count);
    // Read from the tensor the part is inserted back into: bufferization
    // then writes each part in place (the same slice read and written).
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, into, offsets,
                                                 sizes, strides);
    Value filters = arith::ConstantOp::create(
        rewriter, loc, sliceFilters(weights, first, count));
    auto piece = linalg::GenericOp::create(
        rewriter, loc, slice.getType(),
        ValueRange{op.getDpsInputs()[0], filters}, ValueRange{slice},
        op.getIndexingMapsArray(), op.getIteratorTypesArray());
    IRMapping mapping;
    op.getRegion().cloneInto(&piece.getRegion(), mapping);
    piece->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Value inserted = tensor::InsertSliceOp::create(
        rewriter, loc, piece.getResult(0), into, offsets, sizes, strides);
    return std::make_pair(piece, inserted);
  };
  auto [head, withHead] = part(0, whole, init);
  auto [tail, result] = part(whole, conv->filters - whole, withHead);
  rewriter.replaceOp(op, result);
  return std::make_pair(head, tail);
}
