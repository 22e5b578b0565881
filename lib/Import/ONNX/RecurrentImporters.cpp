//===- RecurrentImporters.cpp - RNN, GRU, LSTM unrolled over time ---------===//
//
// The sequence length is static, so the recurrence unrolls at import. The
// input's share of every gate needs no state: one product for all steps,
// X W^T + biases ([steps * batch, I] -> [steps * batch, G*H]), before the
// steps. Each step then has one product with the recurrent weights and the
// gates' elementwise ops:
//   RNN   h = f(x W^T + h R^T + Wb + Rb)
//   GRU   z = f(x Wz^T + h Rz^T + b), r = f(...),
//         n = g(x Wh^T + (r * h) Rh^T + Rbh + Wbh)       (linear_before_reset 0)
//         n = g(x Wh^T + r * (h Rh^T + Rbh) + Wbh)       (linear_before_reset 1)
//         h = (1 - z) * n + z * h
//   LSTM  i = f(x Wi^T + h Ri^T + b + Pi * c), f = f(... + Pf * c),
//         c' = f * c + i * g(...), o = f(... + Po * c'), h = o * h(c')
// (GRU without linear_before_reset needs r before its candidate's product:
// two recurrent products per step.) Gate blocks follow ONNX's order (LSTM
// iofc, GRU zrh). `sequence_lens`,
// constant or not, masks the steps past each batch entry's length: the state
// keeps its value and Y is zero there. Walking a reverse direction from the
// last step to the first with the same mask starts each entry at its own
// last valid step, as ONNX asks.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// One activation function of the node's `activations` list.
struct Activation {
  std::string name;
  std::optional<double> alpha, beta;
};

/// Shorthands over NodeContext::build that keep the unrolled code readable;
/// the first failure is remembered and later calls return null.
class StepBuilder {
public:
  explicit StepBuilder(NodeContext &ctx) : ctx(ctx) {}

  bool failed() const { return hasFailed; }

  template <typename OpTy, typename... Args>
  Value op(Args &&...args) {
    if (hasFailed)
      return Value();
    FailureOr<Value> v = ctx.build<OpTy>(std::forward<Args>(args)...);
    if (mlir::failed(v)) {
      hasFailed = true;
      return Value();
    }
    return *v;
  }

