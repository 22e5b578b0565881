//===- NodeContext.cpp - Attribute and constant access for importers ------===//

#include "NodeImporter.h"

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::tessel;
using namespace mlir::tessel::onnx_import;

ElementsAttr NodeContext::constantInput(size_t i) const {
  Value v = input(i);
  if (!v)
    return {};
  if (auto constant = v.getDefiningOp<ConstantOp>())
    return constant.getValue();
  return {};
}

LogicalResult NodeContext::verifyBuilt(Operation *op,
                                       const std::string &message) {
  if (mlir::succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return mlir::success();
  std::string name = op->getName().getStringRef().str();
  op->erase();
  return fail(message.empty() ? "the operands are invalid for " + name
                              : message);
}

Value NodeContext::foldToConstant(Operation *op) {
  bool allConstant = llvm::all_of(op->getOperands(), [](Value v) {
    return v.getDefiningOp<ConstantOp>() != nullptr;
  });
  SmallVector<OpFoldResult> folded;
  if (!allConstant || op->getNumResults() != 1 || failed(op->fold(folded)) ||
      folded.size() != 1)
    return op->getResult(0);
  Value result = op->getResult(0);
  if (auto value = dyn_cast<Value>(folded.front())) {
    // Folded to one of its operands, or in place.
    if (value != result) {
      op->erase();
      return value;
    }
    return result;
  }
  auto attr = dyn_cast_or_null<ElementsAttr>(cast<Attribute>(folded.front()));
  if (!attr || attr.getType() != result.getType())
    return result;
  builder.setInsertionPoint(op);
  Value constant = ConstantOp::create(builder, op->getLoc(), attr);
  op->erase();
  builder.setInsertionPointAfterValue(constant);
  return constant;
}

std::optional<SmallVector<int64_t>> NodeContext::constantInts(size_t i) const {
  ElementsAttr value = constantInput(i);
  if (!value || !isa<IntegerType>(value.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> result;
  for (APInt v : value.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

std::optional<double> NodeContext::constantScalar(size_t i) const {
  ElementsAttr value = constantInput(i);
  if (!value || value.getNumElements() != 1)
    return std::nullopt;
  Type element = value.getElementType();
  if (isa<FloatType>(element))
    return (*value.getValues<APFloat>().begin()).convertToDouble();
  if (auto intType = dyn_cast<IntegerType>(element)) {
    APInt v = *value.getValues<APInt>().begin();
    return intType.isUnsigned() ? static_cast<double>(v.getZExtValue())
                                : static_cast<double>(v.getSExtValue());
  }
  return std::nullopt;
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::intAttr(llvm::StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

float NodeContext::floatAttr(llvm::StringRef name, float fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a && a->type() == onnx::AttributeProto::FLOAT ? a->f() : fallback;
}

std::string NodeContext::stringAttr(llvm::StringRef name,
                                    llvm::StringRef fallback) const {
  const onnx::AttributeProto *a = attr(name);
  return a && a->type() == onnx::AttributeProto::STRING ? a->s()
                                                        : fallback.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::intsAttr(llvm::StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a || a->type() != onnx::AttributeProto::INTS)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<int64_t> mlir::tessel::onnx_import::normalizeAxis(int64_t axis,
                                                                int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult mlir::tessel::onnx_import::resolvePads(
    NodeContext &ctx, ArrayRef<int64_t> inputSpatial, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
    SmallVectorImpl<int64_t> &pads) {
  size_t rank = inputSpatial.size();
  std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  pads.assign(2 * rank, 0);
  if (autoPad == "NOTSET") {
    if (auto explicitPads = ctx.intsAttr("pads")) {
      if (explicitPads->size() != 2 * rank)
        return ctx.fail("'pads' has " + llvm::Twine(explicitPads->size()) +
                        " entries, expected " + llvm::Twine(2 * rank));
      pads.assign(explicitPads->begin(), explicitPads->end());
    }
    for (int64_t p : pads)
      if (p < 0)
        return ctx.fail("negative pads are not supported");
    return success();
  }
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.fail("unknown auto_pad '" + autoPad + "'");
  for (size_t i = 0; i < rank; ++i) {
    int64_t out = (inputSpatial[i] + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 -
               inputSpatial[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[rank + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return success();
}

FailureOr<Value>
mlir::tessel::onnx_import::alignLegacyBroadcast(NodeContext &ctx) {
  Value right = ctx.input(1);
  if (ctx.opset >= 7)
    return right;
  RankedTensorType lhs = ctx.inputType(0), rhs = ctx.inputType(1);
  // Before opset 7: equal shapes, or `broadcast = 1` with B aligned to A's
  // dimensions from `axis` (default: the trailing ones). Reshaping B with
  // trailing unit dims turns that into numpy broadcasting.
  if (ctx.intAttr("broadcast", 0) == 0) {
    if (lhs.getShape() != rhs.getShape()) {
      (void)ctx.fail("shapes differ and 'broadcast' is not set");
      return failure();
    }
    return right;
  }
  if (!ctx.attr("axis"))
    return right;
  int64_t axis = ctx.intAttr("axis", 0);
  if (axis < 0)
    axis += lhs.getRank();
  int64_t trailing = lhs.getRank() - axis - rhs.getRank();
  if (axis < 0 || trailing < 0) {
    (void)ctx.fail("'axis' does not place B inside A");
    return failure();
  }
  SmallVector<int64_t> shape(rhs.getShape());
  shape.append(trailing, 1);
  return ctx.build<ReshapeOp>(right, ctx.builder.getDenseI64ArrayAttr(shape));
}
