// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="whole-amx-tiles=true" | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-low-precision-products="whole-amx-tiles=true" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// On a target whose only fast bf16 kernel is AMX-BF16 tiles (Sapphire and
// Emerald Rapids: vdpbf16ps at half the FMA's rate), a product moves to
// bf16 only where tiles cover it: rows in tiles of 5 to 16, columns in 16s,
// the reduction in 32s. [32, 64] x [64, 32] does.
// CHECK-LABEL: func.func @tiles
// CHECK:         tessel.matmul %{{.*}}, %{{.*}} : (tensor<32x64xbf16>, tensor<64x32xbf16>) -> tensor<32x32xbf16>
// REMARK: remark: [Passed] low-precision-product | Category:tessel | Function=tiles | precision=bf16
func.func @tiles(%x: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %w = tessel.constant dense<0.5> : tensor<64x32xf32>
  %y = tessel.matmul %x, %w : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// A reduction of 48 (not in 32s), one row, and 24 columns (not in 16s)
// stay f32, each with the product's extent in its reason.
// CHECK-LABEL: func.func @not_tiles
// CHECK-NOT:     bf16
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=not_tiles | reason="the product (32 x 48 x 32) is not whole AMX-BF16 tiles (rows in tiles of 5 to 16, columns in 16s, the reduction in 32s), and the target's vdpbf16ps does fewer multiply-adds per cycle than its FP32 FMA"
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=not_tiles | reason="the product (1 x 64 x 32) is not whole AMX-BF16 tiles
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=not_tiles | reason="the product (32 x 64 x 24) is not whole AMX-BF16 tiles
func.func @not_tiles(%a: tensor<32x48xf32>, %b: tensor<1x64xf32>, %c: tensor<32x64xf32>) -> (tensor<32x32xf32>, tensor<1x32xf32>, tensor<32x24xf32>) {
  %w = tessel.constant dense<0.5> : tensor<48x32xf32>
  %y = tessel.matmul %a, %w : (tensor<32x48xf32>, tensor<48x32xf32>) -> tensor<32x32xf32>
  %v = tessel.constant dense<0.25> : tensor<32x64xf32>
  %z = tessel.gemm %b, %v {trans_b = true} : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
  %u = tessel.constant dense<0.75> : tensor<64x24xf32>
  %t = tessel.matmul %c, %u : (tensor<32x64xf32>, tensor<64x24xf32>) -> tensor<32x24xf32>
  return %y, %z, %t : tensor<32x32xf32>, tensor<1x32xf32>, tensor<32x24xf32>
}

// -----

// A convolution is the product of its gathered windows: a 7 x 7 stem over
// 3 channels has 147 taps, padded to pairs (148) and then to whole tile
// rows (160, 9% more work): covered. 3 x 3 over 8 channels has 72 taps; 96
// would be a third more: not covered.
// CHECK-LABEL: func.func @convs
// CHECK:         tessel.conv %{{.*}} : (tensor<1x3x32x32xbf16>, tensor<16x3x7x7xbf16>) -> tensor<1x16x16x16xbf16>
// CHECK:         tessel.conv %{{.*}} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32>
// REMARK: remark: [Passed] low-precision-product | Category:tessel | Function=convs | precision=bf16
// REMARK: remark: [Analysis] full-precision-product | Category:tessel | Function=convs | reason="the product (256 x 72 x 16) is not whole AMX-BF16 tiles
func.func @convs(%x: tensor<1x3x32x32xf32>, %y: tensor<1x8x16x16xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
  %w = tessel.constant dense<0.5> : tensor<16x3x7x7xf32>
  %a = tessel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x16x16xf32>
  %v = tessel.constant dense<0.25> : tensor<16x8x3x3xf32>
  %b = tessel.conv %y, %v {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32>
  return %a, %b : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
}
