// RUN: tessel-opt %s --tessel-convert-tessel-to-linalg --split-input-file | FileCheck %s

// log_softmax: max, sum(exp(x - max)), then x - max - log(sum) with both
// read broadcast along the axis.

// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: math.exp
// CHECK: %[[KM:.+]] = tensor.expand_shape %[[MAX]]
// CHECK: %[[KS:.+]] = tensor.expand_shape %[[SUM]]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[KM]], %[[KS]] : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK: %[[D:.+]] = arith.subf
// CHECK: %[[L:.+]] = math.log
// CHECK: arith.subf %[[D]], %[[L]]
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.log_softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// hardmax: an arg-max (first index wins: ogt) along the axis, then 1.0 where
// the index along the axis equals it.

// CHECK-LABEL: func.func @hardmax
// CHECK: %[[ARG:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.cmpf ogt
// CHECK: %[[K:.+]] = tensor.expand_shape %[[ARG]]#1 {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
// CHECK: linalg.generic {{.*}} ins(%[[K]] : tensor<1x3xi64>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[I64]]
// CHECK: arith.select %[[HIT]]
func.func @hardmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tessel.hardmax %x {axis = 0 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
