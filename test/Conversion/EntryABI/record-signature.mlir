// RUN: tessel-opt %s --tessel-record-signature | FileCheck %s --check-prefix=RECORD
// RUN: tessel-opt %s --tessel-record-signature --tessel-convert-tessel-to-linalg --tessel-entry-abi | FileCheck %s

// The signature is recorded before lowering, with the ONNX element types;
// the lowering makes ui8 signless and tessel-entry-abi keeps the record.

// RECORD: module attributes {tessel.model_name = "u8", tessel.signature = {inputs = [{name = "a", type = tensor<4xui8>}], name = "u8", outputs = [{name = "c", type = tensor<4xui8>}]}}
// RECORD: func.func @main(%{{.+}}: tensor<4xui8> {tessel.name = "a"}) -> (tensor<4xui8> {tessel.name = "c"})

// CHECK: tessel.signature = {inputs = [{name = "a", type = tensor<4xui8>}], name = "u8", outputs = [{name = "c", type = tensor<4xui8>}]}
// CHECK-LABEL: func.func @tessel_model_main
// CHECK-SAME: (%{{.+}}: memref<4xi8>, %{{.+}}: memref<4xi8>)
module attributes {tessel.model_name = "u8"} {
  func.func @main(%a: tensor<4xui8> {tessel.name = "a"}) -> (tensor<4xui8> {tessel.name = "c"}) attributes {tessel.entry} {
    %0 = tessel.add %a, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
    return %0 : tensor<4xui8>
  }
}
