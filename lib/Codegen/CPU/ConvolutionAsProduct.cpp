//===- ConvolutionAsProduct.cpp - Convolutions as products ----------------===//
//
// A 1x1, stride-1, unpadded, ungrouped convolution is a matrix product on
// collapsed views of its input and output; rewritten as one, it is tiled by
// tessel-vectorize-contractions along the contiguous dimension, with its
// bias and consumer rebuilt on the same views.
//
// An ungrouped convolution of 8-bit values (channels last) is a product
// whatever its window: its input windows are gathered first, each output
// position's taps one row [KH * KW * C] (im2col), and the product
// [N*OH*OW, KH*KW*C] x [KH*KW*C, F] runs on the 8-bit dot-product kernel
// (VNNI), whose reduction groups the direct convolution kernels cannot take
// one tap at a time. The gathered rows cost one pass over KH*KW times the
// input's bytes, small beside the products' multiply-adds.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"
#include "ParallelMarks.h"
#include "ProductTiling.h"

#include "tessel/Codegen/CPU/AmxTiles.h"
#include "tessel/Codegen/CPU/F16Blocks.h"
#include "tessel/Codegen/KernelGroup.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using mlir::tessel::cpu::Conv2D;

/// Whether `op` is a 1x1, stride-1, unpadded, ungrouped convolution.
static bool isPointwise(linalg::GenericOp op, const Conv2D &conv) {
  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  return conv.filtersPerGroup == conv.filters && conv.kernelHeight == 1 &&
         conv.kernelWidth == 1 && conv.strideH == 1 && conv.strideW == 1 &&
         inputType.getDimSize(conv.rowDim()) == conv.outHeight &&
         inputType.getDimSize(conv.colDim()) == conv.outWidth;
}

/// Whether `op` runs as a product: a pointwise convolution of one image
/// whose output planes fill whole vectors (then it is the product
/// [F, C] x [C, H*W], which vectorizes along the contiguous planes of NCHW,
/// input and output alike, where the filter tile would store each vector
/// of filters strided by a plane, and which is cache-blocked where its
/// operands outgrow the L2: a 28 x 28 plane's [256, 512] x [512, 784] ran
/// in 1.73 ms as a product, 2.79 ms over filters, Xeon EMR, 1 thread);
/// channels last, any pointwise
/// convolution ([N*H*W, C] x [C, F], vectors along the filters) and any
/// ungrouped one of 8-bit values with constant weights (its windows
/// gathered).
static bool isProduct(linalg::GenericOp op, const Conv2D &conv,
                      int64_t lanes) {
  bool pointwise = isPointwise(op, conv);
  if (conv.channelsLast)
    return pointwise ||
           (conv.narrow && conv.filtersPerGroup == conv.filters &&
            matchPattern(op.getDpsInputs()[1], m_Constant()));
  return pointwise && (conv.outHeight * conv.outWidth) % lanes == 0;
}

/// `map` (over the convolution's output dimensions) on the views that
/// `planes` collapses them into: each result a constant, a unit dimension
/// (of `sizes`, read at 0), or a dimension alone in its group but for unit
/// dimensions; null otherwise.
static AffineMap collapsedMap(AffineMap map,
                              ArrayRef<ReassociationIndices> planes,
                              ArrayRef<int64_t> sizes) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    if (isa<AffineConstantExpr>(e)) {
      results.push_back(e);
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return AffineMap();
    if (sizes[dim.getPosition()] == 1) {
      // A unit dimension (one image) reads index 0.
      results.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    for (auto [g, group] : llvm::enumerate(planes)) {
      if (!llvm::is_contained(group, int64_t(dim.getPosition())))
        continue;
      for (int64_t other : group)
        if (other != dim.getPosition() && sizes[other] != 1)
          return AffineMap();
      results.push_back(getAffineDimExpr(g, ctx));
    }
  }
  return AffineMap::get(planes.size(), 0, results, ctx);
}

