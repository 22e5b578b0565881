//===- NodeImporter.h - Importing one ONNX node -----------------*- C++ -*-===//
//
// Internal to the importer. Each ONNX op family has a file that registers one
// function per op type; a function sees the node through `NodeContext` and
// returns the node's results, or fails with a reason that names the problem.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_IMPORT_ONNX_NODEIMPORTER_H
#define TESSEL_LIB_IMPORT_ONNX_NODEIMPORTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include "tessel/Support/ErrorCodes.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir::tessel::onnx_import {

/// An ONNX sequence, resolved while importing. Tessel has no sequence type:
/// a sequence lives only in the importer, as the tensor values it holds, and
/// the sequence operators become (at most) tensor ops on those. Positions
/// and lengths are therefore import-time constants.
struct Sequence {
  /// The element type every element has (ONNX sequences are homogeneous).
  Type elementType;
  /// The elements in order; null for one whose value is known only at run
  /// time (a part of a split of run-time sizes), which only SequenceLength
  /// and the list edits may meet.
  SmallVector<Value> elements;
  /// Why the null elements are unknown.
  std::string unresolved;
};

/// What a node importer sees of one node.
class NodeContext {
public:
  NodeContext(OpBuilder &builder, Location loc, const onnx::NodeProto &node,
              ArrayRef<Value> inputs, int64_t opset)
      : builder(builder), loc(loc), node(node), inputs(inputs), opset(opset) {}

  OpBuilder &builder;
  Location loc;
  const onnx::NodeProto &node;
  /// One entry per node input; null for an omitted optional input ("").
  ArrayRef<Value> inputs;
  /// The model's default-domain opset.
  int64_t opset;
  /// One entry per node input: the sequence it names, or null for a tensor
  /// (whose value is then in `inputs`).
  ArrayRef<const Sequence *> sequenceInputs;
  /// Set by the importer of an operator whose output 0 is a sequence.
  std::optional<Sequence> sequenceResult;

  /// Input `i` as a sequence, or null if it is not one.
  const Sequence *sequenceInput(size_t i) const {
    return i < sequenceInputs.size() ? sequenceInputs[i] : nullptr;
  }

  /// Input `i`, or null if absent or omitted.
  Value input(size_t i) const {
    return i < inputs.size() ? inputs[i] : Value();
  }
  RankedTensorType inputType(size_t i) const {
    Value v = input(i);
    return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  }
  /// Whether output `i` is used by name (ONNX omits unused optional outputs).
  bool hasOutput(size_t i) const {
    return static_cast<int>(i) < node.output_size() && !node.output(i).empty();
  }

  /// The constant value of input `i`, if it is produced by a constant.
  ElementsAttr constantInput(size_t i) const;
  /// Constant input `i` read as integers.
  std::optional<SmallVector<int64_t>> constantInts(size_t i) const;
  /// Constant input `i` holding one number.
  std::optional<double> constantScalar(size_t i) const;

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef fallback) const;
  std::optional<SmallVector<int64_t>> intsAttr(llvm::StringRef name) const;

  /// Creates `OpTy` from its builder arguments (those after the location),
  /// running the op's type inference before the op is used: operands the op
  /// rejects fail the node with the op's own message, where the inferring
  /// builder would abort the process.
  template <typename OpTy, typename... Args>
  FailureOr<Value> build(Args &&...args) {
    MLIRContext *ctx = builder.getContext();
    std::string message;
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    auto op = OpTy::create(builder, loc, NoneType::get(ctx),
                           std::forward<Args>(args)...);
    SmallVector<Type, 1> types;
    if (failed(OpTy::inferReturnTypes(
            ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types)) ||
        types.size() != 1) {
      op->erase();
      (void)fail(message.empty() ? "the operands are invalid for " +
                                       OpTy::getOperationName().str()
                                 : message);
      return mlir::failure();
    }
    op->getResult(0).setType(types.front());
    if (mlir::failed(verifyBuilt(op, message)))
      return mlir::failure();
    return foldToConstant(op);
  }

  /// Runs the op's verifier on `op`, built by `build` with its result types
  /// set: operands that break its invariants (Gather's indices of a float
  /// type...) fail the node with the verifier's message (`message`, the
  /// diagnostics captured so far) before a folder or a pass that assumes
  /// them sees the op, which is erased.
  LogicalResult verifyBuilt(Operation *op, const std::string &message);

  /// Replaces `op` by a constant when its operands are constants it folds
  /// (the shape computations exporters emit); returns its value either way.
  Value foldToConstant(Operation *op);

  /// `build` for an op with `numResults` results: creates `OpTy`, runs its
  /// type inference, and returns all its results, or fails the node.
  template <typename OpTy, typename... Args>
  FailureOr<SmallVector<Value>> buildResults(unsigned numResults,
                                             Args &&...args) {
    MLIRContext *ctx = builder.getContext();
    std::string message;
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    SmallVector<Type> placeholders(numResults, NoneType::get(ctx));
    auto op = OpTy::create(builder, loc, TypeRange(placeholders),
                           std::forward<Args>(args)...);
    SmallVector<Type> types;
    if (failed(OpTy::inferReturnTypes(
            ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types)) ||
        types.size() != numResults) {
      op->erase();
      (void)fail(message.empty() ? "the operands are invalid for " +
                                       OpTy::getOperationName().str()
                                 : message);
      return mlir::failure();
    }
    SmallVector<Value> values;
    for (auto [result, type] : llvm::zip(op->getResults(), types)) {
      result.setType(type);
      values.push_back(result);
    }
    if (mlir::failed(verifyBuilt(op, message)))
      return mlir::failure();
    return values;
  }

  /// `build`, appending the result to `results`.
  template <typename OpTy, typename... Args>
  LogicalResult emit(SmallVectorImpl<Value> &results, Args &&...args) {
    FailureOr<Value> value = build<OpTy>(std::forward<Args>(args)...);
    if (mlir::failed(value))
      return mlir::failure();
    results.push_back(*value);
    return mlir::success();
  }

  /// Records why the node cannot be imported and returns failure; `code`
  /// names the family of the problem (docs/errors.md).
  LogicalResult fail(const llvm::Twine &reason,
                     ::tessel::ErrorCode code = ::tessel::ErrorCode::InvalidNode) {
    failure = reason.str();
    failureCode = code;
    return mlir::failure();
  }
  /// `fail` for an input that must be known at compile time because it
  /// decides a result's shape (a shape, axes, sizes, k...); the graph
  /// importer names the graph inputs it comes from and how to fix them.
  /// The inputs from `firstInput` on are the ones that must be constant.
  LogicalResult failNonConstant(const llvm::Twine &reason,
                                unsigned firstInput = 1) {
    nonConstantFrom = firstInput;
    return fail(reason, ::tessel::ErrorCode::NonConstantInput);
  }
  std::string failure;
  unsigned nonConstantFrom = 1;
  ::tessel::ErrorCode failureCode = ::tessel::ErrorCode::InvalidNode;
};

/// Imports one node, appending its results in ONNX output order.
using NodeImportFn =
    std::function<LogicalResult(NodeContext &, SmallVectorImpl<Value> &)>;

/// How many inputs a node may have: the first `min` are required (non-empty
/// names), at most `max` may be given.
struct Arity {
  unsigned min, max;
};
inline constexpr unsigned kVariadic = ~0u;

/// The newest default-domain opset Tessel imports. Every operator version up
/// to this one was reviewed against the importers (onnx 1.23's operator
/// schemas): an importer registered without a `maxOpset` implements its op's
/// semantics in every opset up to here, where the newer versions only added
/// element types (which the ops' own verifiers check) or attributes the
/// importer reads. An importer whose op changed in a way it does not handle
/// states the last opset it does handle.
inline constexpr int64_t kNewestOpset = 28;

/// The importers known for one op type, valid for opsets [minOpset, maxOpset].
struct OpImporter {
  NodeImportFn fn;
  Arity inputs;
  int64_t minOpset = 1;
  int64_t maxOpset = kNewestOpset;
  /// Bit `i` set: input `i` is a sequence (every other input is a tensor).
  uint32_t sequenceInputs = 0;
  /// Whether output 0 is a sequence, returned in `sequenceResult`.
  bool sequenceResult = false;
};

