// RUN: tessel-opt %s --split-input-file --tessel-vectorize-convolutions="vector-width=16" | FileCheck %s

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#filter = affine_map<(d0, d1, d2, d3) -> (d3)>
#column = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>

// A 3x3 stride-2 convolution of u8 x i8 values, channels last (as
// tessel-narrow-integer-products leaves a QDQ convolution): a loop over the
// output positions gathers each one's taps, a row of 3 x 3 x 3 = 27 bytes
// padded with zeros to 28 (whole groups of 4 for the 8-bit kernel), each
// tap row's 3 columns x 3 channels one vector; the weights become the
// constant [28, 2] (taps in (kh, kw, c) order, then a zero row). The
// product [4, 28] x [28, 2] starts from the zero-point correction and ends
// in the requantization, both rebuilt on the [4, 2] views, a per-filter
// scale read as a vector [2].
// CHECK-LABEL: func.func @gathered
// CHECK-SAME:    (%[[X:.*]]: tensor<1x5x5x3xi8>
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2, 3]] : tensor<1x5x5x3xi8> into tensor<5x15xi8>
// CHECK:         %[[WIN:.*]] = scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-COUNT-3:       vector.transfer_read %[[ROWS]]{{.*}} : tensor<5x15xi8>, vector<9xi8>
// CHECK:               vector.transfer_write %{{.*}} : vector<1xi8>, tensor<4x28xi8>
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[}}1, 10], [2, 20], [3, 30], [4, 40], {{.*}}, [0, 0]]> : tensor<28x2xi8>
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2xi32>) outs(%{{.*}} : tensor<4x2xi32>)
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[LHS:.*]], #[[RHS:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[WIN]], %[[W]] : tensor<4x28xi8>, tensor<28x2xi8>) outs(%[[INIT]] : tensor<4x2xi32>)
// CHECK-SAME:      tessel.fusion_group = 1
// CHECK:           arith.extui
// CHECK:           arith.extsi
// CHECK:         %[[SCALE:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<1x1x1x2xf32> into tensor<2xf32>
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[SCALE]] : tensor<4x2xi32>, tensor<2xf32>) outs(%{{.*}} : tensor<4x2xi8>)
// CHECK:         tensor.expand_shape %[[Q]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 2, 2, 2] : tensor<4x2xi8> into tensor<1x2x2x2xi8>
func.func @gathered(%x: tensor<1x5x5x3xi8>, %scale: tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xi8> {
  %c0 = arith.constant 0 : i32
  %sums = arith.constant dense<[7, -7]> : tensor<2xi32>
  %w = arith.constant dense<[[[[1, 4, 7], [10, 13, 16], [19, 22, 25]], [[2, 5, 8], [11, 14, 17], [20, 23, 26]], [[3, 6, 9], [12, 15, 18], [21, 24, 27]]],
                             [[[10, 40, 70], [100, 127, 1], [2, 3, 4]], [[20, 50, 80], [110, 1, 1], [1, 1, 1]], [[30, 60, 90], [120, 1, 1], [1, 1, 1]]]]> : tensor<2x3x3x3xi8>
  %e = tensor.empty() : tensor<1x2x2x2xi32>
  %init = linalg.generic {indexing_maps = [#filter, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sums : tensor<2xi32>) outs(%e : tensor<1x2x2x2xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%s: i32, %o: i32):
    %v = arith.subi %c0, %s : i32
    linalg.yield %v : i32
  } -> tensor<1x2x2x2xi32>
  %acc = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x5x5x3xi8>, tensor<2x3x3x3xi8>) outs(%init : tensor<1x2x2x2xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extui %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x2x2x2xi32>
  %qe = tensor.empty() : tensor<1x2x2x2xi8>
  %q = linalg.generic {indexing_maps = [#id, #column, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %scale : tensor<1x2x2x2xi32>, tensor<1x1x1x2xf32>) outs(%qe : tensor<1x2x2x2xi8>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%a: i32, %s: f32, %o: i8):
    %f = arith.sitofp %a : i32 to f32
    %m = arith.mulf %f, %s : f32
    %r = math.roundeven %m : f32
    %i = arith.fptoui %r : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x2x2x2xi8>
  return %q : tensor<1x2x2x2xi8>
}

// -----

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>

// A grouped (here depthwise) integer convolution has no product form: it
// stays loops.
// CHECK-LABEL: func.func @grouped
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT:     vector.transfer_read
func.func @grouped(%x: tensor<1x3x3x2xi8>, %init: tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32> {
  %w = arith.constant dense<1> : tensor<2x1x2x2xi8>
  %acc = linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, f + c)>, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x3x3x2xi8>, tensor<2x1x2x2xi8>) outs(%init : tensor<1x2x2x2xi32>) {
  ^bb0(%a: i8, %b: i8, %o: i32):
    %a32 = arith.extui %a : i8 to i32
    %b32 = arith.extsi %b : i8 to i32
    %p = arith.muli %a32, %b32 : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x2x2x2xi32>
  return %acc : tensor<1x2x2x2xi32>
}
