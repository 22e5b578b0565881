// RUN: tessel-opt %s --split-input-file --canonicalize | FileCheck %s

// A dequantized embedding table (onnxruntime's QDQ form; a table argument
// here, since a small constant's cast would fold): the gather moves before
// the dequantization, which then runs on the 8 gathered rows, not on the
// 100 of the table.
// CHECK-LABEL: func.func @dequantized_table
// CHECK-SAME: (%[[T:.*]]: tensor<100x16xui8>, %[[IDS:.*]]: tensor<1x8xi64>)
// CHECK-DAG: %[[ZP:.*]] = tessel.constant dense<1.280000e+02> : tensor<f32>
// CHECK-DAG: %[[S:.*]] = tessel.constant dense<5.000000e-02> : tensor<f32>
// CHECK: %[[G:.*]] = tessel.gather %[[T]], %[[IDS]] {axis = 0 : i64} : (tensor<100x16xui8>, tensor<1x8xi64>) -> tensor<1x8x16xui8>
// CHECK: %[[C:.*]] = tessel.cast %[[G]] to f32 : tensor<1x8x16xui8> -> tensor<1x8x16xf32>
// CHECK: %[[D:.*]] = tessel.sub %[[C]], %[[ZP]] : (tensor<1x8x16xf32>, tensor<f32>) -> tensor<1x8x16xf32>
// CHECK: %[[M:.*]] = tessel.mul %[[D]], %[[S]] : (tensor<1x8x16xf32>, tensor<f32>) -> tensor<1x8x16xf32>
// CHECK: return %[[M]]
func.func @dequantized_table(%t: tensor<100x16xui8>, %ids: tensor<1x8xi64>) -> tensor<1x8x16xf32> {
  %zp = tessel.constant dense<128.0> : tensor<f32>
  %s = tessel.constant dense<0.05> : tensor<f32>
  %c = tessel.cast %t to f32 : tensor<100x16xui8> -> tensor<100x16xf32>
  %d = tessel.sub %c, %zp : (tensor<100x16xf32>, tensor<f32>) -> tensor<100x16xf32>
  %m = tessel.mul %d, %s : (tensor<100x16xf32>, tensor<f32>) -> tensor<100x16xf32>
  %g = tessel.gather %m, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<1x8xi64>) -> tensor<1x8x16xf32>
  return %g : tensor<1x8x16xf32>
}

// -----

// Left in place: a producer with another user (it would run twice), one
// with a per-column operand (gathering along it would need that operand
// gathered too), and a gather that takes more elements than its input
// holds (the op would run on more).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tessel.gather %{{[0-9]+}},
// CHECK-NOT: tessel.gather
func.func @kept(%x: tensor<10x4xf32>, %ids: tensor<2xi64>, %many: tensor<64xi64>)
    -> (tensor<2x4xf32>, tensor<10x4xf32>, tensor<2x4xf32>, tensor<64x4xf32>) {
  %s = tessel.constant dense<2.0> : tensor<f32>
  %col = tessel.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = tessel.mul %x, %s : (tensor<10x4xf32>, tensor<f32>) -> tensor<10x4xf32>
  %ga = tessel.gather %a, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %b = tessel.mul %x, %col : (tensor<10x4xf32>, tensor<4xf32>) -> tensor<10x4xf32>
  %gb = tessel.gather %b, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %c = tessel.add %x, %s : (tensor<10x4xf32>, tensor<f32>) -> tensor<10x4xf32>
  %gc = tessel.gather %c, %many {axis = 0 : i64} : (tensor<10x4xf32>, tensor<64xi64>) -> tensor<64x4xf32>
  return %ga, %a, %gb, %gc : tensor<2x4xf32>, tensor<10x4xf32>, tensor<2x4xf32>, tensor<64x4xf32>
}
