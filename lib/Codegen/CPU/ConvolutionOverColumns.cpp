//===- ConvolutionOverColumns.cpp - Convolution tiles over columns --------===//
//
// The NCHW convolution kernel vectorized over output columns (depthwise
// convolutions, weights computed at run time): tiles of filters x rows x
// columns, per tap one input row segment per row and one broadcast weight
// per filter; a zero-padded input is read unpadded, its edge tiles emitted
// one by one.
//
//===----------------------------------------------------------------------===//

#include "tessel/Codegen/CPU/MicroKernel.h"
#include "tessel/Codegen/CPU/Transforms.h"

#include "Convolution2D.h"
#include "ConvolutionEmitter.h"
#include "ConvolutionFusion.h"
#include "ConvolutionPadding.h"
#include "TileSizes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessel::cpu;

namespace {
/// The register tile of the kernel: `fTile` filters x `ohTile` rows x
/// `owTile` columns, each row of columns one vector (read from
/// `readWidth` input columns).
struct ColumnTile {
  int64_t owTile, fTile, ohTile, minReadWidth, readWidth;
};
} // namespace

/// OWr columns (whole vectors where the width allows), then as many
/// filters x rows as the accumulators fit, filters first (each input row
/// segment is reused by every filter of the tile).
static ColumnTile planColumnTile(const Conv2D &conv, int64_t lanes,
                                 int64_t accumulators, bool startsFresh) {
  ColumnTile t;
  // Tiles of whole or half vectors. When none divides the row, the last
  // tile overlaps the one before it (recomputing a few columns) if the
  // accumulators start from the bias or 0, so that a recomputed column
  // is written twice with the same value: a width such as 28 or 14 would
  // be split into partial registers, and a strided read of 55 columns
  // into single-lane inserts (MobileNetV2's stride-2 depthwise layers).
  t.owTile = tessel::pickDivisor(conv.outWidth, {2 * lanes, lanes}, 2 * lanes);
  if (conv.outWidth % lanes != 0 && startsFresh)
    for (int64_t width : {lanes, lanes / 2})
      if (width > 1 && conv.outWidth > width && t.owTile % width != 0) {
        t.owTile = width;
        break;
      }
  int64_t vectors = (t.owTile + lanes - 1) / lanes;
  // Column tiles keep 12 accumulators (measurements:
  // bench/notes/vectorize-convolutions.md).
  int64_t budget =
      std::max<int64_t>(1, std::min<int64_t>(accumulators, 12) / vectors);
  t.fTile = 1;
  t.ohTile = 1;
  for (int64_t f = 1; f <= std::min(budget, conv.filtersPerGroup); ++f) {
    if (conv.filtersPerGroup % f != 0)
      continue;
    int64_t h = tessel::pickDivisor(conv.outHeight, {}, budget / f);
    if (f * h > t.fTile * t.ohTile ||
        (f * h == t.fTile * t.ohTile && f > t.fTile))
      t.fTile = f, t.ohTile = h;
  }
  // A strided tile reads whole vectors (stride x its width) where the
  // row holds them, and keeps every stride-th lane.
  t.minReadWidth = (t.owTile - 1) * conv.strideW + 1;
  t.readWidth = conv.strideW == 1 || !llvm::isPowerOf2_64(t.owTile)
                    ? t.minReadWidth
                    : t.owTile * conv.strideW;
  return t;
}

