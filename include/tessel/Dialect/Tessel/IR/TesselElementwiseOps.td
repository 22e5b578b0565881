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
    : Tessel_ElementwiseOp<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
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

def Tessel_ClipOp : Tessel_ElementwiseOp<"clip",
    [Pure, SameOperandsAndResultType, InferTypeOpInterface]> {
  let summary = "Clamps every element to [min, max]";
  let description = [{
    A missing bound does not clamp on that side. Float ONNX Clip with
    constant bounds imports as this op; bounds that are graph inputs, and
    integer Clip, import as `tessel.max` then `tessel.min`.

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
// both operands have the same element type, which the result keeps.
class Tessel_BinaryOp<string mnemonic, list<Trait> traits = [],
                      Type operandType = Tessel_Tensor, dag attrs = (ins)>
    : Tessel_ElementwiseOp<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  let arguments = !con((ins operandType:$lhs, operandType:$rhs), attrs);
  let results = (outs operandType:$result);
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
  let hasFolder = 1;
  let summary = "Elementwise addition with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_SubOp : Tessel_BinaryOp<"sub"> {
  let hasFolder = 1;
  let summary = "Elementwise subtraction with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.sub %x, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_MulOp : Tessel_BinaryOp<"mul", [Commutative]> {
  let hasFolder = 1;
  let summary = "Elementwise multiplication with broadcasting";
  let description = [{
    ```mlir
    %z = tessel.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_DivOp : Tessel_BinaryOp<"div"> {
  let hasFolder = 1;
  let summary = "Elementwise division with broadcasting";
  let description = [{
    Integer division truncates towards zero, as ONNX Div does.

    ```mlir
    %z = tessel.div %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

// A unary op whose result has the operand's type; `what` is the summary and
// the description's example uses the mnemonic.
class Tessel_MathOp<string mnemonic, string what,
                    Type operandType = Tessel_FloatTensor, string notes = "">
    : Tessel_UnaryOp<mnemonic, operandType> {
  let summary = what;
  let description = notes # "\n\n```mlir\n%y = tessel." # mnemonic #
                    " %x : tensor<2x3xf32>\n```\n";
}

def Tessel_AbsOp : Tessel_MathOp<"abs", "Absolute value", Tessel_Tensor,
    "On unsigned integers, the identity.">;
def Tessel_NegOp : Tessel_MathOp<"neg", "Negation", Tessel_Tensor,
    "Integers wrap: the negation of the most negative value is itself."> {
  let hasFolder = 1;
}
def Tessel_SignOp : Tessel_MathOp<"sign", "Sign: -1, 0 or 1", Tessel_Tensor,
    "NaN maps to 0.">;
def Tessel_ExpOp : Tessel_MathOp<"exp", "Exponential">;
def Tessel_LogOp : Tessel_MathOp<"log", "Natural logarithm">;
def Tessel_SqrtOp : Tessel_MathOp<"sqrt", "Square root">;
def Tessel_ReciprocalOp : Tessel_MathOp<"reciprocal", "Reciprocal: 1 / x">;
def Tessel_FloorOp : Tessel_MathOp<"floor", "Rounds down to an integral value">;
def Tessel_CeilOp : Tessel_MathOp<"ceil", "Rounds up to an integral value">;
def Tessel_RoundOp : Tessel_MathOp<"round",
    "Rounds to the nearest integral value, halves to even">;
def Tessel_SinOp : Tessel_MathOp<"sin", "Sine">;
def Tessel_CosOp : Tessel_MathOp<"cos", "Cosine">;
def Tessel_TanOp : Tessel_MathOp<"tan", "Tangent">;
def Tessel_AsinOp : Tessel_MathOp<"asin", "Arcsine">;
def Tessel_AcosOp : Tessel_MathOp<"acos", "Arccosine">;
def Tessel_AtanOp : Tessel_MathOp<"atan", "Arctangent">;
def Tessel_SinhOp : Tessel_MathOp<"sinh", "Hyperbolic sine">;
def Tessel_CoshOp : Tessel_MathOp<"cosh", "Hyperbolic cosine">;
def Tessel_AsinhOp : Tessel_MathOp<"asinh", "Inverse hyperbolic sine">;
def Tessel_AcoshOp : Tessel_MathOp<"acosh", "Inverse hyperbolic cosine">;
def Tessel_AtanhOp : Tessel_MathOp<"atanh", "Inverse hyperbolic tangent">;
def Tessel_ErfOp : Tessel_MathOp<"erf", "Gauss error function">;
def Tessel_NotOp : Tessel_UnaryOp<"not", RankedTensorOf<[I1]>> {
  let summary = "Logical negation of booleans";
  let description = [{
    ```mlir
    %y = tessel.not %x : tensor<2x3xi1>
    ```
  }];
}

// Float -> bool classification; the result has the operand's shape.
class Tessel_ClassifyOp<string mnemonic, dag attrs = (ins)>
    : Tessel_ElementwiseOp<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = !con((ins Tessel_FloatTensor:$input), attrs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tessel::inferPredicateType(
          loc, adaptor.getInput().getType(), types);
    }
  }];
}

def Tessel_IsNaNOp : Tessel_ClassifyOp<"is_nan"> {
  let summary = "Whether each element is NaN";
  let description = [{
    ```mlir
    %y = tessel.is_nan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

def Tessel_IsInfOp : Tessel_ClassifyOp<"is_inf",
    (ins DefaultValuedAttr<BoolAttr, "true">:$detect_positive,
         DefaultValuedAttr<BoolAttr, "true">:$detect_negative)> {
  let summary = "Whether each element is an infinity of the detected signs";
  let description = [{
    ```mlir
    %y = tessel.is_inf %x {detect_negative = false} : (tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Activations
//
// Each activation is one op rather than a composition of arith-like ops: a
// fusion pattern then matches a single elementwise op whatever the function,
// and the lowering writes the formula once, in one linalg.generic body.
//===----------------------------------------------------------------------===//

class Tessel_ActivationOp<string mnemonic, string what, string formula,
                          dag attrs = (ins), string exampleAttrs = "">
    : Tessel_ElementwiseOp<mnemonic, [Pure, SameOperandsAndResultType,
                           InferTypeOpInterface]> {
  let summary = what;
  let description = "`" # formula # "`, elementwise.\n\nOne op rather than "
      # "a composition of arithmetic ops: fusion patterns then see a single "
      # "elementwise op whatever the activation, and the lowering writes the "
      # "formula once, as one linalg.generic body.\n\n```mlir\n%y = tessel." #
      mnemonic # " %x" # exampleAttrs # " : tensor<2x3xf32>\n```\n";
  let arguments = !con((ins Tessel_FloatTensor:$input), attrs);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tessel_LeakyReluOp : Tessel_ActivationOp<"leaky_relu", "Leaky ReLU",
    "x < 0 ? alpha * x : x", (ins F64Attr:$alpha), " {alpha = 0.01 : f64}">;
def Tessel_EluOp : Tessel_ActivationOp<"elu", "Exponential linear unit",
    "x < 0 ? alpha * (exp(x) - 1) : x", (ins F64Attr:$alpha),
    " {alpha = 1.0 : f64}">;
def Tessel_SeluOp : Tessel_ActivationOp<"selu", "Scaled exponential linear unit",
    "x > 0 ? gamma * x : gamma * alpha * (exp(x) - 1)",
    (ins F64Attr:$alpha, F64Attr:$gamma),
    " {alpha = 1.67326 : f64, gamma = 1.0507 : f64}">;
def Tessel_CeluOp : Tessel_ActivationOp<"celu",
    "Continuously differentiable exponential linear unit",
    "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))", (ins F64Attr:$alpha),
    " {alpha = 1.0 : f64}">;
def Tessel_HardSigmoidOp : Tessel_ActivationOp<"hard_sigmoid", "Hard sigmoid",
    "max(0, min(1, alpha * x + beta))", (ins F64Attr:$alpha, F64Attr:$beta),
    " {alpha = 0.2 : f64, beta = 0.5 : f64}">;
def Tessel_HardSwishOp : Tessel_ActivationOp<"hard_swish", "Hard swish",
    "x * max(0, min(1, x / 6 + 0.5))">;
def Tessel_ThresholdedReluOp : Tessel_ActivationOp<"thresholded_relu",
    "Thresholded ReLU", "x > alpha ? x : 0", (ins F64Attr:$alpha),
    " {alpha = 1.0 : f64}">;
def Tessel_SoftplusOp : Tessel_ActivationOp<"softplus", "Softplus",
    "log(exp(x) + 1)">;
def Tessel_SoftsignOp : Tessel_ActivationOp<"softsign", "Softsign",
    "x / (1 + |x|)">;
def Tessel_MishOp : Tessel_ActivationOp<"mish", "Mish",
    "x * tanh(log(1 + exp(x)))">;
def Tessel_GeluOp : Tessel_ActivationOp<"gelu", "Gaussian error linear unit",
    "0.5 * x * (1 + erf(x / sqrt(2))), or with `tanh_approximation` "
    "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))",
    (ins UnitAttr:$tanh_approximation), " {tanh_approximation}">;

//===----------------------------------------------------------------------===//
// Broadcasting binary ops beyond arithmetic
//===----------------------------------------------------------------------===//

def Tessel_MinOp : Tessel_BinaryOp<"min", [Commutative]> {
  let hasFolder = 1;
  let summary = "Elementwise minimum with broadcasting";
  let description = [{
    A NaN operand gives NaN. ONNX's variadic Min is a chain of these.

    ```mlir
    %z = tessel.min %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_MaxOp : Tessel_BinaryOp<"max", [Commutative]> {
  let hasFolder = 1;
  let summary = "Elementwise maximum with broadcasting";
  let description = [{
    A NaN operand gives NaN. ONNX's variadic Max is a chain of these.

    ```mlir
    %z = tessel.max %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Tessel_ModOp : Tessel_BinaryOp<"mod", [], Tessel_Tensor,
                                   (ins UnitAttr:$fmod)> {
  let summary = "Elementwise remainder with broadcasting";
  let description = [{
    With `fmod`, the remainder of truncated division (C's `fmod`; the sign of
    the dividend). Without it, the remainder of floored division: it takes
    the divisor's sign, as Python's `%` (on floats, ONNX opset 28's Mod with
    fmod=0: a zero remainder takes the divisor's sign; a finite dividend
    over an infinite divisor of the other sign gives the divisor).

    ```mlir
    %z = tessel.mod %x, %y {fmod} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    ```
  }];
}

def Tessel_PReluOp : Tessel_BinaryOp<"prelu", [], Tessel_FloatTensor> {
  let summary = "Parametric ReLU: x < 0 ? slope * x : x";
  let description = [{
    The slope (the second operand) broadcasts to the input's shape.

    ```mlir
    %y = tessel.prelu %x, %slope : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    ```
  }];
}

def Tessel_BitShiftOp : Tessel_BinaryOp<"bit_shift", [],
    RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>,
    (ins UnitAttr:$left)> {
  let summary = "Logical shift of the first operand by the second";
  let description = [{
    Shifts left with `left`, else right (logically: zeros come in). A shift
    by the bit width or more gives 0.

    ```mlir
    %z = tessel.bit_shift %x, %n {left} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
}

// Boolean connectives.
class Tessel_LogicalOp<string mnemonic, string what>
    : Tessel_BinaryOp<mnemonic, [Commutative], RankedTensorOf<[I1]>> {
  let summary = what;
  let description = "```mlir\n%z = tessel." # mnemonic #
      " %a, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>\n```\n";
}

def Tessel_AndOp : Tessel_LogicalOp<"and", "Logical and with broadcasting">;
def Tessel_OrOp : Tessel_LogicalOp<"or", "Logical or with broadcasting">;
def Tessel_XorOp : Tessel_LogicalOp<"xor", "Logical xor with broadcasting">;

// Comparisons: operands of one element type broadcast; the result is bool.
class Tessel_CompareOp<string mnemonic, string what>
    : Tessel_ElementwiseOp<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = what;
  let description = "Floats compare ordered: any comparison with NaN is "
      # "false.\n\n```mlir\n%z = tessel." # mnemonic #
      " %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>\n```\n";
  let arguments = (ins Tessel_Tensor:$lhs, Tessel_Tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tessel::inferCompareType(
          loc, adaptor.getLhs().getType(), adaptor.getRhs().getType(), types);
    }
  }];
}

def Tessel_EqualOp : Tessel_CompareOp<"equal", "Elementwise a == b">;
def Tessel_LessOp : Tessel_CompareOp<"less", "Elementwise a < b">;
def Tessel_LessOrEqualOp : Tessel_CompareOp<"less_or_equal", "Elementwise a <= b">;
def Tessel_GreaterOp : Tessel_CompareOp<"greater", "Elementwise a > b">;
def Tessel_GreaterOrEqualOp
    : Tessel_CompareOp<"greater_or_equal", "Elementwise a >= b">;

def Tessel_PowOp : Tessel_ElementwiseOp<"pow", [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise power with broadcasting";
  let description = [{
    The exponent may have another element type than the base; the result has
    the base's. Integer results truncate the power computed in `f64`.

    ```mlir
    %z = tessel.pow %x, %e : (tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$lhs, Tessel_Tensor:$rhs);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Tessel_WhereOp : Tessel_ElementwiseOp<"where", [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise select: condition ? x : y, all three broadcast";
  let description = [{
    ```mlir
    %z = tessel.where %c, %x, %y
        : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition, Tessel_Tensor:$lhs,
                       Tessel_Tensor:$rhs);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_CastOp : Tessel_ElementwiseOp<"cast", [Pure, InferTypeOpAdaptor]> {
  let summary = "Converts every element to the element type `to`";
  let description = [{
    ONNX Cast semantics: floats to integers truncate towards zero (values out
    of the target's range are undefined), integers widen by their own
    signedness, anything to bool is `x != 0`, bool to numbers is 0 or 1.

    ```mlir
    %y = tessel.cast %x to i32 : tensor<2x3xf32> -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, TypeAttrOf<Tessel_Element>:$to);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input `to` $to attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELELEMENTWISEOPS_TD
