//===- TesselBase.td - The tessel dialect and its base classes -*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELBASE_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tessel_Dialect : Dialect {
  let name = "tessel";
  let cppNamespace = "::mlir::tessel";
  let summary = "Tessel's graph IR: neural-network operators on ranked tensors";
  let description = [{
    The `tessel` dialect is the graph-level IR that the ONNX importer produces
    and that graph optimisations (fusion, layout assignment, quantization)
    transform. Ops work on ranked tensors with static shapes; every op infers
    its result type from its operands and attributes, and the verifier checks
    that the declared type matches. Attributes carry everything a lowering
    needs (strides, pads, axes), normalised at import: axes are non-negative
    and pads explicit.

    Ops keep the ONNX node they came from as their location:
    `loc(fused<"Conv">["conv1"])` names the ONNX op type and the node name.
  }];
  let hasConstantMaterializer = 1;
  // The discardable `tessel.*` attributes passes attach to other dialects'
  // ops are declared in TesselDialect.h and checked by
  // verifyOperationAttribute / verifyRegionArgAttribute /
  // verifyRegionResultAttribute: an unknown name or a wrong type fails
  // verification.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // The enum attributes of TesselEnums.td print as `#tessel.layout<nhwc>`.
  let useDefaultAttributePrinterParser = 1;
}

class Tessel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tessel_Dialect, mnemonic, traits>;

// Marks the ops that compute each result element from the operands
// elements at the same (broadcast) index: what fusion groups into chains.
def Tessel_ElementwiseTrait : NativeOpTrait<"ElementwiseTrait"> {
  let cppNamespace = "::mlir::tessel";
}

class Tessel_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Tessel_Op<mnemonic, !listconcat(traits, [Tessel_ElementwiseTrait])>;

// Element types that Tessel tensors carry.
def Tessel_Element : AnyTypeOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
def Tessel_Tensor : RankedTensorOf<[Tessel_Element]>;
def Tessel_FloatTensor : RankedTensorOf<[AnyFloat]>;

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELBASE_TD