/// `operand` read through `map` without the dimensions it reads at 0
/// (unit dimensions): [1, 1, 1, F] read at (0, 0, 0, f) becomes [F] read
/// at (f), an all-unit tensor a scalar tensor; the kernels' epilogues read
/// such per-column vectors and scalars.
static std::pair<Value, AffineMap> dropUnitReads(OpBuilder &b, Location loc,
                                                 Value operand,
                                                 AffineMap map) {
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> results;
  ReassociationIndices pending;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    pending.push_back(i);
    if (isa<AffineConstantExpr>(e)) {
      if (type.getDimSize(i) != 1)
        return {operand, map};
      continue;
    }
    groups.push_back(pending);
    pending.clear();
    results.push_back(e);
  }
  if (results.size() == map.getNumResults())
    return {operand, map};
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  Value collapsed = tensor::CollapseShapeOp::create(b, loc, operand, groups);
  return {collapsed,
          AffineMap::get(map.getNumDims(), 0, results, map.getContext())};
}

/// The all-parallel generic `op` over the convolution's output, rebuilt on
/// the views that `planes` collapses it into, reading `replacement`
/// instead of `replaced` (when given): its output and every identity-read
/// input collapsed, its inputs broadcast along one output dimension (a bias
/// or scale per filter) read as they are, the same body. Null when an
/// input's map is neither.
static linalg::GenericOp
rebuildCollapsed(OpBuilder &b, linalg::GenericOp op,
                 ArrayRef<ReassociationIndices> planes, Value replaced,
                 Value replacement) {
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return nullptr;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  Location loc = op.getLoc();
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(planes.size(), op.getContext());
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (input->get() == replaced && replaced) {
      if (!map.isIdentity())
        return nullptr;
      inputs.push_back(replacement);
      maps.push_back(identity);
    } else if (map.isIdentity()) {
      inputs.push_back(tensor::CollapseShapeOp::create(b, loc, input->get(),
                                                       planes));
      maps.push_back(identity);
    } else {
      AffineMap collapsed = collapsedMap(map, planes, outType.getShape());
      if (!collapsed)
        return nullptr;
      auto [operand, operandMap] =
          dropUnitReads(b, loc, input->get(), collapsed);
      inputs.push_back(operand);
      maps.push_back(operandMap);
    }
  }
  Value empty =
      tensor::CollapseShapeOp::create(b, loc, op.getDpsInits()[0], planes);
  maps.push_back(identity);
  auto flat = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(planes.size(),
                                       utils::IteratorType::parallel));
  IRMapping mapping;
  op.getRegion().cloneInto(&flat.getRegion(), mapping);
  for (NamedAttribute attr : op->getDiscardableAttrs())
    flat->setAttr(attr.getName(), attr.getValue());
  return flat;
}

