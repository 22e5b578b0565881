//===- SubsampleStridedPointwise.cpp - 1x1 strided convolutions -----------===//
//
// A 1x1 convolution with a stride over 1 (ResNet's downsampling shortcuts)
// reads one input position in every `stride`: it becomes a copy of those
// positions (a generic of the output's plane) and a stride-1 pointwise
// convolution on the copy, which runs as a product where the plane allows
// (ConvolutionAsProduct.cpp), instead of over filters, whose tiles each
// read the strided input again.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tessel;

FailureOr<linalg::GenericOp>
mlir::tessel::subsampleStridedPointwise(RewriterBase &rewriter,
                                        linalg::GenericOp op) {
  std::optional<cpu::Conv2D> conv = cpu::matchConv2D(op);
  if (!conv || conv->kernelHeight != 1 || conv->kernelWidth != 1 ||
      (conv->strideH == 1 && conv->strideW == 1) ||
      conv->filtersPerGroup != conv->filters)
    return rewriter.notifyMatchFailure(op, "not a strided 1x1 convolution");
  Value input = op.getDpsInputs()[0];
  // A zero-padded input (rare for a 1x1 convolution) is left to the
  // over-filters kernel, which reads it unpadded; the copy would first
  // materialise the padded tensor.
  if (input.getDefiningOp<tensor::PadOp>())
    return rewriter.notifyMatchFailure(op, "padded input");

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  shape[conv->rowDim()] = conv->outHeight;
  shape[conv->colDim()] = conv->outWidth;

  // The positions the convolution reads: [n, c, oh * sh, ow * sw] (or
  // channels last), copied into a tensor of the output's plane.
  SmallVector<AffineExpr> read = {d(0), d(1), d(2), d(3)};
  read[conv->rowDim()] = read[conv->rowDim()] * conv->strideH;
  read[conv->colDim()] = read[conv->colDim()] * conv->strideW;
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, inputType.getElementType());
  auto copy = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, read, ctx),
                          AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });

  // The convolution at stride 1 on the copy: the input's row and column
  // are the output's (the 1x1 window's tap loops run once).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> inputExprs(maps[0].getResults());
  inputExprs[conv->rowDim()] = d(2) + d(5);
  inputExprs[conv->colDim()] = d(3) + d(6);
  maps[0] = AffineMap::get(7, 0, inputExprs, ctx);
  auto strided = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(),
      ValueRange{copy.getResult(0), op.getDpsInputs()[1]}, op.getDpsInits(),
      maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), strided.getRegion(),
                              strided.getRegion().end());
  strided->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.replaceOp(op, strided->getResults());
  return strided;
}
