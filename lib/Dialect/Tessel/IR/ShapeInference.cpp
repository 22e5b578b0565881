//===- ShapeInference.cpp - Result types of tessel ops --------------------===//
//
// Every tessel op infers its result type from its operands and attributes.
// The same code verifies the op: an inference that fails is a verifier error,
// and a declared type that differs from the inferred one is one too.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// Formats a shape as `2x3x4` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// Formats a list of indices as `[0, 2, 1]` for diagnostics.
std::string formatList(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return s;
}
} // namespace

static RankedTensorType getRanked(Type type) {
  return dyn_cast<RankedTensorType>(type);
}

FailureOr<SmallVector<int64_t>>
mlir::tessel::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l != r && l != 1 && r != 1)
      return failure();
    result[i] = l == 1 ? r : l;
  }
  return result;
}

LogicalResult mlir::tessel::inferBroadcastType(std::optional<Location> loc,
                                               Type lhs, Type rhs,
                                               SmallVectorImpl<Type> &types) {
  auto l = getRanked(lhs), r = getRanked(rhs);
  if (!l || !r)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc, "operand element types differ: ",
                             l.getElementType(), " and ", r.getElementType());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(l.getShape(), r.getShape());
  if (failed(shape))
    return emitOptionalError(loc, "shapes ", formatShape(l.getShape()),
                             " and ", formatShape(r.getShape()),
                             " do not broadcast");
  types.push_back(RankedTensorType::get(*shape, l.getElementType()));
  return success();
}

FailureOr<int64_t> mlir::tessel::slidingWindowExtent(int64_t input,
                                                     int64_t kernel,
                                                     int64_t stride,
                                                     int64_t padBegin,
                                                     int64_t padEnd,
                                                     int64_t dilation,
                                                     bool ceilMode) {
  if (kernel < 1 || stride < 1 || dilation < 1 || padBegin < 0 || padEnd < 0)
    return failure();
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t room = input + padBegin + padEnd - span;
  if (room < 0)
    return failure();
  int64_t extent = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
  // A window that would start in the end padding is dropped.
  if (ceilMode && (extent - 1) * stride >= input + padBegin)
    --extent;
  return extent;
}

LogicalResult
MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                           Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto a = getRanked(adaptor.getLhs().getType());
  auto b = getRanked(adaptor.getRhs().getType());
  if (!a || !b || a.getRank() < 2 || b.getRank() < 2)
    return emitOptionalError(loc, "operands must have rank >= 2");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operand element types differ");
  if (a.getElementType().isInteger(1))
    return emitOptionalError(loc, "boolean operands are not supported");
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  int64_t k = as.back(), kb = bs[bs.size() - 2];
  if (k != kb)
    return emitOptionalError(loc, "contracting dimensions differ: ",
                             formatShape(as), " and ", formatShape(bs));
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(as.drop_back(2), bs.drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc, "batch dimensions of ", formatShape(as),
                             " and ", formatShape(bs), " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  shape.push_back(as[as.size() - 2]);
  shape.push_back(bs.back());
  types.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto a = getRanked(adaptor.getA().getType());
  auto b = getRanked(adaptor.getB().getType());
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "A and B must be 2-D");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "A and B element types differ");
  int64_t m = adaptor.getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t ka = adaptor.getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t kb = adaptor.getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = adaptor.getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (ka != kb)
    return emitOptionalError(loc, "inner dimensions differ: op(A) is ", m, "x",
                             ka, ", op(B) is ", kb, "x", n);
  if (Value c = adaptor.getC()) {
    auto ct = getRanked(c.getType());
    if (!ct || ct.getElementType() != a.getElementType())
      return emitOptionalError(loc, "C must have A's element type");
    FailureOr<SmallVector<int64_t>> shape =
        broadcastShapes(ct.getShape(), {m, n});
    if (ct.getRank() > 2 || failed(shape) || (*shape)[0] != m ||
        (*shape)[1] != n)
      return emitOptionalError(loc, "C of shape ", formatShape(ct.getShape()),
                               " does not broadcast to ", m, "x", n);
  }
  types.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

