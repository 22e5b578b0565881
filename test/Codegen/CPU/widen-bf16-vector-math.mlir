// RUN: tessel-opt %s --split-input-file --tessel-widen-bf16-vector-math | FileCheck %s --enable-var-scope

// A sum of bf16 lanes and its accumulator: extended, summed in f32 (the
// fast-math flags kept), rounded once.
// CHECK-LABEL: func.func @sum
// CHECK-SAME:    (%[[V:.+]]: vector<8xbf16>, %[[ACC:.+]]: bf16)
// CHECK:         %[[A:.+]] = arith.extf %[[ACC]] : bf16 to f32
// CHECK:         %[[W:.+]] = arith.extf %[[V]] : vector<8xbf16> to vector<8xf32>
// CHECK:         %[[R:.+]] = vector.reduction <add>, %[[W]], %[[A]] fastmath<reassoc> : vector<8xf32> into f32
// CHECK:         %[[S:.+]] = arith.truncf %[[R]] : f32 to bf16
// CHECK:         return %[[S]] : bf16
func.func @sum(%v: vector<8xbf16>, %acc: bf16) -> bf16 {
  %0 = vector.reduction <add>, %v, %acc fastmath<reassoc> : vector<8xbf16> into bf16
  return %0 : bf16
}

// -----

// Without an accumulator, and another kind.
// CHECK-LABEL: func.func @largest
// CHECK:         %[[W:.+]] = arith.extf %{{.+}} : vector<16xbf16> to vector<16xf32>
// CHECK:         %[[R:.+]] = vector.reduction <maxnumf>, %[[W]] : vector<16xf32> into f32
// CHECK:         arith.truncf %[[R]] : f32 to bf16
func.func @largest(%v: vector<16xbf16>) -> bf16 {
  %0 = vector.reduction <maxnumf>, %v : vector<16xbf16> into bf16
  return %0 : bf16
}

// -----

// A bf16 FMA: in f32, rounded once.
// CHECK-LABEL: func.func @fma
// CHECK-COUNT-3: arith.extf %{{.+}} : vector<8xbf16> to vector<8xf32>
// CHECK:         %[[R:.+]] = vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK:         arith.truncf %[[R]] : vector<8xf32> to vector<8xbf16>
func.func @fma(%a: vector<8xbf16>, %b: vector<8xbf16>, %c: vector<8xbf16>) -> vector<8xbf16> {
  %0 = vector.fma %a, %b, %c : vector<8xbf16>
  return %0 : vector<8xbf16>
}

// -----

// f32 and f16 are left alone (x86 has f32 arithmetic; f16 converts with
// F16C instructions).
// CHECK-LABEL: func.func @others
// CHECK-NOT:     arith.extf
// CHECK:         vector.reduction <add>, %{{.+}} : vector<8xf32> into f32
// CHECK:         vector.reduction <add>, %{{.+}} : vector<8xf16> into f16
// CHECK:         vector.fma %{{.+}} : vector<8xf32>
func.func @others(%a: vector<8xf32>, %h: vector<8xf16>) -> (f32, f16, vector<8xf32>) {
  %0 = vector.reduction <add>, %a : vector<8xf32> into f32
  %1 = vector.reduction <add>, %h : vector<8xf16> into f16
  %2 = vector.fma %a, %a, %a : vector<8xf32>
  return %0, %1, %2 : f32, f16, vector<8xf32>
}