/// The windows of the (padded) channels-last input that the output
/// positions read, one row each: [N*OH*OW, KH*KW*C], taps in (kh, kw, c)
/// order, then zeros up to `rowLength`; with `firstRow`, only the
/// `blockRows` positions from it on, [blockRows, rowLength]. A loop over
/// the output positions copies each tap row's run of contiguous bytes (a
/// row's KW taps of C channels when the columns are not dilated, else each
/// tap's C) as vectors of at most 256 bytes.
static Value gatherWindows(OpBuilder &b, Location loc, Value input,
                           const Conv2D &conv, int64_t rowLength,
                           Value firstRow = Value(), int64_t blockRows = 0) {
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> in = inputType.getShape(); // [N, H, W, C]
  int64_t channels = in[3];
  Type element = inputType.getElementType();
  // The input as rows [N*H, W*C], the windows as [N*OH*OW, KH*KW*C].
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, input, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  int64_t positions =
      firstRow ? blockRows : conv.batch * conv.outHeight * conv.outWidth;
  int64_t taps = conv.kernelHeight * conv.kernelWidth * channels;
  Value windows =
      tensor::EmptyOp::create(b, loc, {positions, rowLength}, element);
  // The runs of one tap row: (kw, c offset, length).
  int64_t runLength = conv.dilationW == 1 ? conv.kernelWidth * channels
                                          : channels;
  int64_t runsPerRow = conv.dilationW == 1 ? 1 : conv.kernelWidth;
  constexpr int64_t kMaxVector = 256;
  auto index = [&](OpBuilder &nb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, v);
  };
  // All positions: loops over (n, oh, ow); a block of rows: one loop over
  // its rows, each row's position taken apart.
  SmallVector<Value> lbs(firstRow ? 1 : 3, index(b, 0)),
      steps(firstRow ? 1 : 3, index(b, 1));
  SmallVector<Value> ubs =
      firstRow ? SmallVector<Value>{index(b, blockRows)}
               : SmallVector<Value>{index(b, conv.batch),
                                    index(b, conv.outHeight),
                                    index(b, conv.outWidth)};
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{windows},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        Value n, oh, ow;
        if (firstRow) {
          Value q = arith::AddIOp::create(nb, nloc, firstRow, ivs[0]);
          Value plane = index(nb, conv.outHeight * conv.outWidth);
          Value width = index(nb, conv.outWidth);
          n = arith::DivUIOp::create(nb, nloc, q, plane);
          Value inPlane = arith::RemUIOp::create(nb, nloc, q, plane);
          oh = arith::DivUIOp::create(nb, nloc, inPlane, width);
          ow = arith::RemUIOp::create(nb, nloc, inPlane, width);
        } else {
          n = ivs[0];
          oh = ivs[1];
          ow = ivs[2];
        }
        // x * m + y + c (y optional).
        auto mulAdd = [&](Value x, int64_t m, Value y, int64_t c) -> Value {
          Value r = arith::MulIOp::create(nb, nloc, x, index(nb, m));
          if (y)
            r = arith::AddIOp::create(nb, nloc, r, y);
          if (c == 0)
            return r;
          return arith::AddIOp::create(nb, nloc, r, index(nb, c));
        };
        // The output position's row: (n * OH + oh) * OW + ow, or the
        // block's row.
        Value p = firstRow ? ivs[0]
                           : mulAdd(mulAdd(n, conv.outHeight, oh, 0),
                                    conv.outWidth, ow, 0);
        Value rowBase = mulAdd(n, in[1], nullptr, 0);
        Value colBase = arith::MulIOp::create(
            nb, nloc, ow, index(nb, conv.strideW * channels));
        Value acc = args[0];
        Value pad = arith::ConstantOp::create(nb, nloc,
                                              nb.getZeroAttr(element));
        for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
          // Input row n * H + oh * strideH + kh * dilationH.
          Value row = mulAdd(oh, conv.strideH, rowBase, kh * conv.dilationH);
          for (int64_t run = 0; run < runsPerRow; ++run) {
            int64_t kw = conv.dilationW == 1 ? 0 : run;
            for (int64_t at = 0; at < runLength; at += kMaxVector) {
              int64_t length = std::min(kMaxVector, runLength - at);
              auto vectorType = VectorType::get({length}, element);
              int64_t offset = kw * conv.dilationW * channels + at;
              Value col = offset == 0 ? colBase
                                      : arith::AddIOp::create(
                                            nb, nloc, colBase,
                                            index(nb, offset))
                                            .getResult();
              Value v = vector::TransferReadOp::create(
                  nb, nloc, vectorType, rows, ValueRange{row, col}, pad,
                  ArrayRef<bool>{true});
              Value tap = index(
                  nb, (kh * conv.kernelWidth + kw) * channels + at);
              acc = vector::TransferWriteOp::create(nb, nloc, v, acc,
                                                    ValueRange{p, tap},
                                                    ArrayRef<bool>{true})
                        .getResult();
            }
          }
        }
        // Zeros past the taps, up to the row length.
        if (rowLength > taps) {
          auto tail = VectorType::get({rowLength - taps}, element);
          Value zeros = arith::ConstantOp::create(
              nb, nloc, DenseElementsAttr::get(tail, nb.getZeroAttr(element)));
          acc = vector::TransferWriteOp::create(nb, nloc, zeros, acc,
                                                ValueRange{p, index(nb, taps)},
                                                ArrayRef<bool>{true})
                    .getResult();
        }
        return {acc};
      });
  return nest.results.front();
}

