// RUN: not tessel-opt %s --tessel-convert-tessel-to-linalg 2>&1 | FileCheck %s

// Arith has no unsigned-integer add on ui8: the pass refuses the op up front,
// saying why, at the op's location (the ONNX node).

// CHECK: unsupported.mlir:[[@LINE+3]]:{{[0-9]+}}: error: 'tessel.add' op computes on unsigned integers, which Tessel cannot lower yet
// CHECK-NOT: error
func.func @unsigned_add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tessel.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
