// RUN: not tessel-opt %s --tessel-convert-tessel-to-linalg 2>&1 | FileCheck %s

// Arith has no unsigned-integer add on ui8: the op is left illegal and the
// pass fails with an error at the op's location (the ONNX node).

// CHECK: unsupported.mlir:[[@LINE+3]]:{{[0-9]+}}: error: failed to legalize operation 'tessel.add'
// CHECK-NOT: error
func.func @unsigned_add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tessel.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