  Value add(Value a, Value b) { return op<AddOp>(a, b); }
  Value mul(Value a, Value b) { return op<MulOp>(a, b); }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    return op<ReshapeOp>(v, ctx.builder.getDenseI64ArrayAttr(shape));
  }
  Value transpose(Value v, ArrayRef<int64_t> perm) {
    return op<TransposeOp>(v, ctx.builder.getDenseI64ArrayAttr(perm));
  }
  /// `v[index]` along axis 0, the axis dropped.
  Value at(Value v, int64_t index) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> starts(type.getRank(), 0), sizes(type.getShape()),
        steps(type.getRank(), 1);
    starts[0] = index;
    sizes[0] = 1;
    Value slice = op<SliceOp>(v, ctx.builder.getDenseI64ArrayAttr(starts),
                              ctx.builder.getDenseI64ArrayAttr(sizes),
                              ctx.builder.getDenseI64ArrayAttr(steps));
    return hasFailed ? Value() : reshape(slice, type.getShape().drop_front());
  }
  /// Columns [begin, begin + size) of a matrix, or entries of a vector.
  Value columns(Value v, int64_t begin, int64_t size) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> starts(rank, 0), sizes(type.getShape()),
        steps(rank, 1);
    starts[rank - 1] = begin;
    sizes[rank - 1] = size;
    return op<SliceOp>(v, ctx.builder.getDenseI64ArrayAttr(starts),
                       ctx.builder.getDenseI64ArrayAttr(sizes),
                       ctx.builder.getDenseI64ArrayAttr(steps));
  }
  /// Rows [begin, begin + size) of a matrix.
  Value rows(Value v, int64_t begin, int64_t size) {
    auto type = cast<RankedTensorType>(v.getType());
    return op<SliceOp>(
        v, ctx.builder.getDenseI64ArrayAttr({begin, 0}),
        ctx.builder.getDenseI64ArrayAttr({size, type.getDimSize(1)}),
        ctx.builder.getDenseI64ArrayAttr({1, 1}));
  }
  /// a b^T + c (c may be null).
  Value gemmT(Value a, Value b, Value c) {
    Builder &bld = ctx.builder;
    return op<GemmOp>(a, b, c, bld.getF32FloatAttr(1.0f),
                      bld.getF32FloatAttr(1.0f), bld.getBoolAttr(false),
                      bld.getBoolAttr(true));
  }
  Value scalar(Type element, double value) {
    auto type = RankedTensorType::get({}, element);
    return ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(type, ctx.builder.getFloatAttr(element, value)));
  }
  Value clip(Value v, std::optional<double> threshold) {
    if (!threshold)
      return v;
    Builder &b = ctx.builder;
    return op<ClipOp>(v, b.getF64FloatAttr(-*threshold),
                      b.getF64FloatAttr(*threshold));
  }

  Value activate(const Activation &a, Value v) {
    Builder &b = ctx.builder;
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    auto f64 = [&](double x) { return b.getF64FloatAttr(x); };
    StringRef name = a.name;
    if (name.equals_insensitive("Sigmoid"))
      return op<SigmoidOp>(v);
    if (name.equals_insensitive("Tanh"))
      return op<TanhOp>(v);
    if (name.equals_insensitive("Relu"))
      return op<ReluOp>(v);
    if (name.equals_insensitive("Affine"))
      return add(mul(v, scalar(element, a.alpha.value_or(1.0))),
                 scalar(element, a.beta.value_or(0.0)));
    if (name.equals_insensitive("LeakyRelu"))
      return op<LeakyReluOp>(v, f64(a.alpha.value_or(0.01)));
    if (name.equals_insensitive("ThresholdedRelu"))
      return op<ThresholdedReluOp>(v, f64(a.alpha.value_or(1.0)));
    if (name.equals_insensitive("ScaledTanh"))
      return mul(op<TanhOp>(mul(v, scalar(element, a.beta.value_or(1.0)))),
                 scalar(element, a.alpha.value_or(1.0)));
    if (name.equals_insensitive("HardSigmoid"))
      return op<HardSigmoidOp>(v, f64(a.alpha.value_or(0.2)),
                               f64(a.beta.value_or(0.5)));
    if (name.equals_insensitive("Elu"))
      return op<EluOp>(v, f64(a.alpha.value_or(1.0)));
    if (name.equals_insensitive("Softsign"))
      return op<SoftsignOp>(v);
    if (name.equals_insensitive("Softplus"))
      return op<SoftplusOp>(v);
    llvm_unreachable("activation names are checked when read");
  }

  NodeContext &ctx;

private:
  bool hasFailed = false;
};

bool isKnownActivation(StringRef name) {
  for (StringRef known :
       {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu",
        "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"})
    if (name.equals_insensitive(known))
      return true;
  return false;
}

/// The weights of one direction, sliced out of the node's inputs.
struct DirectionWeights {
  Value w, r;          // [G*H, I], [G*H, H]
  Value wb, rb;        // [G*H] each, null without B
  Value peephole;      // [3H] (LSTM), null without P
  Value h0, c0;        // [batch, H], null when absent
  SmallVector<Activation> activations;
};

