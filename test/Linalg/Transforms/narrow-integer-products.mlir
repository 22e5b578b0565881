// RUN: tessel-opt %s --split-input-file --tessel-narrow-integer-products | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// MatMulInteger as it lowers: a sign extension of the run-time input and an
// i32 constant (the extension of the int8 weights, folded). The product
// reads both as i8 and extends them in its body; the extension is dead.
// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME:    (%[[A:.*]]: tensor<2x8xi8>
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[}}-128, 127, 3, 0], {{.*}}> : tensor<8x4xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[W]] : tensor<2x8xi8>, tensor<8x4xi8>) outs(%{{.*}} : tensor<2x4xi32>)
// CHECK-SAME:      tessel.fusion_group = 1
// CHECK:           %[[X:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           %[[Y:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK:           %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK:           arith.addi %{{.*}}, %[[P]] : i32
// CHECK-NOT:     tensor<2x8xi32>
func.func @matmul_integer(%a: tensor<2x8xi8>, %init: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %e = tensor.empty() : tensor<2x8xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x8xi8>) outs(%e : tensor<2x8xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x8xi32>
  %w = arith.constant dense<[[-128, 127, 3, 0], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12],
                             [-1, -2, -3, -4], [-5, -6, -7, -8], [0, 0, 0, 0], [100, -100, 50, -50]]> : tensor<8x4xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x8xi32>, tensor<8x4xi32>) outs(%init : tensor<2x4xi32>) attrs = {tessel.fusion_group = 1 : i64} {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x4xi32>
  return %c : tensor<2x4xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// A uint8 input extends unsigned in the body.
// CHECK-LABEL: func.func @unsigned_input
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8xi8>, tensor<8x4xi8>)
// CHECK:           arith.extui %{{.*}} : i8 to i32
// CHECK:           arith.extsi %{{.*}} : i8 to i32
func.func @unsigned_input(%a: tensor<2x8xi8>, %b: tensor<8x4xi8>, %init: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %e = tensor.empty() : tensor<2x8xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x8xi8>) outs(%e : tensor<2x8xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extui %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x8xi32>
  %f = tensor.empty() : tensor<8x4xi32>
  %b32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8x4xi8>) outs(%f : tensor<8x4xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<8x4xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %b32 : tensor<2x8xi32>, tensor<8x4xi32>) outs(%init : tensor<2x4xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x4xi32>
  return %c : tensor<2x4xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// Not narrowed: a constant with a value outside i8 (200), and an input that
// is a difference (a zero point subtracted), not an extension.
// CHECK-LABEL: func.func @wide_constant
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<2x2xi32>, tensor<2x2xi32>)
// CHECK-LABEL: func.func @centered_input
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<2x2xi32>, tensor<2x2xi32>)
func.func @wide_constant(%a: tensor<2x2xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x2xi8>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x2xi32>
  %w = arith.constant dense<[[200, 1], [2, 3]]> : tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}
func.func @centered_input(%a: tensor<2x2xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x2xi8>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    %zp = arith.constant 3 : i32
    %d = arith.subi %v, %zp : i32
    linalg.yield %d : i32
  } -> tensor<2x2xi32>
  %w = arith.constant dense<[[1, 1], [2, 3]]> : tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#row = affine_map<(d0, d1) -> (d1)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// MatMulInteger with a_zero_point 5 on uint8 activations: (a - 5) . w =
// a . w - 5 * sum(w) per column. The columns' sums (1 + 3 = 4, 2 - 4 = -2)
// times 5 come off the initial value once, in a generic of the product's
// group (its kernel's prologue); the product reads a narrow and extends
// it unsigned.
// CHECK-LABEL: func.func @zero_point
// CHECK:         %[[CORR:.*]] = arith.constant dense<[20, -10]> : tensor<2xi32>
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[CORR]] : tensor<2x2xi32>, tensor<2xi32>)
// CHECK-SAME:      tessel.fusion_group = 7
// CHECK:           arith.subi
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x2xi8>, tensor<2x2xi8>) outs(%[[INIT]] : tensor<2x2xi32>)
// CHECK:           arith.extui
// CHECK-NOT:       arith.subi
// CHECK:           arith.muli
// A zero point on the right-hand side does not fold (it would need the
// left-hand side's run-time row sums).
// CHECK-LABEL: func.func @rhs_zero_point
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<2x2xi32>, tensor<2x2xi32>)
func.func @zero_point(%a: tensor<2x2xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %zp = arith.constant dense<5> : tensor<i32>
  %a32 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %zp : tensor<2x2xi8>, tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extui %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<2x2xi32>
  %w = arith.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) attrs = {tessel.fusion_group = 7 : i64} {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}
