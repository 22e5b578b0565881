// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tessel-split-empty-tensors))' | FileCheck %s --enable-var-scope

// The two loops that CSE left starting from one tensor.empty each start
// from their own, made right before them. An empty with one use is left
// alone.

// CHECK-LABEL: func.func @shared
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<16xf32>
// CHECK-NEXT:    %[[A:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E0]])
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<16xf32>
// CHECK-NEXT:    %[[B:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E1]])
// CHECK-NOT:     tensor.empty
// CHECK:         return %[[A]], %[[B]], %[[E2]]
func.func @shared(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %e = tensor.empty() : tensor<16xf32>
  %one = tensor.empty() : tensor<4xf32>
  %a = scf.for %i = %c0 to %c16 step %c1 iter_args(%t = %e) -> (tensor<16xf32>) {
    %v = tensor.extract %x[%i] : tensor<16xf32>
    %w = tensor.insert %v into %t[%i] : tensor<16xf32>
    scf.yield %w : tensor<16xf32>
  }
  %b = scf.for %i = %c0 to %c16 step %c1 iter_args(%t = %e) -> (tensor<16xf32>) {
    %v = tensor.extract %a[%i] : tensor<16xf32>
    %w = tensor.insert %v into %t[%i] : tensor<16xf32>
    scf.yield %w : tensor<16xf32>
  }
  return %a, %b, %one : tensor<16xf32>, tensor<16xf32>, tensor<4xf32>
}

// -----

// A dynamic empty's clones take its sizes; a use inside a region gets its
// clone inside the region, right before the user.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[N:.*]]: index
// CHECK:         scf.for
// CHECK:           %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:      %{{.*}} = tensor.insert_slice %[[E1]]
// CHECK:         %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    return %[[E0]]
func.func @dynamic(%n: index, %dst: tensor<64xf32>) -> (tensor<?xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %dst) -> (tensor<64xf32>) {
    %s = tensor.insert_slice %e into %t[%i] [%n] [1] : tensor<?xf32> into tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %e, %r : tensor<?xf32>, tensor<64xf32>
}
