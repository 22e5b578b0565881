// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// A reduction is one generic with the reduced axes as reduction iterators,
// writing the input shape without them; keepdims expands them back.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$DROP:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @sum_keepdims
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$DROP]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.+]] = tensor.expand_shape %[[SUM]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK: return %[[R]]
func.func @sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = tessel.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// reduce_l2 squares inside the reduction and takes the sqrt after it.

// CHECK-LABEL: func.func @l2
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[P:.+]] = arith.mulf %[[IN:.+]], %[[IN]] : f32
// CHECK: arith.addf %[[P]]
// CHECK: linalg.generic {{.*}} ins(%[[SQ]] : tensor<2xf32>)
// CHECK: math.sqrt
func.func @l2(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = tessel.reduce_l2 %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integers reduce with signed ops from the smallest signed value.

// CHECK-LABEL: func.func @max_int
// CHECK: %[[MIN:.+]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.maxsi
func.func @max_int(%x: tensor<2x3xi32>) -> tensor<i32> {
  %0 = tessel.reduce_max %x {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// log_sum_exp subtracts the (finite) maximum before exp and adds it back.

// CHECK-LABEL: func.func @log_sum_exp
// CHECK: arith.maximumf
// CHECK: %[[SHIFT:.+]] = linalg.generic
// CHECK: arith.select
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[SHIFT]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[SHIFT]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: math.log
// CHECK: arith.addf
func.func @log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = tessel.reduce_log_sum_exp %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// arg_max carries the best value and its index; select_last_index makes
// ties win (oge instead of ogt).

// CHECK-LABEL: func.func @arg_max_last
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<2x3xf32>) outs(%{{.+}}, %{{.+}} : tensor<2xf32>, tensor<2xi64>)
// CHECK: %[[BETTER:.+]] = arith.cmpf oge
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.select %[[BETTER]], %[[I64]]
// CHECK: tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
func.func @arg_max_last(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %0 = tessel.arg_max %x {axis = 1 : i64, select_last_index = true} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// CHECK-LABEL: func.func @arg_min_first
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.cmpf olt
func.func @arg_min_first(%x: tensor<2x3xf32>) -> tensor<3xi64> {
  %0 = tessel.arg_min %x {axis = 0 : i64, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// f16 and bf16 sums run in f32 (each element extended as it is read),
// rounded once; max and min stay in the input's type (exact).
// CHECK-LABEL: func.func @sum_f16
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<4x8xf16>) outs(%{{.+}} : tensor<4xf32>)
// CHECK:   %[[E:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   arith.addf %[[E]], %{{.+}} : f32
// CHECK: linalg.generic {{.+}} ins(%[[SUM]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
// CHECK-LABEL: func.func @max_f16
// CHECK-NOT: extf
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : f16
func.func @sum_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %0 = tessel.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
func.func @max_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %0 = tessel.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
