//===- TesselNormalizationOps.td - Normalisations -------------*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family. Softmax itself lives with
// the NN ops; its relatives live here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELNORMALIZATIONOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELNORMALIZATIONOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

def Tessel_LogSoftmaxOp : Tessel_Op<"log_softmax",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Log of softmax along one axis";
  let description = [{
    `x - max(x) - log(sum(exp(x - max(x))))` along `axis` (non-negative): one
    op rather than `log(softmax(x))`, which loses precision for large inputs.
    ONNX LogSoftmax before opset 13 (which coerces to 2-D) imports as reshapes
    around this op, as Softmax does.

    ```mlir
    %y = tessel.log_softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tessel_HardmaxOp : Tessel_Op<"hardmax",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "One-hot of the first maximum along one axis";
  let description = [{
    1 where the element is the first maximum along `axis` (non-negative), 0
    elsewhere. One op (an arg-max and a one-hot in its lowering): tessel has
    no one-hot op to compose it from. ONNX Hardmax before opset 13 imports as
    reshapes around this op, as Softmax does.

    ```mlir
    %y = tessel.hardmax %x {axis = 1 : i64} : tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tessel_BatchNormOp : Tessel_Op<"batch_norm",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Inference-mode batch normalisation over channel dimension 1";
  let description = [{
    `(x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]` with `c` the
    index along dimension 1 of `input` (rank >= 2); `scale`, `bias`, `mean`
    and `var` are 1-D of extent C. One op, not a composition, so that graph
    passes can fold it into a preceding convolution. Training mode is refused
    at import.

    ```mlir
    %y = tessel.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
           tensor<3xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                       Tessel_FloatTensor:$bias, Tessel_FloatTensor:$mean,
                       Tessel_FloatTensor:$var,
                       DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $var "
                       "attr-dict `:` functional-type(operands, results)";
}

def Tessel_InstanceNormOp : Tessel_Op<"instance_norm",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Instance normalisation: per (n, c), over the spatial dims";
  let description = [{
    For `input` `[N, C, D1, ..., Dk]` (k >= 1), normalises each `[n, c]`
    slice over `D1..Dk` to zero mean and unit variance (biased, plus
    `epsilon`), then applies `scale[c]` and `bias[c]` (1-D, extent C). One op:
    the per-channel affine differs from layer_norm's, and it shares
    layer_norm's lowering.

    ```mlir
    %y = tessel.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                       Tessel_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scale `,` $bias attr-dict `:` "
                       "functional-type(operands, results)";
}

def Tessel_LayerNormOp : Tessel_Op<"layer_norm",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Layer normalisation over the dimensions from `axis` on";
  let description = [{
    Normalises `input` over dimensions `axis..rank-1` (`axis` non-negative)
    to zero mean and unit variance (biased, plus `epsilon`), then multiplies
    by `scale` and adds the optional `bias`, both broadcast to those
    dimensions. Also produces ONNX's `Mean` and `InvStdDev`: the input shape
    with dimensions `axis..` set to 1. One op, not a composition of
    reductions and elementwise ops, because fusion wants to see it whole.

    ```mlir
    %y, %mean, %inv = tessel.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
        -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                       Optional<Tessel_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1e-5f">:$epsilon);
  let results = (outs Tessel_FloatTensor:$result, Tessel_FloatTensor:$mean,
                      Tessel_FloatTensor:$inv_std_dev);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELNORMALIZATIONOPS_TD
