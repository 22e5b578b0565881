//===- ConvolutionAsProduct.cpp - Pointwise convolutions as products ------===//
//
// A 1x1, stride-1, unpadded, ungrouped convolution is a matrix product on
// collapsed views of its input and output; rewritten as one, it is tiled by
// tessel-vectorize-contractions along the contiguous dimension, with its
// bias and consumer rebuilt on the same views.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"
#include "ConvolutionFusion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using mlir::tessel::cpu::Conv2D;

/// Whether `op` is a 1x1, stride-1, unpadded, ungrouped convolution of
/// one image whose output planes fill tiles of 4 vectors: then it is the
/// product [F, C] x [C, H*W], which vectorizes along the contiguous
/// planes of NCHW (input and output alike), where the filter tile would
/// store each vector of filters strided by a plane.
/// Channels last, any such convolution is the product
/// [N*H*W, C] x [C, F] (vectors along the filters).
static bool isPointwiseProduct(linalg::GenericOp op, const Conv2D &conv,
                               int64_t lanes) {
  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  bool pointwise = conv.filtersPerGroup == conv.filters &&
                   conv.kernelHeight == 1 && conv.kernelWidth == 1 &&
                   conv.strideH == 1 && conv.strideW == 1 &&
                   inputType.getDimSize(conv.rowDim()) == conv.outHeight &&
                   inputType.getDimSize(conv.colDim()) == conv.outWidth;
  if (conv.channelsLast)
    return pointwise;
  return pointwise && conv.batch == 1 &&
         (conv.outHeight * conv.outWidth) % (4 * lanes) == 0;
}