func.func @rhs_zero_point(%a: tensor<2x2xi8>, %b: tensor<2x2xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %a32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x2xi8>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x2xi32>
  %zp = arith.constant dense<3> : tensor<i32>
  %b32 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %zp : tensor<2x2xi8>, tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extsi %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %b32 : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// Splat weights stay a splat; the zero point's correction is 3 * 2 * 4.
// CHECK-LABEL: func.func @splat_weights
// CHECK-DAG:     arith.constant dense<24> : tensor<2xi32>
// CHECK-DAG:     arith.constant dense<2> : tensor<4x2xi8>
func.func @splat_weights(%a: tensor<2x4xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x4xi32>
  %zp = arith.constant dense<3> : tensor<i32>
  %a32 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %zp : tensor<2x4xi8>, tensor<i32>) outs(%e : tensor<2x4xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extsi %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<2x4xi32>
  %w = arith.constant dense<2> : tensor<4x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x4xi32>, tensor<4x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

// Constant i8 weights sign-extended by a generic (a QDQ model's, whose
// conversion was not folded) are read as the constant: the left-hand
// side's zero point folds into their column sums, (1 + 3) * 5 and
// (2 - 4) * 5.
// CHECK-LABEL: func.func @extended_weights
// CHECK-DAG:     %[[W:.*]] = arith.constant dense<{{\[\[}}1, 2], [3, -4]]> : tensor<2x2xi8>
// CHECK-DAG:     arith.constant dense<[20, -10]> : tensor<2xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<2x2xi8>, tensor<2x2xi8>)
// CHECK:           arith.extui
// CHECK:           arith.extsi
func.func @extended_weights(%a: tensor<2x2xi8>, %init: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %zp = arith.constant dense<5> : tensor<i32>
  %a32 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %zp : tensor<2x2xi8>, tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extui %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<2x2xi32>
  %w8 = arith.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w8 : tensor<2x2xi8>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %o: i32):
    %v = arith.extsi %x : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scalar3 = affine_map<(d0, d1, d2) -> ()>
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (k, n)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>

// A product with a batch dimension on the left (a transformer's [batch,
// sequence, features] activations times a weight matrix): the zero point's
// correction is per column too, broadcast over batches and rows.
// CHECK-LABEL: func.func @batched_zero_point
// CHECK:         %[[CORR:.*]] = arith.constant dense<[20, -10]> : tensor<2xi32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[COLUMN:.*]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[CORR]] : tensor<3x2x2xi32>, tensor<2xi32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x2x2xi8>, tensor<2x2xi8>) outs(%[[INIT]] : tensor<3x2x2xi32>)
func.func @batched_zero_point(%a: tensor<3x2x2xi8>, %init: tensor<3x2x2xi32>) -> tensor<3x2x2xi32> {
  %e = tensor.empty() : tensor<3x2x2xi32>
  %zp = arith.constant dense<5> : tensor<i32>
  %a32 = linalg.generic {indexing_maps = [#id3, #scalar3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %zp : tensor<3x2x2xi8>, tensor<i32>) outs(%e : tensor<3x2x2xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extui %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<3x2x2xi32>
  %w = arith.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<3x2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<3x2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<3x2x2xi32>
  return %c : tensor<3x2x2xi32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// A product that starts from zeros (a fill): the corrected initial value
// reads the correction only, 0 - 5 * colsum, with no pass over the zeros.
// CHECK-LABEL: func.func @filled_init
// CHECK:         %[[CORR:.*]] = arith.constant dense<[20, -10]> : tensor<2xi32>
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[CORR]] : tensor<2xi32>)
// CHECK:           %[[D:.*]] = arith.subi %c0_i32, %{{.*}} : i32
// CHECK:         linalg.generic {{.*}} outs(%[[INIT]] : tensor<2x2xi32>)
func.func @filled_init(%a: tensor<2x2xi8>) -> tensor<2x2xi32> {
  %e = tensor.empty() : tensor<2x2xi32>
  %zero = arith.constant 0 : i32
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  %zp = arith.constant dense<5> : tensor<i32>
  %a32 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %zp : tensor<2x2xi8>, tensor<i32>) outs(%e : tensor<2x2xi32>) {
  ^bb0(%x: i8, %z: i32, %o: i32):
    %v = arith.extui %x : i8 to i32
    %d = arith.subi %v, %z : i32
    linalg.yield %d : i32
  } -> tensor<2x2xi32>
  %w = arith.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a32, %w : tensor<2x2xi32>, tensor<2x2xi32>) outs(%init : tensor<2x2xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<2x2xi32>
  return %c : tensor<2x2xi32>
}

// -----

#nhwc_in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#nhwc_out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar4 = affine_map<(d0, d1, d2, d3) -> ()>

// A convolution of 8-bit values centred by a zero point (QLinearConv, or a
// QDQ convolution on integers), its input padded with 0: it reads the u8
// input padded with the zero point instead (which centres to 0 as before)
// and the weights as i8; zp times each filter's weight sum (5 * 2 * 4 = 40
// and 5 * -1 * 4 = -20) comes off its zero initial value.
// CHECK-LABEL: func.func @convolution_zero_point
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x3x2xi8>
// CHECK-DAG:     %[[ZP:.*]] = arith.constant 5 : i8
// CHECK-DAG:     %[[SUMS:.*]] = arith.constant dense<[40, -20]> : tensor<2xi32>
// CHECK:         %[[PAD:.*]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:           tensor.yield %[[ZP]] : i8
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[SUMS]] : tensor<2xi32>)
// CHECK:           arith.subi %c0_i32, %{{.*}} : i32
// CHECK:         linalg.generic {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x5x5x2xi8>, tensor<2x2x2x2xi8>) outs(%[[INIT]] : tensor<1x4x4x2xi32>)
// CHECK-SAME:      tessel.fusion_group = 3
// CHECK:           arith.extui %{{.*}} : i8 to i32
// CHECK:           arith.extsi %{{.*}} : i8 to i32
// CHECK-NOT:     tensor<1x5x5x2xi32>
func.func @convolution_zero_point(%x: tensor<1x3x3x2xi8>) -> tensor<1x4x4x2xi32> {
  %c0 = arith.constant 0 : i32
  %zp = arith.constant dense<5> : tensor<i32>
  %e = tensor.empty() : tensor<1x3x3x2xi32>
  %centred = linalg.generic {indexing_maps = [#id4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %zp : tensor<1x3x3x2xi8>, tensor<i32>) outs(%e : tensor<1x3x3x2xi32>) {
  ^bb0(%v: i8, %z: i32, %o: i32):
    %w = arith.extui %v : i8 to i32
    %s = arith.subi %w, %z : i32
    linalg.yield %s : i32
  } -> tensor<1x3x3x2xi32>
  %padded = tensor.pad %centred low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c0 : i32
  } : tensor<1x3x3x2xi32> to tensor<1x5x5x2xi32>
  %w = arith.constant dense<[[[[1, 1], [1, 1]], [[1, 1], [1, 1]]], [[[-1, 0], [0, 0]], [[-1, 0], [-1, -1]]]]> : tensor<2x2x2x2xi32>
  %oe = tensor.empty() : tensor<1x4x4x2xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%oe : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %y = linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x5x5x2xi32>, tensor<2x2x2x2xi32>) outs(%init : tensor<1x4x4x2xi32>) attrs = {tessel.fusion_group = 3 : i64} {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %p = arith.muli %a, %b : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x4x4x2xi32>
  return %y : tensor<1x4x4x2xi32>
}

