//===- TesselNNOps.td - Contractions, convolution, pooling, softmax -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELNNOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELNNOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Tessel_MatMulOp : Tessel_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "Batched matrix product with numpy broadcasting of batch dims";
  let description = [{
    Both operands have rank >= 2 (the importer reshapes ONNX's 1-D cases):
    `[..., M, K] x [..., K, N] -> [..., M, N]`, batch dimensions broadcast.

    ```mlir
    %c = tessel.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$lhs, Tessel_FloatTensor:$rhs);
  let results = (outs Tessel_FloatTensor:$result);
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

def Tessel_Conv2DOp : Tessel_Op<"conv2d",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution, NCHW input and OIHW weights";
  let description = [{
    `input` is `[N, C, H, W]`, `weight` is `[OC, C / group, KH, KW]`, the
    optional `bias` is `[OC]`. `pads` is `[top, left, bottom, right]` (ONNX's
    begin-then-end order); `auto_pad` is resolved at import.

    ```mlir
    %y = tessel.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$weight,
                       Optional<Tessel_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Tessel_MaxPool2DOp : Tessel_Op<"max_pool2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D max pooling over NCHW";
  let description = [{
    Padded positions never win. With `ceil_mode`, output sizes round up, but a
    window that would start in the end padding is dropped (ONNX semantics).
    Integer inputs (ONNX allows int8 and uint8) compare by their signedness.

    ```mlir
    %y = tessel.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_AvgPool2DOp : Tessel_Op<"avg_pool2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D average pooling over NCHW";
  let description = [{
    With `count_include_pad`, the divisor is the window size clipped to the
    padded input; otherwise it counts only real input elements.

    ```mlir
    %y = tessel.avg_pool2d %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_GlobalAveragePoolOp : Tessel_Op<"global_average_pool",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Mean over all spatial dimensions, kept as size 1";
  let description = [{
    `[N, C, D1, ..., Dk] -> [N, C, 1, ..., 1]`.

    ```mlir
    %y = tessel.global_average_pool %x : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input);
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
