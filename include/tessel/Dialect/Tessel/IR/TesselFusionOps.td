//===- TesselFusionOps.td - Fused regions -------------------*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELFUSIONOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELFUSIONOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Tessel_FusedOp : Tessel_Op<"fused", [
    SingleBlock, RecursiveMemoryEffects, RecursivelySpeculatable]> {
  let summary = "A group of graph ops that code generation runs as one kernel";
  let description = [{
    The unit of fusion: `tessel-form-fused-regions` moves an anchor (a
    convolution, a product, an elementwise op, a softmax...) and the ops it
    fuses with into one region, which yields the values used outside it.
    The region reads values from above directly (it is not isolated): the
    weights and the other inputs of its ops stay where they are.

    Lowering to linalg inlines the region and marks every op it produced with
    the region's group (`tessel.fusion_group`); the code generators fuse
    ops of one group only. An op outside any region is a group of its own.

    `kind` names the rule that formed the region, for reading: `conv`,
    `product`, `elementwise`, `attention`, `layout` or `rows` (see
    `tessel-form-fused-regions`); lowering wraps each op in no region in one
    of kind `single` first. A `layout` region's transpose lowers to a
    `linalg.generic` (not `linalg.transpose`), which its producers fuse into.

    ```mlir
    %y = tessel.fused "conv" -> tensor<1x64x56x56xf32> {
      %c = tessel.conv %x, %w, %b {...} : ...
      %r = tessel.relu %c : tensor<1x64x56x56xf32>
      tessel.yield %r : tensor<1x64x56x56xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind);
  let results = (outs Variadic<Tessel_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$kind attr-dict-with-keyword (`->` type($results)^)? $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The region's terminator.
    YieldOp getYield();
  }];
}

def Tessel_YieldOp : Tessel_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"FusedOp">]> {
  let summary = "The values a `tessel.fused` region gives to its users";
  let arguments = (ins Variadic<Tessel_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELFUSIONOPS_TD