// -----

#conv_in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#conv_w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#conv_out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A padding other than 0 is not the centred input's: left alone.
// CHECK-LABEL: func.func @convolution_padded_nonzero
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x4x4xi32>, tensor<1x1x2x2xi32>)
func.func @convolution_padded_nonzero(%x: tensor<1x1x2x2xi8>) -> tensor<1x1x3x3xi32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<1x1x2x2xi32>
  %wide = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x1x2x2xi8>) outs(%e : tensor<1x1x2x2xi32>) {
  ^bb0(%v: i8, %o: i32):
    %w = arith.extsi %v : i8 to i32
    linalg.yield %w : i32
  } -> tensor<1x1x2x2xi32>
  %padded = tensor.pad %wide low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c1 : i32
  } : tensor<1x1x2x2xi32> to tensor<1x1x4x4xi32>
  %w = arith.constant dense<1> : tensor<1x1x2x2xi32>
  %oe = tensor.empty() : tensor<1x1x3x3xi32>
  %init = linalg.fill ins(%c0 : i32) outs(%oe : tensor<1x1x3x3xi32>) -> tensor<1x1x3x3xi32>
  %y = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%padded, %w : tensor<1x1x4x4xi32>, tensor<1x1x2x2xi32>) outs(%init : tensor<1x1x3x3xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %p = arith.muli %a, %b : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x1x3x3xi32>
  return %y : tensor<1x1x3x3xi32>
}