/// One direction's recurrence over all steps; fills `ys` ([batch, H] per
/// step, in time order) and the final states.
void runDirection(StepBuilder &sb, Cell cell, const DirectionWeights &dw,
                  Value x, Value mask, bool reverse, int64_t hidden,
                  int64_t linearBeforeReset, std::optional<double> clipAt,
                  SmallVectorImpl<Value> &ys, Value &hOut, Value &cOut) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t steps = xt.getDimSize(0), batch = xt.getDimSize(1);
  Type element = xt.getElementType();
  auto stateType = RankedTensorType::get({batch, hidden}, element);
  auto zeros = [&]() -> Value {
    return ConstantOp::create(sb.ctx.builder, sb.ctx.loc,
                              DenseElementsAttr::get(
                                  stateType,
                                  sb.ctx.builder.getFloatAttr(element, 0.0)));
  };
  Value h = dw.h0 ? dw.h0 : zeros();
  Value c = cell == Cell::LSTM ? (dw.c0 ? dw.c0 : zeros()) : Value();
  ys.assign(steps, Value());
  const SmallVector<Activation> &act = dw.activations;
  OpBuilder &b = sb.ctx.builder;

  // The input's share of every gate, all steps in one product:
  // [steps * batch, I] W^T + bias -> [steps, batch, G*H]. The biases go
  // there too, except GRU's Rbh with linear_before_reset, which r scales.
  Value inputBias, recurrentBias;
  if (dw.wb) {
    inputBias = sb.add(dw.wb, dw.rb);
    if (cell == Cell::GRU && linearBeforeReset) {
      Value rbh = sb.columns(dw.rb, 2 * hidden, hidden);
      inputBias = sb.op<ConcatOp>(
          ValueRange{sb.columns(inputBias, 0, 2 * hidden),
                     sb.columns(dw.wb, 2 * hidden, hidden)},
          b.getI64IntegerAttr(0));
      Value none = ConstantOp::create(
          b, sb.ctx.loc,
          DenseElementsAttr::get(RankedTensorType::get({2 * hidden}, element),
                                 b.getFloatAttr(element, 0.0)));
      recurrentBias = sb.op<ConcatOp>(ValueRange{none, rbh},
                                      b.getI64IntegerAttr(0));
    }
  }
  int64_t inputSize = xt.getDimSize(2);
  Value projected = sb.gemmT(sb.reshape(x, {steps * batch, inputSize}), dw.w,
                             inputBias);
  if (sb.failed())
    return;
  int64_t width = cast<RankedTensorType>(projected.getType()).getDimSize(1);
  projected = sb.reshape(projected, {steps, batch, width});

  // GRU without linear_before_reset multiplies r into h before the
  // candidate's recurrent product: its blocks apart.
  Value rzr, rh;
  if (cell == Cell::GRU && !linearBeforeReset) {
    rzr = sb.rows(dw.r, 0, 2 * hidden);
    rh = sb.rows(dw.r, 2 * hidden, hidden);
  }
  Value pi, po, pf;
  if (dw.peephole) {
    pi = sb.columns(dw.peephole, 0, hidden);
    po = sb.columns(dw.peephole, hidden, hidden);
    pf = sb.columns(dw.peephole, 2 * hidden, hidden);
  }

  for (int64_t s = 0; s < steps && !sb.failed(); ++s) {
    int64_t t = reverse ? steps - 1 - s : s;
    Value input = sb.at(projected, t); // [batch, G*H]
    Value hNew, cNew;
    switch (cell) {
    case Cell::RNN: {
      Value gates = sb.gemmT(h, dw.r, input);
      hNew = sb.activate(act[0], sb.clip(gates, clipAt));
      break;
    }
    case Cell::GRU: {
      Value inputZr = sb.columns(input, 0, 2 * hidden),
            inputH = sb.columns(input, 2 * hidden, hidden);
      Value zr, candidate;
      if (linearBeforeReset) {
        // One product for all three gates: h R^T + [0, 0, Rbh].
        Value hr = sb.gemmT(h, dw.r, recurrentBias);
        if (sb.failed())
          break;
        zr = sb.add(inputZr, sb.columns(hr, 0, 2 * hidden));
        zr = sb.activate(act[0], sb.clip(zr, clipAt));
        if (sb.failed())
          break;
        Value r = sb.columns(zr, hidden, hidden);
        candidate = sb.add(
            inputH, sb.mul(r, sb.columns(hr, 2 * hidden, hidden)));
      } else {
        zr = sb.activate(act[0], sb.clip(sb.gemmT(h, rzr, inputZr), clipAt));
        if (sb.failed())
          break;
        Value r = sb.columns(zr, hidden, hidden);
        candidate = sb.gemmT(sb.mul(r, h), rh, inputH);
      }
      if (sb.failed())
        break;
      Value z = sb.columns(zr, 0, hidden);
      Value n = sb.activate(act[1], sb.clip(candidate, clipAt));
      // (1 - z) * n + z * h = n + z * (h - n)
      hNew = sb.add(n, sb.mul(z, sb.op<SubOp>(h, n)));
      break;
    }
    case Cell::LSTM: {
      Value gates = sb.gemmT(h, dw.r, input);
      if (sb.failed())
        break;
      auto gate = [&](int64_t block) {
        return sb.columns(gates, block * hidden, hidden);
      };
      Value i = gate(0), o = gate(1), f = gate(2), g = gate(3);
      if (pi) {
        i = sb.add(i, sb.mul(pi, c));
        f = sb.add(f, sb.mul(pf, c));
      }
      i = sb.activate(act[0], sb.clip(i, clipAt));
      f = sb.activate(act[0], sb.clip(f, clipAt));
      g = sb.activate(act[1], sb.clip(g, clipAt));
      cNew = sb.add(sb.mul(f, c), sb.mul(i, g));
      if (po)
        o = sb.add(o, sb.mul(po, cNew));
      o = sb.activate(act[0], sb.clip(o, clipAt));
      hNew = sb.mul(o, sb.activate(act[2], sb.clip(cNew, clipAt)));
      break;
    }
    }
    if (sb.failed())
      break;
    if (!mask) {
      ys[t] = h = hNew;
      c = cNew;
      continue;
    }
    Value valid = sb.at(mask, t); // [batch, 1]
    h = sb.op<WhereOp>(valid, hNew, h);
    if (c)
      c = sb.op<WhereOp>(valid, cNew, c);
    ys[t] = sb.op<WhereOp>(valid, hNew, sb.scalar(element, 0.0));
  }
  hOut = h;
  cOut = c;
}

