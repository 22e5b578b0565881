//===- LossImporters.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropy -===//
//
// The losses are plain math over ops Tessel already has, composed at import:
//   picked[n, d...] = input[n, target[n, d...], d...]       (gather_elements)
//   loss = -picked * weight[target], 0 where target == ignore_index
//   none: loss; sum: sum(loss); mean: sum(loss) / sum(weights counted)
// SoftmaxCrossEntropyLoss is the same on log_softmax(scores) along axis 1.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

namespace {

/// A rank-0 constant of `type` holding `value`.
Value scalarConstant(NodeContext &ctx, Type type, double value) {
  Attribute attr =
      isa<FloatType>(type)
          ? Attribute(ctx.builder.getFloatAttr(type, value))
          : Attribute(ctx.builder.getIntegerAttr(type, static_cast<int64_t>(value)));
  return ConstantOp::create(
      ctx.builder, ctx.loc,
      DenseElementsAttr::get(RankedTensorType::get({}, type), attr));
}

/// The NLL loss of log-probabilities `logProb` [N, C, d...] for `target`
/// [N, d...], as the node's attributes ask; appends it to `results`.
LogicalResult buildNllLoss(NodeContext &ctx, Value logProb, Value target,
                           Value weight, SmallVectorImpl<Value> &results) {
  Builder &b = ctx.builder;
  auto x = cast<RankedTensorType>(logProb.getType());
  auto t = dyn_cast<RankedTensorType>(target.getType());
  if (x.getRank() < 2 || !t || t.getRank() != x.getRank() - 1)
    return ctx.fail("the target must have the input's shape without its "
                    "class dimension");
  if (t.getDimSize(0) != x.getDimSize(0) ||
      t.getShape().drop_front() != x.getShape().drop_front(2))
    return ctx.fail("the target's shape does not match the input's");
  std::string reduction = ctx.stringAttr("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.fail("unknown reduction '" + reduction + "'");
  Type element = x.getElementType();

  // picked = input[n, target, d...], with the class axis dropped again.
  SmallVector<int64_t> withClass(t.getShape());
  withClass.insert(withClass.begin() + 1, 1);
  FailureOr<Value> index =
      ctx.build<ReshapeOp>(target, b.getDenseI64ArrayAttr(withClass));
  if (failed(index))
    return failure();
  FailureOr<Value> picked =
      ctx.build<GatherElementsOp>(logProb, *index, b.getI64IntegerAttr(1));
  if (failed(picked))
    return failure();
  picked = ctx.build<ReshapeOp>(*picked, b.getDenseI64ArrayAttr(t.getShape()));
  if (failed(picked))
    return failure();
  FailureOr<Value> loss = ctx.build<NegOp>(*picked);
  if (failed(loss))
    return failure();

  // The weight of each element's class (1 without weights), 0 if ignored.
  Value counted;
  if (weight) {
    FailureOr<Value> w =
        ctx.build<GatherOp>(weight, target, b.getI64IntegerAttr(0));
    if (failed(w) || failed(loss = ctx.build<MulOp>(*loss, *w)))
      return failure();
    counted = *w;
  }
  if (const onnx::AttributeProto *ignore = ctx.attr("ignore_index")) {
    Value ignored = scalarConstant(ctx, t.getElementType(), ignore->i());
    FailureOr<Value> isIgnored = ctx.build<EqualOp>(target, ignored);
    FailureOr<Value> keep =
        succeeded(isIgnored) ? ctx.build<NotOp>(*isIgnored) : isIgnored;
    if (failed(keep))
      return failure();
    Value zero = scalarConstant(ctx, element, 0);
    if (failed(loss = ctx.build<WhereOp>(*keep, *loss, zero)))
      return failure();
    Value one = counted ? counted : scalarConstant(ctx, element, 1);
    FailureOr<Value> masked = ctx.build<WhereOp>(*keep, one, zero);
    if (failed(masked))
      return failure();
    counted = *masked;
  }
  if (reduction == "none") {
    results.push_back(*loss);
    return success();
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  FailureOr<Value> sum = ctx.build<ReduceSumOp>(
      *loss, b.getDenseI64ArrayAttr(all), b.getBoolAttr(false));
  if (failed(sum))
    return failure();
  if (reduction == "sum") {
    results.push_back(*sum);
    return success();
  }
  if (!counted)
    return ctx.emit<ReduceMeanOp>(results, *loss, b.getDenseI64ArrayAttr(all),
                                  b.getBoolAttr(false));
  // counted may still have a broadcast shape (a rank-0 one): make it full.
  if (cast<RankedTensorType>(counted.getType()).getShape() != t.getShape()) {
    FailureOr<Value> full = ctx.build<BroadcastToOp>(
        counted, b.getDenseI64ArrayAttr(t.getShape()));
    if (failed(full))
      return failure();
    counted = *full;
  }
  FailureOr<Value> total = ctx.build<ReduceSumOp>(
      counted, b.getDenseI64ArrayAttr(all), b.getBoolAttr(false));
  if (failed(total))
    return failure();
  return ctx.emit<DivOp>(results, *sum, *total);
}

LogicalResult importNll(NodeContext &ctx, SmallVectorImpl<Value> &results) {
  if (!isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.fail("the input must be floating point");
  return buildNllLoss(ctx, ctx.input(0), ctx.input(1), ctx.input(2), results);
}

LogicalResult importSoftmaxCrossEntropy(NodeContext &ctx,
                                        SmallVectorImpl<Value> &results) {
  RankedTensorType scores = ctx.inputType(0);
  if (!isa<FloatType>(scores.getElementType()) || scores.getRank() < 2)
    return ctx.fail("the scores must be floating point, of rank >= 2");
  FailureOr<Value> logProb =
      ctx.build<LogSoftmaxOp>(ctx.input(0), ctx.builder.getI64IntegerAttr(1));
  if (failed(logProb))
    return failure();
  if (failed(buildNllLoss(ctx, *logProb, ctx.input(1), ctx.input(2), results)))
    return failure();
  if (ctx.hasOutput(1))
    results.push_back(*logProb);
  return success();
}

} // namespace

void mlir::tessel::onnx_import::registerLossImporters(
    ImporterRegistry &registry) {
  registry.add("NegativeLogLikelihoodLoss", importNll, {2, 3}, 12);
  registry.add("SoftmaxCrossEntropyLoss", importSoftmaxCrossEntropy, {2, 3},
               12);
}
