//===- TesselNNOps.td - Contractions, convolution, pooling, softmax -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELNNOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELNNOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"
include "tessel/Dialect/Tessel/IR/TesselEnums.td"

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Tessel_MatMulOp : Tessel_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "Batched matrix product with numpy broadcasting of batch dims";
  let description = [{
    Both operands have rank >= 2 (the importer reshapes ONNX's 1-D cases):
    `[..., M, K] x [..., K, N] -> [..., M, N]`, batch dimensions broadcast.
    Integer operands accumulate in their own type (wrapping), as ONNX
    MatMul on integers does; MatMulInteger imports as an i32 product.

    ```mlir
    %c = tessel.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$lhs, Tessel_Tensor:$rhs);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Tessel_GemmOp : Tessel_Op<"gemm", [Pure, InferTypeOpAdaptor]> {
  let summary = "General matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    `op(X)` is `X` or its transpose (`trans_a`, `trans_b`). A and B are 2-D;
    the optional C broadcasts to `[M, N]`.

    ```mlir
    %y = tessel.gemm %x, %w, %b {trans_b = true}
        : (tensor<1x784xf32>, tensor<512x784xf32>, tensor<512xf32>) -> tensor<1x512xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$a, Tessel_FloatTensor:$b,
                       Optional<Tessel_FloatTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

def Tessel_EinsumOp : Tessel_Op<"einsum", [Pure, InferTypeOpAdaptor]> {
  let summary = "Einstein summation: a product of operands summed over indices";
  let description = [{
    `equation` names each operand dimension with a letter, one term per
    operand, and the result's dimensions after `->`:
    `result[out...] = sum over the other letters of prod_i input_i[term_i...]`.
    The importer writes ONNX's equation in this explicit form: no spaces, no
    `...` (expanded to unused capital letters), the output always given.
    A letter repeated within one term reads a diagonal (`ii->i`). A letter
    has one size; an operand dimension of size 1 broadcasts to it. Result
    letters are distinct and each occurs in some operand. Boolean operands
    are rejected.

    ```mlir
    %z = tessel.einsum %x, %y {equation = "bij,bjk->bik"}
        : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Tessel_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The equation's input terms and its output term.
    std::pair<SmallVector<StringRef>, StringRef> getTerms();
  }];
}

def Tessel_ConvOp : Tessel_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D convolution, [N, C, spatial...] input, [OC, C / group, kernel...] weights";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]` (k >= 1 spatial dimensions), `weight` is
    `[OC, C / group, K1, ..., Kk]`, the optional `bias` is `[OC]`. `strides`
    and `dilations` have k entries; `pads` has 2k, all begins then all ends
    (ONNX's order, `[top, left, bottom, right]` in 2-D). `auto_pad` is
    resolved at import. Integer operands accumulate in their own type
    (ConvInteger and QLinearConv import as an i32 convolution); boolean
    operands are rejected.

    `layout` is the activations' layout: `#tessel.layout<nchw>` (the
    default, ONNX's, for any rank) or `#tessel.layout<nhwc>` (2-D only: input
    `[N, H, W, C]`, output `[N, OH, OW, OC]`; the weights keep
    `[OC, C / group, KH, KW]`), which tessel-assign-layouts chooses.

    ```mlir
    %y = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>,
                                 pads = array<i64: 1, 1, 1, 1>,
                                 strides = array<i64: 2, 2>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
    %z = tessel.conv %t, %w {dilations = array<i64: 1, 1>,
                             layout = #tessel.layout<nhwc>,
                             pads = array<i64: 1, 1, 1, 1>,
                             strides = array<i64: 1, 1>}
        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_Tensor:$weight,
                       Optional<Tessel_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<Tessel_LayoutAttr,
                           "::mlir::tessel::Layout::NCHW">:$layout);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

def Tessel_ConvTransposeOp : Tessel_Op<"conv_transpose",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D transposed convolution (the input gradient of `conv`)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[C, OC / group, K1, ...,
    Kk]` (input channels first, as in ONNX), the optional `bias` is `[OC]`.
    Each input element scatters `weight * x` into the full output of extent
    `(Di - 1) * stride + (Ki - 1) * dilation + 1`; `pads` (2k entries, begins
    then ends) crop that output and `output_padding` (k entries) extends it at
    the end. `output_shape` and `auto_pad` are resolved into `pads` at import.

    ```mlir
    %y = tessel.conv_transpose %x, %w {dilations = array<i64: 1, 1>,
                                       output_padding = array<i64: 1, 1>,
                                       pads = array<i64: 1, 1, 1, 1>,
                                       strides = array<i64: 2, 2>}
        : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$weight,
                       Optional<Tessel_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Tessel_MaxPoolOp : Tessel_Op<"max_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D max pooling over a channels-first tensor";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; `kernel`, `strides` and `dilations` have
    k entries, `pads` 2k (begins, then ends). Padded positions never win. With
    `ceil_mode`, output sizes round up, but a window that would start in the
    end padding is dropped (ONNX semantics). Integer inputs (ONNX allows int8
    and uint8) compare by their signedness. `layout` as for `conv`: with
    `#tessel.layout<nhwc>` (2-D only) the input is `[N, H, W, C]` and the
    output `[N, OH, OW, C]`.

    ```mlir
    %y = tessel.max_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>,
                             pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<Tessel_LayoutAttr,
                           "::mlir::tessel::Layout::NCHW">:$layout);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_AvgPoolOp : Tessel_Op<"avg_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D average pooling over a channels-first tensor";
  let description = [{
    Attributes as for `max_pool`. With `count_include_pad`, the divisor counts
    the window's taps inside the padded input; otherwise only the taps on real
    input elements. `layout` as for `max_pool`.

    ```mlir
    %y = tessel.avg_pool %x {dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>,
                             pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                       DefaultValuedAttr<Tessel_LayoutAttr,
                           "::mlir::tessel::Layout::NCHW">:$layout);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_GlobalAveragePoolOp : Tessel_Op<"global_average_pool",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Mean over all spatial dimensions, kept as size 1";
  let description = [{
    `[N, C, D1, ..., Dk] -> [N, C, 1, ..., 1]`; with
    `layout = #tessel.layout<nhwc>` (2-D only), `[N, H, W, C] -> [N, 1, 1, C]`.

    ```mlir
    %y = tessel.global_average_pool %x : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input,
                       DefaultValuedAttr<Tessel_LayoutAttr,
                           "::mlir::tessel::Layout::NCHW">:$layout);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Tessel_SoftmaxOp : Tessel_Op<"softmax",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis` (non-negative). ONNX
    Softmax before opset 13 (which coerces to 2-D) imports as reshapes around
    this op.

    ```mlir
    %y = tessel.softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELNNOPS_TD
