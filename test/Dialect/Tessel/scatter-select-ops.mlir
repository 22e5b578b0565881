// RUN: tessel-opt %s | tessel-opt | FileCheck %s

// Round trip of the scan, selection, one-hot, gather-nd and scatter ops.

// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>,
               %n: tensor<1x1xi64>, %nu: tensor<1x3xf32>, %v: tensor<2xf32>,
               %a: tensor<i64>) {
  // CHECK: tessel.cumsum %{{.*}}, %{{.*}} {exclusive} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %0 = tessel.cumsum %x, %a {exclusive} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  // CHECK: tessel.top_k {{.*}} -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %1:2 = tessel.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  // CHECK: tessel.gather_nd {{.*}} -> tensor<1x3xf32>
  %2 = tessel.gather_nd %x, %n : (tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<1x3xf32>
  // CHECK: tessel.scatter_elements {{.*}}reduction = #tessel.scatter_reduction<mul>{{.*}} -> tensor<2x3xf32>
  %3 = tessel.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tessel.scatter_reduction<mul>} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.scatter_nd {{.*}} -> tensor<2x3xf32>
  %4 = tessel.scatter_nd %x, %n, %nu : (tensor<2x3xf32>, tensor<1x1xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK: tessel.one_hot {{.*}} -> tensor<2x2x4xf32>
  %5 = tessel.one_hot %i, %v {axis = 2 : i64, depth = 4 : i64} : (tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x2x4xf32>
  return
}
