//===- TesselElementwiseOps.td - Elementwise ops -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELELEMENTWISEOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELELEMENTWISEOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Result type = operand type (ODS infers it from the trait).
class Tessel_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Tessel_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                               InferTypeOpInterface])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tessel_ReluOp : Tessel_UnaryOp<"relu", Tessel_Tensor> {
  let summary = "Rectified linear unit: max(x, 0)";
  let description = [{
    ```mlir
    %y = tessel.relu %x : tensor<1x4xf32>
    ```
  }];
}

def Tessel_SigmoidOp : Tessel_UnaryOp<"sigmoid", Tessel_FloatTensor> {
  let summary = "Logistic sigmoid: 1 / (1 + exp(-x))";
  let description = [{
    ```mlir
    %y = tessel.sigmoid %x : tensor<1x4xf32>
    ```
  }];
}

def Tessel_TanhOp : Tessel_UnaryOp<"tanh", Tessel_FloatTensor> {
  let summary = "Hyperbolic tangent";
  let description = [{
    ```mlir
    %y = tessel.tanh %x : tensor<1x4xf32>
    ```
  }];
}

def Tessel_ClipOp : Tessel_Op<"clip",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Clamps every element to [min, max]";
  let description = [{
    A missing bound does not clamp on that side. ONNX Clip's `min` and `max`
    inputs must be constants at import; they become these attributes.

    ```mlir
    %y = tessel.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// Binary ops broadcast their operands multidirectionally (numpy rules);
// both operands have the same element type.
class Tessel_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Tessel_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let arguments = (ins Tessel_Tensor:$lhs, Tessel_Tensor:$rhs);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tessel::inferBroadcastType(
          loc, adaptor.getLhs().getType(), adaptor.getRhs().getType(), types);
    }
  }];
}

def Tessel_AddOp : Tessel_BinaryOp<"add", [Commutative]> {
  let summary = "Elementwise addition with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_SubOp : Tessel_BinaryOp<"sub"> {
  let summary = "Elementwise subtraction with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.sub %x, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_MulOp : Tessel_BinaryOp<"mul", [Commutative]> {
  let summary = "Elementwise multiplication with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_DivOp : Tessel_BinaryOp<"div"> {
  let summary = "Elementwise division with broadcasting";
  let description = [{
    Integer division truncates towards zero, as ONNX Div does.

    ```mlir
    %z = tessel.div %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELELEMENTWISEOPS_TD
