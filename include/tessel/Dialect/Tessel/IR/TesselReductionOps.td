//===- TesselReductionOps.td - Reductions and arg-reductions -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELREDUCTIONOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELREDUCTIONOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

//===----------------------------------------------------------------------===//
// Reductions over a set of axes
//===----------------------------------------------------------------------===//

// A reduction over `axes`. Each ONNX Reduce* op is one tessel op (rather than
// a composition such as sqrt(reduce_sum(x * x))) so that each lowers to one
// linalg reduction with its pre- and post-map fused in, and so that graph
// passes can recognise it by name.
class Tessel_ReductionOp<string mnemonic, string onnxName, string formula,
                         Type tensorType>
    : Tessel_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX " # onnxName # ": " # formula # " over `axes`";
  let description = "Reduces `input` over `axes` (non-negative, strictly "
    # "increasing; normalised at import) computing " # formula # ". With "
    # "`keepdims` the reduced dimensions stay as extent 1, otherwise they are "
    # "dropped. Empty `axes` reduces nothing: the result is the per-element "
    # "value of the formula. ONNX's empty-axes-means-all and "
    # "`noop_with_empty_axes` are resolved at import. Arithmetic is in the "
    # "element type, as onnxruntime does; integers are signed.\n\n"
    # "```mlir\n%y = tessel." # mnemonic # " %x {axes = array<i64: 1>, "
    # "keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>\n```\n";
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs tensorType:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tessel::inferReductionType(
          loc, adaptor.getInput().getType(), adaptor.getAxes(),
          adaptor.getKeepdims(), types);
    }
  }];
}

def Tessel_ReduceSumOp : Tessel_ReductionOp<"reduce_sum", "ReduceSum",
    "`sum(x)`", Tessel_Tensor>;
def Tessel_ReduceMeanOp : Tessel_ReductionOp<"reduce_mean", "ReduceMean",
    "`sum(x) / n`", Tessel_Tensor>;
def Tessel_ReduceMaxOp : Tessel_ReductionOp<"reduce_max", "ReduceMax",
    "`max(x)`", Tessel_Tensor>;
def Tessel_ReduceMinOp : Tessel_ReductionOp<"reduce_min", "ReduceMin",
    "`min(x)`", Tessel_Tensor>;
def Tessel_ReduceProdOp : Tessel_ReductionOp<"reduce_prod", "ReduceProd",
    "`prod(x)`", Tessel_Tensor>;
def Tessel_ReduceL1Op : Tessel_ReductionOp<"reduce_l1", "ReduceL1",
    "`sum(|x|)`", Tessel_Tensor>;
def Tessel_ReduceL2Op : Tessel_ReductionOp<"reduce_l2", "ReduceL2",
    "`sqrt(sum(x * x))`", Tessel_FloatTensor>;
def Tessel_ReduceLogSumOp : Tessel_ReductionOp<"reduce_log_sum",
    "ReduceLogSum", "`log(sum(x))`", Tessel_FloatTensor>;
def Tessel_ReduceLogSumExpOp : Tessel_ReductionOp<"reduce_log_sum_exp",
    "ReduceLogSumExp", "`log(sum(exp(x)))` (as `m + log(sum(exp(x - m)))`, "
    "`m = max(x)`)", Tessel_FloatTensor>;
def Tessel_ReduceSumSquareOp : Tessel_ReductionOp<"reduce_sum_square",
    "ReduceSumSquare", "`sum(x * x)`", Tessel_Tensor>;

//===----------------------------------------------------------------------===//
// Arg-reductions
//===----------------------------------------------------------------------===//

class Tessel_ArgReductionOp<string mnemonic, string onnxName, string what>
    : Tessel_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX " # onnxName # ": index of the " # what
                # " along one axis";
  let description = "The `i64` index of the " # what # " element of `input` "
    # "along `axis` (non-negative). Ties go to the first index, or to the "
    # "last with `select_last_index`. With `keepdims` the axis stays as "
    # "extent 1. A tessel op (not a composition) because no other tessel op "
    # "produces indices.\n\n"
    # "```mlir\n%i = tessel." # mnemonic # " %x {axis = 1 : i64} : "
    # "(tensor<2x3xf32>) -> tensor<2x1xi64>\n```\n";
  let arguments = (ins Tessel_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tessel::inferArgReductionType(
          loc, adaptor.getInput().getType(), adaptor.getAxis(),
          adaptor.getKeepdims(), types);
    }
  }];
}

def Tessel_ArgMaxOp : Tessel_ArgReductionOp<"arg_max", "ArgMax", "largest">;
def Tessel_ArgMinOp : Tessel_ArgReductionOp<"arg_min", "ArgMin", "smallest">;

//===----------------------------------------------------------------------===//
// Scans and selections along one axis
//===----------------------------------------------------------------------===//

def Tessel_CumSumOp : Tessel_Op<"cumsum", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX CumSum: running sums along one axis";
  let description = [{
    Element `i` along the axis is the sum of the elements `0..i` before it.
    With `exclusive` the element itself is left out (the first sum is 0);
    with `reverse` the sums run from the end of the axis. Integers wrap. A
    tessel op because no composition of other tessel ops scans.

    The axis is a scalar operand (one `i32` or `i64`; negative counts from
    the end): it does not change the shape, so it may come from a graph
    input. A constant axis must be in range; one known only at run time is
    clamped into range.

    ```mlir
    %y = tessel.cumsum %x, %axis {exclusive} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input `,` $axis attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis, non-negative, when the axis operand is a constant.
    std::optional<int64_t> getConstantAxis();
  }];
}

def Tessel_TopKOp : Tessel_Op<"top_k", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX TopK: the k largest (or smallest) elements along an axis";
  let description = [{
    The `k` largest elements along `axis` (non-negative), or the smallest
    without `largest`, in order (largest first, or smallest first), with
    their `i64` positions along the axis. Equal elements keep their order:
    the lower index comes first. NaN counts as larger than every number.
    The results have the input's shape with extent `k` along `axis`.

    ```mlir
    %v, %i = tessel.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true}
        : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, I64Attr:$axis, I64Attr:$k,
                       BoolAttr:$largest);
  let results = (outs Tessel_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELREDUCTIONOPS_TD