/// Rewrites a pointwise convolution into the product
/// out[F, HW] = w[F, C] x in[C, HW] on collapsed views. With `fuse-epilogue`,
/// its bias broadcast (or zero fill) and its elementwise consumer are
/// rebuilt on the [F, HW] views too, so that the product absorbs them there
/// (its initialiser and epilogue, one kernel).
/// Channels last, the product is out[NHW, F] = in[NHW, C] x w[F, C]^T
/// (tessel-vectorize-contractions transposes the constant weights).
FailureOr<linalg::GenericOp> mlir::tessel::rewriteConvolutionAsProduct(
    RewriterBase &rewriter, linalg::GenericOp op,
    const ConvolutionTilingOptions &options) {
  std::optional<Conv2D> match = cpu::matchConv2D(op);
  if (!match)
    return rewriter.notifyMatchFailure(op, "not a 2-D convolution");
  const Conv2D &conv = *match;
  if (!isPointwiseProduct(op, conv, options.vectorWidth))
    return rewriter.notifyMatchFailure(op, "not a pointwise product");

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool last = conv.channelsLast;
  SmallVector<ReassociationIndices> planes =
      last ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}
           : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
  SmallVector<ReassociationIndices> filters = {{0}, {1, 2, 3}};
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> o = outType.getShape();
  auto flatType =
      RankedTensorType::get(last ? ArrayRef<int64_t>{o[0] * o[1] * o[2], o[3]}
                                 : ArrayRef<int64_t>{o[0] * o[1], o[2] * o[3]},
                            outType.getElementType());
  auto identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  cpu::ConvPrologue prologue =
      cpu::prologueOf(op, conv.channelDim(), options.fuseEpilogue);
  std::optional<cpu::ConvEpilogue> epilogue =
      cpu::epilogueOf(op, options.fuseEpilogue);
  Value input =
      tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[0], planes);
  Value weights =
      tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[1], filters);
  // Channels last the weights are the right-hand side, which
  // tessel-vectorize-contractions transposes when it is a constant.
  DenseElementsAttr constantWeights;
  if (last && matchPattern(op.getDpsInputs()[1], m_Constant(&constantWeights)))
    weights = arith::ConstantOp::create(
        b, loc, constantWeights.reshape(cast<ShapedType>(weights.getType())));
  // The initial output: the bias broadcast along the filters, 0, or the
  // output's values.
  Value init;
  if (prologue.producer) {
    // Into the collapsed output the prologue wrote (the chain from the
    // model's output back to its tensor.empty stays whole: bufferization
    // then writes the output in place instead of copying it).
    Value empty = tensor::CollapseShapeOp::create(
        b, loc,
        cast<DestinationStyleOpInterface>(prologue.producer).getDpsInits()[0],
        planes);
    if (prologue.bias) {
      SmallVector<AffineMap> maps = {
          AffineMap::get(2, 0, getAffineDimExpr(last ? 1 : 0, ctx), ctx),
          identity};
      init = linalg::GenericOp::create(
                 b, prologue.producer->getLoc(), flatType,
                 ValueRange{prologue.bias}, ValueRange{empty}, maps,
                 SmallVector<utils::IteratorType>(
                     2, utils::IteratorType::parallel),
                 [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                   linalg::YieldOp::create(nested, nestedLoc, args[0]);
                 })
                 ->getResult(0);
    } else {
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      init = linalg::FillOp::create(b, prologue.producer->getLoc(),
                                    ValueRange{zero}, ValueRange{empty})
                 ->getResult(0);
    }
  } else {
    init = tensor::CollapseShapeOp::create(b, loc, op.getDpsInits()[0], planes);
  }
  AffineExpr f = getAffineDimExpr(last ? 1 : 0, ctx),
             p = getAffineDimExpr(last ? 0 : 1, ctx),
             c = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps =
      last ? SmallVector<AffineMap>{AffineMap::get(3, 0, {p, c}, ctx),
                                    AffineMap::get(3, 0, {f, c}, ctx),
                                    AffineMap::get(3, 0, {p, f}, ctx)}
           : SmallVector<AffineMap>{AffineMap::get(3, 0, {f, c}, ctx),
                                    AffineMap::get(3, 0, {c, p}, ctx),
                                    AffineMap::get(3, 0, {f, p}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  SmallVector<Value> operands = last ? SmallVector<Value>{input, weights}
                                     : SmallVector<Value>{weights, input};
  auto product = linalg::GenericOp::create(
      b, loc, flatType, operands, ValueRange{init}, maps, iterators,
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value mul = arith::MulFOp::create(nested, nestedLoc, args[0], args[1]);
        Value sum = arith::AddFOp::create(nested, nestedLoc, args[2], mul);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });
  Value result = product->getResult(0);
  Operation *replaced = op;
  if (epilogue) {
    // The consumer on the [F, HW] views: its other inputs collapsed, the
    // same body.
    linalg::GenericOp consumer = epilogue->op;
    b.setInsertionPoint(consumer);
    SmallVector<Value> inputs;
    for (auto [i, v] : llvm::enumerate(consumer.getDpsInputs()))
      inputs.push_back(
          i == epilogue->convInput
              ? result
              : tensor::CollapseShapeOp::create(b, loc, v, planes).getResult());
    Value empty = tensor::CollapseShapeOp::create(
        b, loc, consumer.getDpsInits()[0], planes);
    auto flat = linalg::GenericOp::create(
        b, consumer.getLoc(), flatType, inputs, ValueRange{empty},
        SmallVector<AffineMap>(inputs.size() + 1, identity),
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    IRMapping mapping;
    consumer.getRegion().cloneInto(&flat.getRegion(), mapping);
    result = flat->getResult(0);
    replaced = consumer;
  }
  Value expanded =
      tensor::ExpandShapeOp::create(b, loc, outType, result, planes);
  rewriter.replaceAllUsesWith(replaced->getResult(0), expanded);
  if (epilogue)
    rewriter.eraseOp(epilogue->op);
  rewriter.eraseOp(op);
  if (prologue.producer && prologue.producer->use_empty())
    rewriter.eraseOp(prologue.producer);
  return product;
}