/// The constant weights [F, C, KH, KW] as the right-hand side [K, F] of
/// the product, K the taps in the gathered rows' (kh, kw, c) order then
/// zero rows up to `rowLength`: the layout the 8-bit kernel packs its
/// column groups from.
static Value reductionMajorWeights(OpBuilder &b, Location loc,
                                   DenseElementsAttr weights,
                                   int64_t rowLength) {
  auto type = cast<RankedTensorType>(weights.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto flatType =
      RankedTensorType::get({rowLength, s[0]}, type.getElementType());
  size_t bytes = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> raw = weights.getRawData();
  SmallVector<char> reordered(rowLength * s[0] * bytes, 0);
  for (int64_t f = 0; f < s[0]; ++f)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t kh = 0; kh < s[2]; ++kh)
        for (int64_t kw = 0; kw < s[3]; ++kw) {
          int64_t from = ((f * s[1] + c) * s[2] + kh) * s[3] + kw;
          int64_t tap = (kh * s[3] + kw) * s[1] + c;
          // (A splat's raw data is its one value.)
          const char *value =
              raw.data() + (weights.isSplat() ? 0 : from * bytes);
          std::copy_n(value, bytes,
                      reordered.begin() + (tap * s[0] + f) * bytes);
        }
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::getFromRawBuffer(flatType, reordered));
}

/// Bytes of gathered windows one block of a product's rows may hold: a
/// block is gathered, then multiplied while it is still in the core's L2
/// (1-2 MiB on the CPUs measured), instead of gathering every window of
/// the convolution first (ResNet-18's 56 x 56 layers: 1.8 MiB in 8 bits,
/// 3.6 MiB in bf16, written out of the caches and read back).
constexpr int64_t kGatherBlockBytes = int64_t(256) << 10;

/// The rows of each block a gathered convolution's product of `positions`
/// rows x `filters` columns, rows of `rowBytes`, runs in: the most, in
/// 16s (whole AMX tiles and VNNI register tiles), that divide the rows
/// and fit kGatherBlockBytes; 0 (one block) when none does, or when the
/// weights are the larger operand (fewer rows than columns: each block
/// would read all of them again, ResNet's 7 x 7 layers).
static int64_t selectGatherBlockRows(int64_t positions, int64_t filters,
                                     int64_t rowBytes) {
  if (positions < filters)
    return 0;
  int64_t best = 0;
  for (int64_t rows = 16; rows < positions; rows += 16)
    if (positions % rows == 0 && rows * rowBytes <= kGatherBlockBytes)
      best = rows;
  return best;
}

