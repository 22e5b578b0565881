// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// Unary math ops: one generic each, with the math dialect's function.

// CHECK-LABEL: func.func @functions
// CHECK: math.exp
// CHECK: math.roundeven
// CHECK: math.atanh
// CHECK: math.erf
func.func @functions(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.exp %x : tensor<4xf32>
  %1 = tessel.round %0 : tensor<4xf32>
  %2 = tessel.atanh %1 : tensor<4xf32>
  %3 = tessel.erf %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Half precision computes in f32: libm has no f16 functions.
// CHECK-LABEL: func.func @half
// CHECK: ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK: %[[S:.+]] = math.sin %[[W]] : f32
// CHECK: %[[N:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK: linalg.yield %[[N]] : f16
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tessel.sin %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Integer abs, neg and sign.
// CHECK-LABEL: func.func @integers
// CHECK: math.absi %{{.+}} : i32
// CHECK: arith.subi %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi slt
// CHECK: arith.select
func.func @integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tessel.abs %x : tensor<4xi32>
  %1 = tessel.neg %0 : tensor<4xi32>
  %2 = tessel.sign %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// Classification and boolean negation produce i1.
// CHECK-LABEL: func.func @predicates
// CHECK: arith.cmpf uno, %[[X:.+]], %[[X]] : f32
// CHECK: linalg.generic
// CHECK-NOT: 0xFF800000
// CHECK: arith.cmpf oeq, %{{.+}}, %{{.+}} : f32
// CHECK: linalg.generic
// CHECK: arith.xori %{{.+}}, %{{.+}} : i1
func.func @predicates(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = tessel.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
  %1 = tessel.is_inf %x {detect_negative = false} : (tensor<4xf32>) -> tensor<4xi1>
  %2 = tessel.not %1 : tensor<4xi1>
  return %0, %2 : tensor<4xi1>, tensor<4xi1>
}
