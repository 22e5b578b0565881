//===- QuantizeByReciprocal.cpp - Exact reciprocal quantization -----------===//
//
// `roundeven(x / s)` with a constant scale `s` becomes a multiplication by
// RN(1/s) and one FMA correction (Markstein), whose rounded result is the
// rounded quotient. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tessel/Linalg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELQUANTIZEBYRECIPROCALPASS
#include "tessel/Linalg/Transforms/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// The reciprocals RN(1/s) of a constant f32 divisor whose elements are all
/// finite with magnitude in [2^-64, 2^64]; none otherwise. In that range
/// the residual of the correction step is exact for every dividend whose
/// quotient can round to a nonzero integer (bench/notes/
/// quantize-by-reciprocal.md).
std::optional<DenseElementsAttr> reciprocals(Value divisor) {
  DenseElementsAttr values;
  if (!matchPattern(divisor, m_Constant(&values)) ||
      !values.getElementType().isF32())
    return std::nullopt;
  SmallVector<float> inverse;
  inverse.reserve(values.getNumElements());
  for (APFloat value : values.getValues<APFloat>()) {
    float s = value.convertToFloat();
    float magnitude = std::fabs(s);
    if (!std::isfinite(s) || magnitude < 0x1p-64f || magnitude > 0x1p64f)
      return std::nullopt;
    inverse.push_back(1.0f / s);
  }
  if (values.isSplat())
    return DenseElementsAttr::get(values.getType(), inverse.front());
  return DenseElementsAttr::get(values.getType(), ArrayRef<float>(inverse));
}

/// A division to rewrite: the op and which of the new reciprocal inputs
/// (their order in `inverses`) belongs to its divisor.
struct Division {
  arith::DivFOp op;
  unsigned inverse;
};

struct QuantizeByReciprocal : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (!generic.hasPureTensorSemantics())
      return failure();
    Block *body = generic.getBody();
    unsigned numInputs = generic.getNumDpsInputs();
    SmallVector<Division> divisions;
    // One reciprocal input per divisor input, in the order first met.
    SmallVector<std::pair<unsigned, DenseElementsAttr>> inverses;
    for (auto div : body->getOps<arith::DivFOp>()) {
      if (!div.getType().isF32() || div->use_empty() ||
          !llvm::all_of(div->getUsers(), llvm::IsaPred<math::RoundEvenOp>))
        continue;
      auto arg = dyn_cast<BlockArgument>(div.getRhs());
      if (!arg || arg.getOwner() != body || arg.getArgNumber() >= numInputs)
        continue;
      unsigned input = arg.getArgNumber();
      auto *known = llvm::find_if(
          inverses, [&](auto &entry) { return entry.first == input; });
      if (known == inverses.end()) {
        std::optional<DenseElementsAttr> inverse =
            reciprocals(generic.getDpsInputs()[input]);
        if (!inverse)
          continue;
        inverses.push_back({input, *inverse});
        known = inverses.end() - 1;
      }
      divisions.push_back({div, unsigned(known - inverses.begin())});
    }
    if (divisions.empty())
      return failure();

    // The generic again, with the reciprocals as new inputs after the
    // others, each with its divisor's indexing map.
    Location loc = generic.getLoc();
    SmallVector<Value> inputs = generic.getDpsInputs();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (auto [k, entry] : llvm::enumerate(inverses)) {
      auto [input, inverse] = entry;
      inputs.push_back(arith::ConstantOp::create(rewriter, loc, inverse));
      maps.insert(maps.begin() + numInputs + k, maps[input]);
    }
    auto rewritten = linalg::GenericOp::create(
        rewriter, loc, generic.getResultTypes(), inputs, generic.getOutputs(),
        maps, generic.getIteratorTypesArray());
    rewritten->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(generic.getRegion(), rewritten.getRegion(),
                                rewritten.getRegion().end());
    Block *moved = rewritten.getBody();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> inverseArgs;
    for (auto [k, entry] : llvm::enumerate(inverses))
      inverseArgs.push_back(moved->insertArgument(numInputs + k, f32, loc));

    for (Division division : divisions) {
      arith::DivFOp div = division.op;
      Value r = inverseArgs[division.inverse];
      Value x = div.getLhs(), s = div.getRhs();
      Location at = div.getLoc();
      rewriter.setInsertionPoint(div);
      Value y = arith::MulFOp::create(rewriter, at, x, r);
      Value negY = arith::NegFOp::create(rewriter, at, y);
      Value residual = math::FmaOp::create(rewriter, at, negY, s, x);
      Value corrected = math::FmaOp::create(rewriter, at, residual, r, y);
      Value unordered = arith::CmpFOp::create(
          rewriter, at, arith::CmpFPredicate::UNO, corrected, corrected);
      rewriter.replaceOpWithNewOp<arith::SelectOp>(div, unordered, y,
                                                   corrected);
    }
    rewriter.replaceOp(generic, rewritten.getResults());
    return success();
  }
};

struct TesselQuantizeByReciprocalPass
    : tessel::impl::TesselQuantizeByReciprocalPassBase<
          TesselQuantizeByReciprocalPass> {
  using TesselQuantizeByReciprocalPassBase::
      TesselQuantizeByReciprocalPassBase;

  void runOnOperation() override {
    if (!fma)
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<QuantizeByReciprocal>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