/// Runs `root` (the product of the gathered `windows`, or the consumer
/// rebuilt on its views) in blocks of `blockRows` rows, with the product
/// and its initialiser `init` fused in: a loop, marked parallel, whose
/// iterations gather their own block of windows from `input` and multiply
/// it. Returns the value that replaces `root`'s result, and erases what the
/// blocks replace; fails, changing nothing, when the ops do not tile.
static FailureOr<Value> gatherInRowBlocks(RewriterBase &rewriter,
                                          Operation *root, Operation *product,
                                          Operation *init, Value windows,
                                          Value input, const Conv2D &conv,
                                          int64_t rowLength,
                                          int64_t blockRows, int64_t work) {
  auto tileable = dyn_cast<TilingInterface>(root);
  if (!tileable)
    return failure();
  SmallVector<int64_t> sizes(tileable.getLoopIteratorTypes().size(), 0);
  sizes[0] = blockRows;
  FailureOr<scf::SCFTileAndFuseResult> fused = tessel::tileWithProduct(
      rewriter, root, sizes, /*interchange=*/{}, product, init);
  if (failed(fused) || fused->loops.size() != 1)
    return failure();
  Value replacement = fused->replacements.lookup(root->getResult(0));
  // Each block reads its slice of the windows: gathered there instead.
  SmallVector<tensor::ExtractSliceOp> slices;
  fused->loops.front()->walk([&](tensor::ExtractSliceOp slice) {
    if (slice.getSource() == windows)
      slices.push_back(slice);
  });
  bool blocks = replacement && !slices.empty() &&
                llvm::all_of(slices, [&](tensor::ExtractSliceOp slice) {
                  return slice.getResultType().getDimSize(0) == blockRows &&
                         slice.getResultType().getDimSize(1) == rowLength;
                });
  if (!blocks) {
    // The loop, not read yet, goes; the ops it was made from stay.
    rewriter.eraseOp(fused->loops.front());
    return failure();
  }
  for (tensor::ExtractSliceOp slice : slices) {
    rewriter.setInsertionPoint(slice);
    Value first = getValueOrCreateConstantIndexOp(rewriter, slice.getLoc(),
                                                  slice.getMixedOffsets()[0]);
    Value block = gatherWindows(rewriter, slice.getLoc(), input, conv,
                                rowLength, first, blockRows);
    rewriter.replaceOp(slice, block);
  }
  // Whole slices of what the blocks read unsliced (the weights, a bias)
  // read it directly: the kernels look for constant weights.
  SmallVector<tensor::ExtractSliceOp> whole;
  fused->loops.front()->walk([&](tensor::ExtractSliceOp slice) {
    if (slice.getSourceType() == slice.getResultType() &&
        llvm::all_of(slice.getMixedOffsets(),
                     [](OpFoldResult o) { return isConstantIntValue(o, 0); }))
      whole.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : whole)
    rewriter.replaceOp(slice, slice.getSource());
  tessel::cpu::markParallel(fused->loops.front().getOperation(), work);
  rewriter.replaceAllUsesWith(root->getResult(0), replacement);
  // Fusion leaves the slices it fused along without readers; they would
  // keep the unblocked product, its initialiser and the whole gather alive.
  SmallVector<tensor::ExtractSliceOp> unread;
  fused->loops.front()->walk([&](tensor::ExtractSliceOp slice) {
    if (slice->use_empty())
      unread.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : unread)
    rewriter.eraseOp(slice);
  // The initialiser's block writes every element of a slice of a tensor
  // made outside the loop (not one the loop carries): bufferization would
  // copy that slice in every iteration. It writes a block of its own.
  fused->loops.front()->walk([&](linalg::LinalgOp tile) {
    if (tile.getNumReductionLoops() != 0 || tile.getNumDpsInits() != 1 ||
        tile.payloadUsesValueFromOperand(tile.getDpsInitOperand(0)))
      return;
    auto slice =
        tile.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || fused->loops.front()->isAncestor(
                      slice.getSource().getParentRegion()->getParentOp()))
      return;
    rewriter.setInsertionPoint(tile);
    Value empty = tensor::EmptyOp::create(
        rewriter, slice.getLoc(), slice.getResultType().getShape(),
        slice.getResultType().getElementType());
    rewriter.modifyOpInPlace(tile, [&] {
      tile.getDpsInitOperand(0)->set(empty);
    });
  });
  rewriter.eraseOp(root);
  if (product != root && product->use_empty())
    rewriter.eraseOp(product);
  if (init && init->use_empty())
    rewriter.eraseOp(init);
  if (Operation *gather = windows.getDefiningOp();
      gather && gather->use_empty()) {
    // With what only it read (its tensor.empty, the input's rows view).
    SetVector<Operation *> read;
    gather->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && !gather->isAncestor(def))
          read.insert(def);
    });
    rewriter.eraseOp(gather);
    for (Operation *def : read)
      if (isOpTriviallyDead(def))
        rewriter.eraseOp(def);
  }
  return replacement;
}

