// RUN: tessel-opt %s --split-input-file --tessel-quantize-by-reciprocal | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-quantize-by-reciprocal=fma=false | FileCheck %s --check-prefix=NOFMA

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#column = affine_map<(d0, d1) -> (d1)>

// QuantizeLinear with one scale: the division becomes a multiplication by
// RN(1/0.1) and the FMA correction; the reciprocal is a new input with the
// scale's map, after the other inputs.
// CHECK-LABEL: func.func @per_tensor
// CHECK-DAG: %[[S:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<1.000000e+01> : tensor<f32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#{{.*}}, #[[SCALAR:map[0-9]*]], #[[SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %[[S]], %[[R]] : tensor<4x16xf32>, tensor<f32>, tensor<f32>)
// CHECK-SAME: {tessel.fusion_group = 3 : i64}
// CHECK: ^bb0(%[[X:.*]]: f32, %[[SA:.*]]: f32, %[[RA:.*]]: f32, %{{.*}}: i8):
// CHECK-NOT: arith.divf
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[RA]] : f32
// CHECK: %[[NY:.*]] = arith.negf %[[Y]] : f32
// CHECK: %[[E:.*]] = math.fma %[[NY]], %[[SA]], %[[X]] : f32
// CHECK: %[[Q:.*]] = math.fma %[[E]], %[[RA]], %[[Y]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[Q]], %[[Q]] : f32
// CHECK: %[[SEL:.*]] = arith.select %[[NAN]], %[[Y]], %[[Q]] : f32
// CHECK: math.roundeven %[[SEL]] : f32
// NOFMA-LABEL: func.func @per_tensor
// NOFMA: arith.divf
// NOFMA-NOT: math.fma
func.func @per_tensor(%x: tensor<4x16xf32>) -> tensor<4x16xi8> {
  %s = arith.constant dense<0.1> : tensor<f32>
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %e = tensor.empty() : tensor<4x16xi8>
  %q = linalg.generic {indexing_maps = [#id, #scalar, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x16xf32>, tensor<f32>) outs(%e : tensor<4x16xi8>)
      attrs = {tessel.fusion_group = 3 : i64} {
  ^bb0(%in: f32, %scale: f32, %out: i8):
    %d = arith.divf %in, %scale : f32
    %r = math.roundeven %d : f32
    %c = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c, %hi : f32
    %i = arith.fptoui %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<4x16xi8>
  return %q : tensor<4x16xi8>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#column = affine_map<(d0, d1) -> (d1)>

// One scale per column: the reciprocals are per column too (RN(1/4) = 0.25,
// RN(1/3) = 0.333333343).
// CHECK-LABEL: func.func @per_axis
// CHECK-DAG: arith.constant dense<[2.500000e-01, 0.333333343]> : tensor<2xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#{{.*}}, #[[COL:map[0-9]*]], #[[COL]], #{{.*}}]
// CHECK: math.fma
// CHECK: math.roundeven
func.func @per_axis(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %s = arith.constant dense<[4.0, 3.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<8x2xf32>
  %q = linalg.generic {indexing_maps = [#id, #column, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<8x2xf32>, tensor<2xf32>) outs(%e : tensor<8x2xf32>) {
  ^bb0(%in: f32, %scale: f32, %out: f32):
    %d = arith.divf %in, %scale : f32
    %r = math.roundeven %d : f32
    linalg.yield %r : f32
  } -> tensor<8x2xf32>
  return %q : tensor<8x2xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// Left as divisions: a quotient that is not only rounded (a model's own
// Div: the correction is exact only up to the last bit of quotients under
// 2^-100), a divisor that is not a constant, and constant divisors out of
// [2^-64, 2^64] or not finite.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: math.fma
// CHECK-COUNT-4: arith.divf
// CHECK-NOT: math.fma
// CHECK: return
func.func @kept(%x: tensor<16xf32>, %t: tensor<f32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %s = arith.constant dense<0.1> : tensor<f32>
  %tiny = arith.constant dense<1.0e-30> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id],
                       iterator_types = ["parallel"]}
      ins(%x, %s : tensor<16xf32>, tensor<f32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %scale: f32, %out: f32):
    %d = arith.divf %in, %scale : f32
    %r = math.roundeven %d : f32
    %sum = arith.addf %r, %d : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #scalar, #id],
                       iterator_types = ["parallel"]}
      ins(%x, %t, %tiny, %zero : tensor<16xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %u: f32, %v: f32, %w: f32, %out: f32):
    %d1 = arith.divf %in, %u : f32
    %r1 = math.roundeven %d1 : f32
    %d2 = arith.divf %r1, %v : f32
    %r2 = math.roundeven %d2 : f32
    %d3 = arith.divf %r2, %w : f32
    %r3 = math.roundeven %d3 : f32
    linalg.yield %r3 : f32
  } -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}
