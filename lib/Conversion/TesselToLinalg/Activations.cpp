//===- Activations.cpp - Activation ops to linalg.generic -----------------===//
//
// Each activation's formula written once as the body of one generic; the
// formulas follow the ONNX operator definitions. Half-precision floats
// compute in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tessel/Conversion/TesselToLinalg/TesselToLinalg.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// Scalar float arithmetic with less ceremony.
struct Calc {
  OpBuilder &b;
  Location loc;
  Type t;

  Value c(double v) { return buildScalar(b, loc, t, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value min(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value max(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value erf(Value x) { return math::ErfOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value clamp01(Value x) { return max(c(0), min(c(1), x)); }
};

/// Applies `formula` in a wide enough float type.
template <typename OpTy>
Value apply(OpBuilder &b, Location loc, Value x,
            llvm::function_ref<Value(Calc &, Value)> formula) {
  return computeWide(b, loc, x, [&](OpBuilder &nb, Location l, Value v) {
    Calc calc{nb, l, v.getType()};
    return formula(calc, v);
  });
}

Value buildLeakyRelu(OpBuilder &b, Location loc, LeakyReluOp op,
                     ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  return apply<LeakyReluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    return k.select(k.cmp(arith::CmpFPredicate::OLT, x, k.c(0)),
                    k.mul(k.c(alpha), x), x);
  });
}

Value buildElu(OpBuilder &b, Location loc, EluOp op, ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  return apply<EluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    Value negative = k.mul(k.c(alpha), k.sub(k.exp(x), k.c(1)));
    return k.select(k.cmp(arith::CmpFPredicate::OLT, x, k.c(0)), negative, x);
  });
}

Value buildSelu(OpBuilder &b, Location loc, SeluOp op, ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  double gamma = op.getGamma().convertToDouble();
  return apply<SeluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    Value negative = k.sub(k.mul(k.c(alpha), k.exp(x)), k.c(alpha));
    Value v =
        k.select(k.cmp(arith::CmpFPredicate::OGT, x, k.c(0)), x, negative);
    return k.mul(k.c(gamma), v);
  });
}

Value buildCelu(OpBuilder &b, Location loc, CeluOp op, ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  return apply<CeluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    Value e = k.mul(k.c(alpha), k.sub(k.exp(k.div(x, k.c(alpha))), k.c(1)));
    return k.add(k.max(k.c(0), x), k.min(k.c(0), e));
  });
}

Value buildHardSigmoid(OpBuilder &b, Location loc, HardSigmoidOp op,
                       ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  double beta = op.getBeta().convertToDouble();
  return apply<HardSigmoidOp>(b, loc, args[0], [&](Calc &k, Value x) {
    return k.clamp01(k.add(k.mul(k.c(alpha), x), k.c(beta)));
  });
}

Value buildHardSwish(OpBuilder &b, Location loc, HardSwishOp, ValueRange args) {
  return apply<HardSwishOp>(b, loc, args[0], [&](Calc &k, Value x) {
    return k.mul(x, k.clamp01(k.add(k.div(x, k.c(6)), k.c(0.5))));
  });
}

Value buildThresholdedRelu(OpBuilder &b, Location loc, ThresholdedReluOp op,
                           ValueRange args) {
  double alpha = op.getAlpha().convertToDouble();
  return apply<ThresholdedReluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    return k.select(k.cmp(arith::CmpFPredicate::OGT, x, k.c(alpha)), x, k.c(0));
  });
}

Value softplus(Calc &k, Value x) { return k.log(k.add(k.exp(x), k.c(1))); }

Value buildSoftplus(OpBuilder &b, Location loc, SoftplusOp, ValueRange args) {
  return apply<SoftplusOp>(b, loc, args[0], softplus);
}

Value buildSoftsign(OpBuilder &b, Location loc, SoftsignOp, ValueRange args) {
  return apply<SoftsignOp>(b, loc, args[0], [](Calc &k, Value x) {
    return k.div(x, k.add(k.c(1), k.abs(x)));
  });
}

Value buildMish(OpBuilder &b, Location loc, MishOp, ValueRange args) {
  return apply<MishOp>(b, loc, args[0], [](Calc &k, Value x) {
    return k.mul(x, k.tanh(softplus(k, x)));
  });
}

Value buildGelu(OpBuilder &b, Location loc, GeluOp op, ValueRange args) {
  bool useTanh = op.getTanhApproximation();
  return apply<GeluOp>(b, loc, args[0], [&](Calc &k, Value x) {
    Value inner;
    if (useTanh) {
      Value cube = k.mul(k.mul(x, x), x);
      Value poly = k.add(x, k.mul(k.c(0.044715), cube));
      inner = k.tanh(k.mul(k.c(std::sqrt(2.0 / M_PI)), poly));
    } else {
      inner = k.erf(k.mul(x, k.c(M_SQRT1_2)));
    }
    return k.mul(k.mul(k.c(0.5), x), k.add(k.c(1), inner));
  });
}

} // namespace

void mlir::tessel::populateActivationToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseLowering<LeakyReluOp>>(ctx, buildLeakyRelu);
  patterns.add<ElementwiseLowering<EluOp>>(ctx, buildElu);
  patterns.add<ElementwiseLowering<SeluOp>>(ctx, buildSelu);
  patterns.add<ElementwiseLowering<CeluOp>>(ctx, buildCelu);
  patterns.add<ElementwiseLowering<HardSigmoidOp>>(ctx, buildHardSigmoid);
  patterns.add<ElementwiseLowering<HardSwishOp>>(ctx, buildHardSwish);
  patterns.add<ElementwiseLowering<ThresholdedReluOp>>(ctx,
                                                       buildThresholdedRelu);
  patterns.add<ElementwiseLowering<SoftplusOp>>(ctx, buildSoftplus);
  patterns.add<ElementwiseLowering<SoftsignOp>>(ctx, buildSoftsign);
  patterns.add<ElementwiseLowering<MishOp>>(ctx, buildMish);
  patterns.add<ElementwiseLowering<GeluOp>>(ctx, buildGelu);
}
