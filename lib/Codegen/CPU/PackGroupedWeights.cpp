//===- PackGroupedWeights.cpp - Constant weights in reduction groups -----===//
//
// A micro-kernel that sums `g` reduction steps into each accumulator lane
// (VNNI's vpdpbusd: 4 bytes) needs each lane's `g` right-hand values next to
// each other. A constant right-hand side `[K, N]` is packed once at compile
// time as `[K/g, N, g]`; the left-hand side `[M, K]` is viewed as
// `[M, K/g, g]` (an expand_shape: no copy), and the product becomes a
// generic over (m, n, k0, k1) whose register tile reads one contiguous
// vector of `g * lanes` bytes per column vector and step.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <vector>

using namespace mlir;
using namespace mlir::tessel;

FailureOr<linalg::GenericOp>
mlir::tessel::packGroupedWeights(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t group) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || group < 2 || generic.getNumDpsInputs() != 2 ||
      generic.getNumLoops() != 3 || !generic.hasPureTensorSemantics())
    return failure();
  MLIRContext *ctx = op.getContext();
  if (generic.getIndexingMapsArray() !=
      linalg::MatmulOp::getDefaultIndexingMaps(ctx))
    return failure();
  DenseElementsAttr weights;
  if (!matchPattern(generic.getDpsInputs()[1], m_Constant(&weights)) ||
      !(weights.getElementType().isInteger(8) ||
        weights.getElementType().isBF16()))
    return failure();
  auto rhsType = cast<RankedTensorType>(weights.getType());
  int64_t depth = rhsType.getDimSize(0), columns = rhsType.getDimSize(1);
  if (depth % group != 0)
    return failure();

  // [K, N] -> [K/g, N, g], byte by byte (weights can be large).
  auto packedType = RankedTensorType::get({depth / group, columns, group},
                                          rhsType.getElementType());
  DenseElementsAttr packedAttr;
  if (weights.isSplat()) {
    packedAttr = weights.resizeSplat(packedType);
  } else {
    ArrayRef<char> values = weights.getRawData();
    size_t bytes = rhsType.getElementTypeBitWidth() / 8;
    std::vector<char> packed(values.size());
    for (int64_t r = 0; r < depth; ++r)
      for (int64_t c = 0; c < columns; ++c)
        std::copy_n(values.data() + (r * columns + c) * bytes, bytes,
                    packed.data() +
                        (((r / group) * columns + c) * group + r % group) *
                            bytes);
    packedAttr = DenseElementsAttr::getFromRawBuffer(packedType, packed);
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value rhs = arith::ConstantOp::create(rewriter, loc, packedAttr);

  // [M, K] viewed as [M, K/g, g].
  Value lhs = generic.getDpsInputs()[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto viewType = RankedTensorType::get(
      {lhsType.getDimSize(0), depth / group, group}, lhsType.getElementType());
  Value view = tensor::ExpandShapeOp::create(
      rewriter, loc, viewType, lhs,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});

  AffineExpr gm, gn, k0, k1;
  bindDims(ctx, gm, gn, k0, k1);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {gm, k0, k1}, ctx),
                                 AffineMap::get(4, 0, {k0, gn, k1}, ctx),
                                 AffineMap::get(4, 0, {gm, gn}, ctx)};
  SmallVector<utils::IteratorType> iterators = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::reduction};
  auto grouped = linalg::GenericOp::create(
      rewriter, loc, generic->getResultTypes(), ValueRange{view, rhs},
      generic.getDpsInits(), maps, iterators);
  // The same body: it only sees elements.
  IRMapping mapping;
  generic.getRegion().cloneInto(&grouped.getRegion(), mapping);
  for (NamedAttribute attr : generic->getDiscardableAttrs())
    grouped->setAttr(attr.getName(), attr.getValue());
  rewriter.replaceOp(generic, grouped->getResults());
  return grouped;
}
