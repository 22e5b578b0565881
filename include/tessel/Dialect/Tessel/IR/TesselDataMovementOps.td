//===- TesselDataMovementOps.td - Constants and data movement -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tessel_ConstantOp : Tessel_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (an ONNX initializer or Constant node)";
  let description = [{
    Produces the tensor held by `value`.

    ```mlir
    %w = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tessel_ReshapeOp : Tessel_Op<"reshape", [Pure, InferTypeOpAdaptor]> {
  let summary = "Reinterprets a tensor with a static shape of the same size";
  let description = [{
    `shape` is fully resolved (no -1 or 0 entries). ONNX Reshape with a
    constant shape, Flatten, Squeeze and Unsqueeze import as this op.

    ```mlir
    %y = tessel.reshape %x {shape = array<i64: 1, 784>} : (tensor<1x1x28x28xf32>) -> tensor<1x784xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_TransposeOp : Tessel_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "Permutes dimensions: result dim i is input dim perm[i]";
  let description = [{
    ```mlir
    %y = tessel.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_ConcatOp : Tessel_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one axis";
  let description = [{
    All inputs share rank, element type and every extent except `axis`
    (non-negative).

    ```mlir
    %y = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tessel_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type(operands, results)";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD
