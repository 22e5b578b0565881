// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @min_max
// CHECK: arith.minimumf
// CHECK: arith.maxsi
func.func @min_max(%x: tensor<4xf32>, %i: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %0 = tessel.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tessel.max %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1 : tensor<4xf32>, tensor<4xi8>
}

// -----

// Integer mod without fmod follows the divisor's sign: a non-zero remainder
// of the other sign moves by one divisor.
// CHECK-LABEL: func.func @mod
// CHECK: ^bb0(%[[A:.+]]: i32, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[R:.+]] = arith.remsi %[[A]], %[[B]] : i32
// CHECK: %[[MOVED:.+]] = arith.addi %[[R]], %[[B]] : i32
// CHECK: arith.select %{{.+}}, %[[MOVED]], %[[R]] : i32
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK-NEXT: linalg.yield
// CHECK: linalg.generic
// CHECK: arith.remf
// CHECK-NEXT: linalg.yield
func.func @mod(%a: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = tessel.mod %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tessel.mod %a, %a {fmod} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tessel.mod %f, %f {fmod} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Float mod without fmod is floored too: a non-zero remainder of the other
// sign moves by one divisor, a zero one takes the divisor's sign.
// CHECK-LABEL: func.func @mod_float_floored
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[R:.+]] = arith.remf %[[A]], %[[B]] : f32
// CHECK: %[[ZERO:.+]] = arith.cmpf oeq, %[[R]]
// CHECK: %[[RNEG:.+]] = arith.cmpf olt, %[[R]]
// CHECK: %[[BNEG:.+]] = arith.cmpf olt, %[[B]]
// CHECK: %[[DIFF:.+]] = arith.xori %[[RNEG]], %[[BNEG]] : i1
// CHECK: %[[MOVED:.+]] = arith.addf %[[R]], %[[B]] : f32
// CHECK: %[[SZ:.+]] = math.copysign %{{.+}}, %[[B]] : f32
// CHECK: %[[NZ:.+]] = arith.select %[[DIFF]], %[[MOVED]], %[[R]] : f32
// CHECK: arith.select %[[ZERO]], %[[SZ]], %[[NZ]] : f32
func.func @mod_float_floored(%f: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tessel.mod %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A float base takes the exponent in its own type; an integer base computes
// in f64 and truncates.
// CHECK-LABEL: func.func @pow
// CHECK: ^bb0(%[[X:.+]]: f32, %[[E:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[EF:.+]] = arith.sitofp %[[E]] : i64 to f32
// CHECK: math.powf %[[X]], %[[EF]] : f32
// CHECK: ^bb0(%[[I:.+]]: i32, %[[F:.+]]: f32, %{{.+}}: i32):
// CHECK: %[[ID:.+]] = arith.sitofp %[[I]] : i32 to f64
// CHECK: %[[FD:.+]] = arith.extf %[[F]] : f32 to f64
// CHECK: %[[P:.+]] = math.powf %[[ID]], %[[FD]] : f64
// CHECK: arith.fptosi %[[P]] : f64 to i32
func.func @pow(%x: tensor<4xf32>, %e: tensor<i64>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = tessel.pow %x, %e : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %1 = tessel.pow %i, %x : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @prelu
// CHECK: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[NEG:.+]] = arith.cmpf olt, %[[X]]
// CHECK: %[[M:.+]] = arith.mulf %[[S]], %[[X]]
// CHECK: arith.select %[[NEG]], %[[M]], %[[X]]
func.func @prelu(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = tessel.prelu %x, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