/// Checks the attribute lists of a window op with `k` spatial dimensions.
static LogicalResult verifyWindowAttrs(std::optional<Location> loc, size_t k,
                                       ArrayRef<int64_t> kernel,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations) {
  if (kernel.size() != k || strides.size() != k || pads.size() != 2 * k ||
      dilations.size() != k)
    return emitOptionalError(loc, "expects ", k, " kernel extents, ", k,
                             " strides, ", 2 * k, " pads and ", k,
                             " dilations (one per spatial dimension)");
  if (llvm::any_of(kernel, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return emitOptionalError(loc, "kernel, strides and dilations must be >= 1");
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return emitOptionalError(loc, "pads must be >= 0");
  return success();
}

/// Infers `[N, C, O1, ..., Ok]` for a window op over `[N, C, D1, ..., Dk]`.
static LogicalResult inferWindowType(std::optional<Location> loc,
                                     RankedTensorType input, int64_t channels,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> pads,
                                     ArrayRef<int64_t> dilations, bool ceilMode,
                                     SmallVectorImpl<Type> &types) {
  size_t k = input.getRank() - 2;
  if (failed(verifyWindowAttrs(loc, k, kernel, strides, pads, dilations)))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), channels};
  for (size_t i = 0; i < k; ++i) {
    FailureOr<int64_t> extent = slidingWindowExtent(
        input.getDimSize(2 + i), kernel[i], strides[i], pads[i], pads[k + i],
        dilations[i], ceilMode);
    if (failed(extent))
      return emitOptionalError(loc, "window of extent ", kernel[i],
                               " (dilation ", dilations[i],
                               ") does not fit input extent ",
                               input.getDimSize(2 + i), " with pads ", pads[i],
                               ", ", pads[k + i]);
    shape.push_back(*extent);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// Checks a window op's input: `[N, C, D1, ..., Dk]` with k >= 1.
static RankedTensorType getWindowInput(std::optional<Location> loc,
                                       Type type) {
  auto x = getRanked(type);
  if (!x || x.getRank() < 3) {
    (void)emitOptionalError(loc, "input must have rank >= 3 ([N, C, spatial "
                                 "dimensions...])");
    return {};
  }
  return x;
}

/// Checks a window op's `layout`: nchw for any rank, nhwc for rank 4;
/// returns whether the channels are last.
static FailureOr<bool> isChannelsLast(std::optional<Location> loc,
                                      Layout layout, RankedTensorType x) {
  if (layout == Layout::NCHW)
    return false;
  if (x.getRank() != 4)
    return emitOptionalError(loc, "layout nhwc needs a 4-D input, not ",
                             x.getRank(), "-D");
  return true;
}

/// `[N, H, W, C]` as `[N, C, H, W]`, and back.
static RankedTensorType toChannelsFirst(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  return t.clone({s[0], s[3], s[1], s[2]});
}
static RankedTensorType toChannelsLast(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  return t.clone({s[0], s[2], s[3], s[1]});
}

/// Infers a window op's result in `layout`: the channels-first inference
/// `infer` on the input viewed channels first, its result viewed back.
static LogicalResult
inferInLayout(std::optional<Location> loc, Layout layout, RankedTensorType x,
              SmallVectorImpl<Type> &types,
              function_ref<LogicalResult(RankedTensorType)> infer) {
  FailureOr<bool> last = isChannelsLast(loc, layout, x);
  if (failed(last))
    return failure();
  if (!*last)
    return infer(x);
  if (failed(infer(toChannelsFirst(x))))
    return failure();
  types.back() = toChannelsLast(cast<RankedTensorType>(types.back()));
  return success();
}

/// Checks the weight and bias of a (transposed) convolution: `weight` is
/// `[A, B, K1, ..., Kk]` with input channels `channels` matched against
/// `weightChannels` and `filters` output channels.
static LogicalResult verifyConvOperands(std::optional<Location> loc,
                                        RankedTensorType x, RankedTensorType w,
                                        Value bias, int64_t group,
                                        int64_t filters) {
  if (!x || !w || w.getRank() != x.getRank())
    return emitOptionalError(loc, "input and weight must have the same rank");
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "input and weight element types differ");
  if (x.getElementType().isInteger(1))
    return emitOptionalError(loc, "boolean operands are not supported");
  int64_t channels = x.getDimSize(1);
  if (group < 1 || channels % group != 0 || filters % group != 0)
    return emitOptionalError(loc, "group ", group, " must divide the ",
                             channels, " input channels and the ", filters,
                             " filters");
  if (bias) {
    auto b = getRanked(bias.getType());
    if (!b || b.getRank() != 1 || b.getDimSize(0) != filters ||
        b.getElementType() != x.getElementType())
      return emitOptionalError(loc, "bias must be a 1-D tensor of ", filters,
                               " elements of the input's type");
  }
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto input = getWindowInput(loc, adaptor.getInput().getType());
  auto w = getRanked(adaptor.getWeight().getType());
  if (!input)
    return failure();
  return inferInLayout(
      loc, adaptor.getLayout(), input, types,
      [&](RankedTensorType x) -> LogicalResult {
        int64_t group = adaptor.getGroup();
        int64_t filters = w ? w.getDimSize(0) : 0;
        if (failed(verifyConvOperands(loc, x, w, adaptor.getBias(), group,
                                      filters)))
          return failure();
        if (w.getDimSize(1) != x.getDimSize(1) / group)
          return emitOptionalError(loc, "weight has ", w.getDimSize(1),
                                   " channels per filter, expected ",
                                   x.getDimSize(1) / group,
                                   " (input channels / group)");
        return inferWindowType(loc, x, filters, w.getShape().drop_front(2),
                               adaptor.getStrides(), adaptor.getPads(),
                               adaptor.getDilations(), /*ceilMode=*/false,
                               types);
      });
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto x = getWindowInput(loc, adaptor.getInput().getType());
  auto w = getRanked(adaptor.getWeight().getType());
  if (!x)
    return failure();
  int64_t group = adaptor.getGroup();
  if (w && w.getRank() == x.getRank() && w.getDimSize(0) != x.getDimSize(1))
    return emitOptionalError(loc, "weight has ", w.getDimSize(0),
                             " input channels, the input ", x.getDimSize(1));
  int64_t filters = w ? w.getDimSize(1) * group : 0;
  if (failed(verifyConvOperands(loc, x, w, adaptor.getBias(), group, filters)))
    return failure();
  size_t k = x.getRank() - 2;
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    outputPadding = adaptor.getOutputPadding();
  ArrayRef<int64_t> kernel = w.getShape().drop_front(2);
  if (failed(verifyWindowAttrs(loc, k, kernel, strides, pads, dilations)))
    return failure();
  if (outputPadding.size() != k ||
      llvm::any_of(outputPadding, [](int64_t v) { return v < 0; }))
    return emitOptionalError(loc, "expects ", k,
                             " non-negative output_padding entries");
  SmallVector<int64_t> shape = {x.getDimSize(0), filters};
  for (size_t i = 0; i < k; ++i) {
    int64_t extent = (x.getDimSize(2 + i) - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i] + 1 + outputPadding[i] -
                     pads[i] - pads[k + i];
    if (extent < 1)
      return emitOptionalError(loc, "pads ", pads[i], ", ", pads[k + i],
                               " leave no output along spatial dimension ", i);
    shape.push_back(extent);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

/// Max and average pooling: the window over the input's spatial
/// dimensions, in the op's layout.
template <typename Adaptor>
static LogicalResult inferPoolType(std::optional<Location> loc, Adaptor adaptor,
                                   SmallVectorImpl<Type> &types) {
  auto input = getWindowInput(loc, adaptor.getInput().getType());
  if (!input)
    return failure();
  return inferInLayout(
      loc, adaptor.getLayout(), input, types, [&](RankedTensorType x) {
        return inferWindowType(loc, x, x.getDimSize(1), adaptor.getKernel(),
                               adaptor.getStrides(), adaptor.getPads(),
                               adaptor.getDilations(), adaptor.getCeilMode(),
                               types);
      });
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPoolType(loc, adaptor, types);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPoolType(loc, adaptor, types);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto input = getRanked(adaptor.getInput().getType());
  if (!input || input.getRank() < 3)
    return emitOptionalError(loc, "input must have rank >= 3");
  return inferInLayout(
      loc, adaptor.getLayout(), input, types, [&](RankedTensorType x) {
        SmallVector<int64_t> shape(x.getShape());
        std::fill(shape.begin() + 2, shape.end(), 1);
        types.push_back(RankedTensorType::get(shape, x.getElementType()));
        return success();
      });
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto x = getRanked(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (!x)
    return emitOptionalError(loc, "input must be ranked");
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, "shape ", formatShape(shape),
                             " must be static and non-negative");
  // Products of valid static shapes fit in int64 (the type verifier checks
  // the input); the target shape may not, so multiply with overflow checks.
  int64_t size = 1;
  for (int64_t d : shape)
    if (llvm::MulOverflow(size, d, size))
      return emitOptionalError(loc, "shape ", formatShape(shape),
                               " has too many elements");
  if (size != x.getNumElements())
    return emitOptionalError(loc, "cannot reshape ",
                             formatShape(x.getShape()), " (",
                             x.getNumElements(), " elements) to ",
                             formatShape(shape), " (", size, " elements)");
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = getRanked(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (!x || static_cast<int64_t>(perm.size()) != x.getRank())
    return emitOptionalError(loc, "perm must have one entry per dimension");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank() || seen[p])
      return emitOptionalError(loc, "perm ", formatList(perm),
                               " is not a permutation");
    seen[p] = true;
    shape.push_back(x.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "needs at least one input");
  auto first = getRanked(adaptor.getInputs().front().getType());
  int64_t axis = adaptor.getAxis();
  if (!first || axis < 0 || axis >= std::max<int64_t>(first.getRank(), 1) ||
      first.getRank() == 0)
    return emitOptionalError(loc, "axis ", axis, " is out of range");
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : adaptor.getInputs()) {
    auto t = getRanked(v.getType());
    if (!t || t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "inputs must share rank and element type");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && t.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, "input shapes ",
                                 formatShape(first.getShape()), " and ",
                                 formatShape(t.getShape()),
                                 " differ outside axis ", axis);
    shape[axis] += t.getDimSize(axis);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

/// Splits an explicit einsum equation "ab,bc->ac" into its terms.
static void splitEquation(StringRef equation, SmallVectorImpl<StringRef> &ins,
                          StringRef &out) {
  auto [lhs, rhs] = equation.split("->");
  out = rhs;
  lhs.split(ins, ',');
}

std::pair<SmallVector<StringRef>, StringRef> EinsumOp::getTerms() {
  SmallVector<StringRef> ins;
  StringRef out;
  splitEquation(getEquation(), ins, out);
  return {ins, out};
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef equation = adaptor.getEquation();
  if (!equation.contains("->"))
    return emitOptionalError(loc, "the equation must give its output after "
                                  "'->'");
  SmallVector<StringRef> ins;
  StringRef out;
  splitEquation(equation, ins, out);
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty() || ins.size() != inputs.size())
    return emitOptionalError(loc, "the equation has ", ins.size(),
                             " input terms for ", inputs.size(), " operands");
  Type element;
  llvm::SmallDenseMap<char, int64_t> sizes;
  for (auto [term, input] : llvm::zip(ins, inputs)) {
    auto type = getRanked(input.getType());
    if (!type)
      return emitOptionalError(loc, "operands must be ranked tensors");
    if (element && type.getElementType() != element)
      return emitOptionalError(loc, "operand element types differ");
    element = type.getElementType();
    if (static_cast<int64_t>(term.size()) != type.getRank())
      return emitOptionalError(loc, "term '", term, "' has ", term.size(),
                               " letters for an operand of rank ",
                               type.getRank());
    for (auto [letter, size] : llvm::zip(term, type.getShape())) {
      if (!llvm::isAlpha(letter))
        return emitOptionalError(loc, "'", std::string(1, letter),
                                 "' is not a letter");
      auto [it, inserted] = sizes.try_emplace(letter, size);
      if (!inserted && it->second != size && it->second != 1 && size != 1)
        return emitOptionalError(loc, "letter '", std::string(1, letter),
                                 "' has sizes ", it->second, " and ", size);
      if (!inserted && it->second == 1)
        it->second = size;
    }
  }
  if (element.isInteger(1))
    return emitOptionalError(loc, "boolean operands are not supported");
  SmallVector<int64_t> shape;
  for (auto [i, letter] : llvm::enumerate(out)) {
    auto it = sizes.find(letter);
    if (it == sizes.end())
      return emitOptionalError(loc, "output letter '", std::string(1, letter),
                               "' occurs in no operand");
    if (out.find(letter, i + 1) != StringRef::npos)
      return emitOptionalError(loc, "output letter '", std::string(1, letter),
                               "' is repeated");
    shape.push_back(it->second);
  }
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}
