// RUN: tessel-opt %s --split-input-file --tessel-approximate-math | FileCheck %s

// f32 vector exp, erf, tanh and log become polynomials (FMAs, selects):
// no math op is left on vectors, so none becomes a libm call per lane.

// CHECK-LABEL: func.func @vectors
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.log
// CHECK:         math.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.log
// CHECK:         return
func.func @vectors(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %e = math.exp %x : vector<16xf32>
  %r = math.erf %x : vector<16xf32>
  %t = math.tanh %x : vector<16xf32>
  %l = math.log %x : vector<16xf32>
  return %e, %r, %t, %l : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// Left alone: scalars (libm keeps them exact), f64 vectors, and the other
// math ops.

// CHECK-LABEL: func.func @left_alone
// CHECK:         math.exp %{{.*}} : f32
// CHECK:         math.erf %{{.*}} : vector<4xf64>
// CHECK:         math.sin %{{.*}} : vector<16xf32>
func.func @left_alone(%s: f32, %d: vector<4xf64>, %x: vector<16xf32>) -> (f32, vector<4xf64>, vector<16xf32>) {
  %e = math.exp %s : f32
  %r = math.erf %d : vector<4xf64>
  %n = math.sin %x : vector<16xf32>
  return %e, %r, %n : f32, vector<4xf64>, vector<16xf32>
}