/// Rewrites a convolution that runs as a product (`isProduct`) into it:
/// NCHW out[F, HW] = w[F, C] x in[C, HW]; channels last
/// out[NHW, F] = in[NHW, K] x w[F, K]^T, K the taps (C when pointwise, else
/// the gathered windows' KH*KW*C); tessel-vectorize-contractions transposes
/// constant f32 weights, 8-bit ones are written as [K, F] here. With
/// `fuse-epilogue`, the output's initialiser (the bias broadcast, a zero
/// fill, an integer product's zero-point correction) and the elementwise
/// consumer are rebuilt on the product's views, so that the product absorbs
/// them there (its prologue and epilogue, one kernel).
FailureOr<linalg::GenericOp> mlir::tessel::rewriteConvolutionAsProduct(
    RewriterBase &rewriter, linalg::GenericOp op,
    const ConvolutionTilingOptions &options) {
  std::optional<Conv2D> match =
      cpu::matchConv2D(op, /*allowNarrow=*/true);
  if (!match)
    return rewriter.notifyMatchFailure(op, "not a 2-D convolution");
  const Conv2D &conv = *match;
  if (!isProduct(op, conv, options.vectorWidth))
    return rewriter.notifyMatchFailure(op, "not a product");

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  bool last = conv.channelsLast;
  bool pointwise = isPointwise(op, conv);
  // NCHW images past the first keep their dimension: [N, F, H*W] =
  // w[F, C] x in[N, C, H*W], each image's plane a product of its own that
  // reads the same weights.
  bool batched = !last && conv.batch > 1;
  SmallVector<ReassociationIndices> planes =
      last      ? SmallVector<ReassociationIndices>{{0, 1, 2}, {3}}
      : batched ? SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}
                : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
  SmallVector<ReassociationIndices> filters = {{0}, {1, 2, 3}};
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> o = outType.getShape();
  SmallVector<int64_t> flatShape =
      last      ? SmallVector<int64_t>{o[0] * o[1] * o[2], o[3]}
      : batched ? SmallVector<int64_t>{o[0], o[1], o[2] * o[3]}
                : SmallVector<int64_t>{o[0] * o[1], o[2] * o[3]};
  auto flatType = RankedTensorType::get(flatShape, outType.getElementType());
  // Gathered rows of 8-bit taps are padded with zeros (and the weights
  // with zero rows) to whole groups of 4, the 8-bit kernel's reduction
  // step: a 7x7 stem over 3 channels has 147 taps.
  int64_t rowLength =
      conv.kernelHeight * conv.kernelWidth * conv.channelsPerGroup;
  if (!pointwise && conv.narrow) {
    rowLength = llvm::alignTo(rowLength, conv.reductionGroup);
    // bf16 on AMX tiles: whole 64-byte tile rows where that costs little
    // (tessel-low-precision-products asked the same when it chose bf16).
    Type element = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
    if (options.bf16TileRows && element.isBF16())
      rowLength = amx_tiles::padReductionToTileRows(rowLength, 2);
    // f16: the AVX512-FP16 kernel's reduction blocks (tessel-low-precision-
    // products asked the same).
    if (element.isF16())
      rowLength = f16_blocks::padReduction(rowLength);
  }
  Value input =
      pointwise
          ? tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[0],
                                            planes)
                .getResult()
          : gatherWindows(b, loc, op.getDpsInputs()[0], conv, rowLength);
  // Channels last the weights are the right-hand side: f32 ones as
  // [F, C], which tessel-vectorize-contractions transposes when they are
  // a constant; 8-bit ones (constant) already as [K, F].
  Value weights;
  DenseElementsAttr constantWeights;
  bool reductionMajor = false;
  if (last &&
      matchPattern(op.getDpsInputs()[1], m_Constant(&constantWeights))) {
    reductionMajor = conv.narrow;
    weights = reductionMajor
                  ? reductionMajorWeights(b, loc, constantWeights, rowLength)
                  : arith::ConstantOp::create(
                        b, loc,
                        constantWeights.reshape(RankedTensorType::get(
                            {conv.filters, constantWeights.getNumElements() /
                                               conv.filters},
                            constantWeights.getElementType())))
                        .getResult();
  } else {
    weights =
        tensor::CollapseShapeOp::create(b, loc, op.getDpsInputs()[1], filters);
  }

  // The initial output: the kernel's prologue (a fill, or a generic
  // broadcasting along the filters) rebuilt on the product's views, else
  // the output's values.
  Value init;
  Operation *prologue =
      options.fuseEpilogue ? tessel::getKernelPrologue(op) : nullptr;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(prologue)) {
    // Into the collapsed output the prologue wrote (the chain from the
    // model's output back to its tensor.empty stays whole: bufferization
    // then writes the output in place instead of copying it).
    Value empty =
        tensor::CollapseShapeOp::create(b, loc, fill.getOutputs()[0], planes);
    init = linalg::FillOp::create(b, fill.getLoc(), fill.getInputs(),
                                  ValueRange{empty})
               ->getResult(0);
  } else if (auto generic = dyn_cast_or_null<linalg::GenericOp>(prologue)) {
    if (linalg::GenericOp flat =
            rebuildCollapsed(b, generic, planes, Value(), Value()))
      init = flat->getResult(0);
    else
      prologue = nullptr;
  } else {
    prologue = nullptr;
  }
  if (!init)
    init = tensor::CollapseShapeOp::create(b, loc, op.getDpsInits()[0], planes);

  // Loops (p, f, c) channels last, (f, p, c) NCHW, (n, f, p, c) batched.
  unsigned first = batched ? 1 : 0, loops = first + 3;
  AffineExpr n = getAffineDimExpr(0, ctx),
             f = getAffineDimExpr(first + (last ? 1 : 0), ctx),
             p = getAffineDimExpr(first + (last ? 0 : 1), ctx),
             c = getAffineDimExpr(first + 2, ctx);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(loops, 0, results, ctx);
  };
  SmallVector<AffineMap> maps =
      last ? SmallVector<AffineMap>{map({p, c}),
                                    reductionMajor ? map({c, f}) : map({f, c}),
                                    map({p, f})}
      : batched ? SmallVector<AffineMap>{map({f, c}), map({n, c, p}),
                                         map({n, f, p})}
                : SmallVector<AffineMap>{map({f, c}), map({c, p}), map({f, p})};
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  SmallVector<Value> operands = last ? SmallVector<Value>{input, weights}
                                     : SmallVector<Value>{weights, input};
  // The convolution's body (8-bit inputs keep their extensions), its
  // input and weight arguments where the product takes them.
  auto product = linalg::GenericOp::create(
      b, loc, flatType, operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Block &body = op.getRegion().front();
        IRMapping mapping;
        mapping.map(body.getArgument(0), args[last ? 0 : 1]);
        mapping.map(body.getArgument(1), args[last ? 1 : 0]);
        mapping.map(body.getArgument(2), args[2]);
        for (Operation &inner : body)
          nested.clone(inner, mapping);
      });
  for (NamedAttribute attr : op->getDiscardableAttrs())
    product->setAttr(attr.getName(), attr.getValue());
  Value result = product->getResult(0);
  Operation *replaced = op;
  linalg::GenericOp epilogue =
      options.fuseEpilogue ? tessel::getKernelEpilogue(op, op->getResult(0))
                           : nullptr;
  if (epilogue) {
    // The consumer on the product's views.
    b.setInsertionPoint(epilogue);
    if (linalg::GenericOp flat = rebuildCollapsed(
            b, epilogue, planes, op->getResult(0), result)) {
      result = flat->getResult(0);
      replaced = epilogue;
    } else {
      epilogue = nullptr;
    }
  }
  // Gathered windows: in blocks of rows, each gathered just before it is
  // multiplied.
  int64_t blockRows = 0;
  if (!pointwise && options.blockGatheredRows) {
    int64_t elementBytes =
        getElementTypeOrSelf(input.getType()).getIntOrFloatBitWidth() / 8;
    blockRows = selectGatherBlockRows(flatType.getDimSize(0),
                                      flatType.getDimSize(1),
                                      rowLength * elementBytes);
  }
  if (blockRows) {
    Operation *initOp = init.getDefiningOp();
    if (!isa_and_nonnull<linalg::LinalgOp>(initOp))
      initOp = nullptr;
    Operation *root = result.getDefiningOp();
    int64_t work = flatType.getDimSize(0) * flatType.getDimSize(1) * rowLength;
    if (FailureOr<Value> blocked = gatherInRowBlocks(
            rewriter, root, product, initOp, input, op.getDpsInputs()[0], conv,
            rowLength, blockRows, work);
        succeeded(blocked)) {
      result = *blocked;
      b.setInsertionPointAfterValue(result);
      // The product that is returned: the block's.
      product = nullptr;
      result.getDefiningOp()->walk([&](linalg::GenericOp tile) {
        if (tile.getNumReductionLoops() > 0)
          product = tile;
      });
    }
  }
  if (!product)
    return failure();
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, cast<RankedTensorType>(replaced->getResult(0).getType()), result,
      planes);
  rewriter.replaceAllUsesWith(replaced->getResult(0), expanded);
  if (epilogue)
    rewriter.eraseOp(epilogue);
  rewriter.eraseOp(op);
  if (prologue && prologue->use_empty())
    rewriter.eraseOp(prologue);
  return product;
}