/// Output tiles of Fr filters x OHr rows x OWr columns, the columns
/// vectorized: per channel and tap, one input row segment per row and
/// one broadcast weight per filter. With a padded input, the taps read the
/// unpadded input: a tap row that reads the padding in some tiles reads
/// a clamped row and selects 0 outside, and the column tiles whose
/// segments leave the row are emitted one by one, their segments read
/// inside the row and the padded lanes shuffled in as 0.
FailureOr<Value> mlir::tessel::vectorizeConvolutionOverColumns(
    RewriterBase &rewriter, linalg::GenericOp op,
    const ConvolutionTilingOptions &options) {
  std::optional<Conv2D> match = matchConv2D(op);
  if (!match)
    return rewriter.notifyMatchFailure(op, "not a 2-D convolution");
  const Conv2D &conv = *match;
  // Channels last, the columns are not contiguous.
  if (conv.channelsLast)
    return rewriter.notifyMatchFailure(op, "channels last");
  const MicroKernel *microKernel = getConvolutionMicroKernel(op, options);
  if (!microKernel)
    return rewriter.notifyMatchFailure(
        op, "no micro-kernel that takes one tap at a time");
  int64_t lanes = options.vectorWidth;
  std::optional<ConvPadding> padding = paddingOf(op, conv);
  ConvPrologue prologue =
      prologueOf(op, conv.channelDim(), options.fuseEpilogue);
  ColumnTile plan = planColumnTile(conv, lanes, options.accumulators,
                                   prologue.bias || prologue.zero);
  int64_t owTile = plan.owTile, fTile = plan.fTile, ohTile = plan.ohTile;
  int64_t minReadWidth = plan.minReadWidth, readWidth = plan.readWidth;
  // A shifted input is read padded (the shift stays its own loop nest).
  // An edge tile reads its segments inside the row: the row must hold one.
  if (padding &&
      (!padding->shift.empty() ||
       minReadWidth >
           cast<RankedTensorType>(padding->source.getType()).getDimSize(3)))
    padding.reset();

  std::optional<ConvEpilogue> epilogue = epilogueOf(op, options.fuseEpilogue);
  // At the epilogue, when there is one: its other inputs may be computed
  // after the convolution.
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *anchor =
      epilogue ? epilogue->op.getOperation() : op.getOperation();
  rewriter.setInsertionPoint(anchor);
  ConvLoopEmitter e(rewriter, anchor, op.getLoc());
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value input = padding ? padding->source : op.getDpsInputs()[0];
  Value weight = op.getDpsInputs()[1];
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t top = padding ? padding->top : 0;
  int64_t left = padding ? padding->left : 0;
  int64_t inHeight = inputType.getDimSize(2);
  int64_t inWidth = inputType.getDimSize(3);
  if (readWidth > inWidth)
    readWidth = minReadWidth;
  auto vecType = VectorType::get({owTile}, b.getF32Type());
  auto readType = VectorType::get({readWidth}, b.getF32Type());
  SmallVector<bool> inBounds = {true};
  SmallVector<int64_t> lanesOfRead;
  for (int64_t i = 0; i < owTile; ++i)
    lanesOfRead.push_back(i * conv.strideW);
  auto rowReach = [&](int64_t h, int64_t kh) {
    if (!padding)
      return Reach::Always;
    return reachOf(conv.outHeight, ohTile, h, kh, conv.strideH, conv.dilationH,
                   top, inHeight);
  };
  // The column tiles whose segments all lie inside the row: [first,
  // last); the others are edge tiles.
  SmallVector<int64_t> before, after;
  int64_t first = 0, last = 0;
  SmallVector<int64_t> tileStarts;
  for (int64_t ow = 0; ow + owTile <= conv.outWidth; ow += owTile)
    tileStarts.push_back(ow);
  if (conv.outWidth % owTile != 0)
    tileStarts.push_back(conv.outWidth - owTile);
  for (int64_t ow : tileStarts) {
    int64_t start = ow * conv.strideW - left;
    bool inside =
        start >= 0 &&
        start + (conv.kernelWidth - 1) * conv.dilationW + readWidth <= inWidth;
    // The overlapping last tile starts off the loop's steps.
    if (inside && (first == last || ow == last) && ow % owTile == 0) {
      if (first == last)
        first = ow;
      last = ow + owTile;
    } else {
      (first == last ? before : after).push_back(ow);
    }
  }

  // The tile at output columns ow0.. (`owAt` their value in an edge
  // tile), written into `out`.
  auto emitTile = [&](Value n, Value f0, Value channelBase, Value oh0,
                      Value ow0, std::optional<int64_t> owAt,
                      Value out) -> Value {
    auto readAt = [&](Value tensor, int64_t r, int64_t h) -> Value {
      return vector::TransferReadOp::create(
          b, loc, vecType, tensor,
          ValueRange{n, e.add(f0, r), e.add(oh0, h), ow0}, e.pad(), inBounds);
    };
    SmallVector<Value> accs;
    for (int64_t r = 0; r < fTile; ++r) {
      // The filter's bias, 0, or (no prologue) the output.
      Value start;
      if (prologue.bias)
        start = vector::BroadcastOp::create(
            b, loc, vecType,
            tensor::ExtractOp::create(b, loc, prologue.bias,
                                      ValueRange{e.add(f0, r)}));
      else if (prologue.zero)
        start = e.zeroVector(vecType);
      for (int64_t h = 0; h < ohTile; ++h)
        accs.push_back(start ? start : readAt(out, r, h));
    }
    SmallVector<Value> summed =
        e.loop(conv.channelsPerGroup, 1, accs, [&](Value c, ValueRange acc) {
          SmallVector<Value> next(acc.begin(), acc.end());
          Value ic = arith::AddIOp::create(b, loc, channelBase, c);
          Value iw0 = e.add(e.mul(ow0, conv.strideW), -left);
          for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
            for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
              // In an edge tile: the segment's read inside the row, and
              // the lanes of the tile's columns in it (readWidth: a 0).
              int64_t readFrom = 0;
              SmallVector<int64_t> edgeLanes;
              if (owAt) {
                int64_t start =
                    *owAt * conv.strideW + kw * conv.dilationW - left;
                readFrom = std::clamp<int64_t>(start, 0, inWidth - readWidth);
                bool any = false;
                for (int64_t i = 0; i < owTile; ++i) {
                  int64_t col = start + i * conv.strideW;
                  bool in = col >= 0 && col < inWidth;
                  any |= in;
                  edgeLanes.push_back(in ? col - readFrom : readWidth);
                }
                if (!any)
                  continue;
              }
              SmallVector<Value> weights;
              for (int64_t r = 0; r < fTile; ++r) {
                Value w = tensor::ExtractOp::create(
                    b, loc, weight,
                    ValueRange{e.add(f0, r), c, e.idx(kh), e.idx(kw)});
                weights.push_back(
                    vector::BroadcastOp::create(b, loc, vecType, w));
              }
              Value iw =
                  owAt ? e.idx(readFrom) : e.add(iw0, kw * conv.dilationW);
              for (int64_t h = 0; h < ohTile; ++h) {
                Reach reach = rowReach(h, kh);
                if (reach == Reach::Never)
                  continue;
                Value ih = e.add(e.mul(e.add(oh0, h), conv.strideH),
                                 kh * conv.dilationH - top);
                Value inside;
                if (reach == Reach::Sometimes) {
                  Value clamped = arith::MinSIOp::create(
                      b, loc, arith::MaxSIOp::create(b, loc, ih, e.idx(0)),
                      e.idx(inHeight - 1));
                  inside = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::eq, ih, clamped);
                  ih = clamped;
                }
                Value x = vector::TransferReadOp::create(
                    b, loc, readType, input, ValueRange{n, ic, ih, iw}, e.pad(),
                    inBounds);
                if (owAt)
                  x = vector::ShuffleOp::create(
                      b, loc, x, e.zeroVector(readType), edgeLanes);
                else if (conv.strideW != 1)
                  x = vector::ShuffleOp::create(b, loc, x, x, lanesOfRead);
                if (inside)
                  x = arith::SelectOp::create(b, loc, inside, x,
                                              e.zeroVector(vecType));
                for (int64_t r = 0; r < fTile; ++r) {
                  Value &a = next[r * ohTile + h];
                  a = microKernel->emitMultiplyAccumulate(b, loc, weights[r],
                                                                 x, a);
                }
              }
            }
          }
          return next;
        });
    for (int64_t r = 0; r < fTile; ++r)
      for (int64_t h = 0; h < ohTile; ++h) {
        Value value = summed[r * ohTile + h];
        if (epilogue)
          value = applyEpilogue(b, loc, *epilogue, value, [&](Value tensor) {
            return readAt(tensor, r, h);
          });
        out = vector::TransferWriteOp::create(
                  b, loc, value, out,
                  ValueRange{n, e.add(f0, r), e.add(oh0, h), ow0}, inBounds)
                  .getResult();
      }
    return out;
  };

  SmallVector<Value> results =
      e.loop(conv.batch, 1, prologue.init, [&](Value n, ValueRange a0) {
        return e.loop(
            conv.filters, fTile, a0,
            [&](Value f0, ValueRange a1) {
              Value group = arith::DivUIOp::create(b, loc, f0,
                                                   e.idx(conv.filtersPerGroup));
              Value channelBase = e.mul(group, conv.channelsPerGroup);
              return e.loop(
                  conv.outHeight, ohTile, a1, [&](Value oh0, ValueRange a2) {
                    Value out = a2[0];
                    for (int64_t ow : before)
                      out =
                          emitTile(n, f0, channelBase, oh0, e.idx(ow), ow, out);
                    if (first < last)
                      out = e.loopOver(e.idx(first), e.idx(last), owTile, out,
                                       [&](Value ow0, ValueRange a3) {
                                         return SmallVector<Value>{emitTile(
                                             n, f0, channelBase, oh0, ow0,
                                             std::nullopt, a3[0])};
                                       })[0];
                    for (int64_t ow : after)
                      out =
                          emitTile(n, f0, channelBase, oh0, e.idx(ow), ow, out);
                    return SmallVector<Value>{out};
                  });
            },
            convolutionWork(conv));
      });
  finishConvolution(rewriter, op, results[0], prologue, epilogue);
  return results[0];
}