LogicalResult importRecurrent(Cell cell, NodeContext &ctx,
                              SmallVectorImpl<Value> &results) {
  StepBuilder sb(ctx);
  RankedTensorType xType = ctx.inputType(0);
  if (!isa<FloatType>(xType.getElementType()) || xType.getRank() != 3)
    return ctx.fail("X must be a 3-D floating-point tensor");
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  int64_t layout = ctx.intAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.fail("layout must be 0 or 1");
  std::string direction = ctx.stringAttr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.fail("unknown direction '" + direction + "'");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (cell == Cell::LSTM && ctx.intAttr("input_forget", 0) != 0)
    return ctx.fail("input_forget (coupled input and forget gates) is not "
                    "supported");
  if (ctx.intAttr("hidden_size", 0) <= 0)
    return ctx.fail("hidden_size is required");
  int64_t hidden = ctx.intAttr("hidden_size", 0);
  std::optional<double> clipAt;
  if (ctx.attr("clip"))
    clipAt = ctx.floatAttr("clip", 0.0f);

  // X as [seq, batch, input].
  Value x = ctx.input(0);
  if (layout == 1)
    x = sb.transpose(x, {1, 0, 2});
  if (sb.failed())
    return failure();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t steps = xt.getDimSize(0), batch = xt.getDimSize(1),
          inputSize = xt.getDimSize(2);
  Type element = xt.getElementType();
  auto expect = [&](size_t i, ArrayRef<int64_t> shape,
                    StringRef name) -> LogicalResult {
    if (!ctx.input(i))
      return success();
    RankedTensorType t = ctx.inputType(i);
    if (t.getShape() != shape || t.getElementType() != element)
      return ctx.fail(name + " does not have the expected shape or type");
    return success();
  };
  SmallVector<int64_t> stateShape =
      layout == 0 ? SmallVector<int64_t>{dirs, batch, hidden}
                  : SmallVector<int64_t>{batch, dirs, hidden};
  if (failed(expect(1, {dirs, gates * hidden, inputSize}, "W")) ||
      failed(expect(2, {dirs, gates * hidden, hidden}, "R")) ||
      failed(expect(3, {dirs, 2 * gates * hidden}, "B")) ||
      failed(expect(5, stateShape, "initial_h")) ||
      (cell == Cell::LSTM && (failed(expect(6, stateShape, "initial_c")) ||
                              failed(expect(7, {dirs, 3 * hidden}, "P")))))
    return failure();

  // Activations: one list for all directions, `perDirection` entries each.
  size_t perDirection = cell == Cell::LSTM ? 3 : cell == Cell::GRU ? 2 : 1;
  SmallVector<Activation> activations;
  if (const onnx::AttributeProto *names = ctx.attr("activations")) {
    auto alphas = ctx.attr("activation_alpha");
    auto betas = ctx.attr("activation_beta");
    int alphaAt = 0, betaAt = 0;
    for (const std::string &name : names->strings()) {
      if (!isKnownActivation(name))
        return ctx.fail("unknown activation '" + name + "'");
      Activation a{name, std::nullopt, std::nullopt};
      // Alphas and betas are listed in order for the functions that take
      // them.
      StringRef n = name;
      bool takesAlpha = n.equals_insensitive("Affine") ||
                        n.equals_insensitive("LeakyRelu") ||
                        n.equals_insensitive("ThresholdedRelu") ||
                        n.equals_insensitive("ScaledTanh") ||
                        n.equals_insensitive("HardSigmoid") ||
                        n.equals_insensitive("Elu");
      bool takesBeta = n.equals_insensitive("Affine") ||
                       n.equals_insensitive("ScaledTanh") ||
                       n.equals_insensitive("HardSigmoid");
      if (takesAlpha && alphas && alphaAt < alphas->floats_size())
        a.alpha = alphas->floats(alphaAt++);
      if (takesBeta && betas && betaAt < betas->floats_size())
        a.beta = betas->floats(betaAt++);
      activations.push_back(a);
    }
    if (activations.size() != perDirection * dirs)
      return ctx.fail("expected " + llvm::Twine(perDirection * dirs) +
                      " activations, got " + llvm::Twine(activations.size()));
  } else {
    // ONNX's defaults: RNN tanh; GRU sigmoid, tanh; LSTM sigmoid, tanh, tanh.
    SmallVector<StringRef, 3> defaults =
        cell == Cell::RNN   ? SmallVector<StringRef, 3>{"Tanh"}
        : cell == Cell::GRU ? SmallVector<StringRef, 3>{"Sigmoid", "Tanh"}
                            : SmallVector<StringRef, 3>{"Sigmoid", "Tanh",
                                                        "Tanh"};
    for (int64_t d = 0; d < dirs; ++d)
      for (StringRef name : defaults)
        activations.push_back({name.str(), std::nullopt, std::nullopt});
  }

  // The step mask [seq, batch, 1] from sequence_lens, unless every length
  // is known to be the full sequence.
  Value mask;
  if (Value lens = ctx.input(4)) {
    RankedTensorType lt = ctx.inputType(4);
    if (lt.getShape() != ArrayRef<int64_t>{batch} ||
        !lt.getElementType().isInteger(32))
      return ctx.fail("sequence_lens must be an int32 tensor of the batch "
                      "size");
    std::optional<SmallVector<int64_t>> known = ctx.constantInts(4);
    if (!known || llvm::any_of(*known, [&](int64_t l) { return l != steps; })) {
      SmallVector<int32_t> times;
      for (int64_t t = 0; t < steps; ++t)
        times.append(batch, static_cast<int32_t>(t));
      auto timeType = RankedTensorType::get({steps, batch},
                                            ctx.builder.getI32Type());
      Value time = ConstantOp::create(
          ctx.builder, ctx.loc,
          DenseElementsAttr::get(timeType, ArrayRef<int32_t>(times)));
      mask = sb.reshape(sb.op<LessOp>(time, lens), {steps, batch, 1});
    }
  }

  SmallVector<SmallVector<Value>> ys(dirs);
  SmallVector<Value> hs(dirs), cs(dirs);
  Value h0All = ctx.input(5), c0All = ctx.input(6);
  if (layout == 1) {
    if (h0All)
      h0All = sb.transpose(h0All, {1, 0, 2});
    if (c0All && cell == Cell::LSTM)
      c0All = sb.transpose(c0All, {1, 0, 2});
  }
  for (int64_t d = 0; d < dirs && !sb.failed(); ++d) {
    DirectionWeights dw;
    dw.w = sb.at(ctx.input(1), d);
    dw.r = sb.at(ctx.input(2), d);
    if (Value b = ctx.input(3)) {
      Value both = sb.at(b, d);
      dw.wb = sb.columns(both, 0, gates * hidden);
      dw.rb = sb.columns(both, gates * hidden, gates * hidden);
    }
    if (h0All)
      dw.h0 = sb.at(h0All, d);
    if (cell == Cell::LSTM) {
      if (c0All)
        dw.c0 = sb.at(c0All, d);
      if (Value p = ctx.input(7))
        dw.peephole = sb.at(p, d);
    }
    dw.activations.assign(activations.begin() + d * perDirection,
                          activations.begin() + (d + 1) * perDirection);
    if (sb.failed())
      break;
    bool reverse = direction == "reverse" || d == 1;
    runDirection(sb, cell, dw, x, mask, reverse, hidden,
                 ctx.intAttr("linear_before_reset", 0), clipAt, ys[d], hs[d],
                 cs[d]);
  }
  if (sb.failed())
    return failure();

  // Y: [seq, dirs, batch, H]; Y_h, Y_c: [dirs, batch, H] (layout 0).
  Builder &b = ctx.builder;
  auto stack = [&](ArrayRef<Value> parts, ArrayRef<int64_t> partShape) {
    SmallVector<Value> raised;
    for (Value v : parts)
      raised.push_back(sb.reshape(v, partShape));
    if (sb.failed())
      return Value();
    return raised.size() == 1 ? raised.front()
                              : sb.op<ConcatOp>(ValueRange(raised),
                                                b.getI64IntegerAttr(0));
  };
  Value y;
  if (ctx.hasOutput(0)) {
    SmallVector<Value> perStep;
    for (int64_t t = 0; t < steps; ++t) {
      SmallVector<Value> perDir;
      for (int64_t d = 0; d < dirs; ++d)
        perDir.push_back(ys[d][t]);
      perStep.push_back(stack(perDir, {1, batch, hidden}));
    }
    if (sb.failed())
      return failure();
    y = stack(perStep, {1, dirs, batch, hidden});
    if (layout == 1)
      y = sb.transpose(y, {2, 0, 1, 3});
  }
  Value yh = stack(hs, {1, batch, hidden});
  Value yc = cell == Cell::LSTM ? stack(cs, {1, batch, hidden}) : Value();
  if (layout == 1) {
    yh = sb.transpose(yh, {1, 0, 2});
    if (yc)
      yc = sb.transpose(yc, {1, 0, 2});
  }
  if (sb.failed())
    return failure();
  // Unused outputs still get a value: the driver maps results by position.
  results.push_back(y ? y : yh);
  results.push_back(yh);
  if (cell == Cell::LSTM)
    results.push_back(yc);
  return success();
}

} // namespace

void mlir::tessel::onnx_import::registerRecurrentImporters(
    ImporterRegistry &registry) {
  registry.add(
      "RNN",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importRecurrent(Cell::RNN, ctx, results);
      },
      {3, 6}, 7);
  registry.add(
      "GRU",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importRecurrent(Cell::GRU, ctx, results);
      },
      {3, 6}, 7);
  registry.add(
      "LSTM",
      [](NodeContext &ctx, SmallVectorImpl<Value> &results) {
        return importRecurrent(Cell::LSTM, ctx, results);
      },
      {3, 8}, 7);
}