/// Op type -> importer, for the default ONNX domain.
class ImporterRegistry {
public:
  void add(llvm::StringRef opType, NodeImportFn fn, Arity inputs,
           int64_t minOpset = 1, int64_t maxOpset = kNewestOpset) {
    ops[opType] = OpImporter{std::move(fn), inputs, minOpset, maxOpset};
  }
  /// `add` for an operator that takes or produces sequences: bit `i` of
  /// `sequenceInputs` marks input `i` as a sequence.
  void addSequenceOp(llvm::StringRef opType, NodeImportFn fn, Arity inputs,
                     int64_t minOpset, uint32_t sequenceInputs,
                     bool sequenceResult) {
    OpImporter op{std::move(fn), inputs, minOpset};
    op.sequenceInputs = sequenceInputs;
    op.sequenceResult = sequenceResult;
    ops[opType] = std::move(op);
  }
  const OpImporter *lookup(llvm::StringRef opType) const {
    auto it = ops.find(opType);
    return it == ops.end() ? nullptr : &it->second;
  }
  static const ImporterRegistry &get();

private:
  llvm::StringMap<OpImporter> ops;
};

void registerElementwiseImporters(ImporterRegistry &registry);
void registerMathImporters(ImporterRegistry &registry);
void registerActivationImporters(ImporterRegistry &registry);
void registerLogicImporters(ImporterRegistry &registry);
void registerCastImporters(ImporterRegistry &registry);
void registerNNImporters(ImporterRegistry &registry);
void registerNormalizationImporters(ImporterRegistry &registry);
void registerReductionImporters(ImporterRegistry &registry);
void registerTensorImporters(ImporterRegistry &registry);
void registerIndexingImporters(ImporterRegistry &registry);
void registerLossImporters(ImporterRegistry &registry);
void registerResizeImporters(ImporterRegistry &registry);
void registerQuantizationImporters(ImporterRegistry &registry);
void registerRecurrentImporters(ImporterRegistry &registry);
void registerSignalImporters(ImporterRegistry &registry);
void registerSequenceImporters(ImporterRegistry &registry);

/// The MLIR element type of an ONNX TensorProto data type, or null.
Type convertElementType(MLIRContext *ctx, int32_t onnxType);
/// ONNX's name for a data type ("FLOAT", "INT64"...), for messages.
std::string elementTypeName(int32_t onnxType);

/// A TensorProto (initializer or Constant value) as an MLIR attribute, or an
/// error message. A tensor whose data is in an external file (ONNX's
/// external data) is read from `externalDataDir`, the model file's
/// directory; without one such a tensor is an error.
FailureOr<ElementsAttr> convertTensor(MLIRContext *ctx,
                                      const onnx::TensorProto &tensor,
                                      std::string &error,
                                      llvm::StringRef externalDataDir = {});

/// The bytes of a tensor stored as ONNX external data: `location` (relative
/// to `dir`, inside it), `offset` and `length` of its external_data entries,
/// read (memory-mapped where the system allows) without a copy. Null with
/// `error` set when an entry is missing or malformed, the location escapes
/// `dir`, or the file is missing or too short.
std::unique_ptr<llvm::MemoryBuffer>
readExternalData(const onnx::TensorProto &tensor, llvm::StringRef dir,
                 std::string &error);

/// Pads of a window op over [N, C, D1, ..., Dk] after ONNX's auto_pad: fills
/// `pads` (all begins, then all ends) from the explicit pads or the auto_pad
/// mode.
LogicalResult resolvePads(NodeContext &ctx, ArrayRef<int64_t> inputSpatial,
                          ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations,
                          SmallVectorImpl<int64_t> &pads);

/// Operand B of a binary elementwise node, aligned for numpy broadcasting:
/// before opset 7, B broadcasts only with `broadcast = 1`, placed at `axis`
/// of A (default: the trailing dimensions). Fails the node otherwise.
FailureOr<Value> alignLegacyBroadcast(NodeContext &ctx);

/// Imports a Conv node (any number of spatial dimensions, float or integer
/// operands) on `ctx.inputs` (x, w and optional bias), reading the window
/// attributes from the node.
LogicalResult importConvolution(NodeContext &ctx,
                                SmallVectorImpl<Value> &results);

/// Normalises a possibly negative axis against `rank`, or fails.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace mlir::tessel::onnx_import

#endif // TESSEL_LIB_IMPORT_ONNX_NODEIMPORTER_H
