// RUN: tessel-opt %s | tessel-opt | FileCheck %s

// tessel.fused prints and parses back.
// CHECK-LABEL: func.func @round_trip
// CHECK:         %[[Y:.*]]:2 = tessel.fused "elementwise" -> tensor<4xf32>, tensor<4xf32> {
// CHECK-NEXT:      %[[A:.*]] = tessel.relu %arg0 : tensor<4xf32>
// CHECK-NEXT:      %[[B:.*]] = tessel.neg %[[A]] : tensor<4xf32>
// CHECK-NEXT:      tessel.yield %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]#0, %[[Y]]#1
func.func @round_trip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = tessel.fused "elementwise" -> tensor<4xf32>, tensor<4xf32> {
    %a = tessel.relu %x : tensor<4xf32>
    %b = tessel.neg %a : tensor<4xf32>
    tessel.yield %a, %b : tensor<4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}
