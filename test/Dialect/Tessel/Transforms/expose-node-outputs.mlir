// RUN: tessel-opt %s --split-input-file --tessel-expose-node-outputs | FileCheck %s

// Each node's output is returned too, in program order, after the model's
// own results: a folded conv + batch norm stands for the batch norm (the
// last of its nodes), the product and the casts around it for their node
// (the last cast), the value already returned is not returned twice,
// integers and constants are left out.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    -> (tensor<1x2x3x3xf32> {tessel.name = "y"}, tensor<1x2x3x3xf32> {tessel.name = "debug:conv1+bn1"}, tensor<1x2x3x3xf32> {tessel.name = "debug:relu1"}, tensor<1x2x3x3xf32> {tessel.name = "debug:mm"})
// CHECK:         %[[CONV:.*]] = tessel.conv
// CHECK:         %[[RELU:.*]] = tessel.relu %[[CONV]]
// CHECK:         %[[UP:.*]] = tessel.cast %{{.*}} to f32
// CHECK:         %[[Y:.*]] = tessel.add
// CHECK:         return %[[Y]], %[[CONV]], %[[RELU]], %[[UP]] :
#conv1 = loc(fused<"Conv">["conv1"])
#bn1 = loc(fused<"BatchNormalization">["bn1"])
#relu1 = loc(fused<"Relu">["relu1"])
#toint = loc(fused<"Cast">["toint"])
#mm = loc(fused<"Neg">["mm"])
#out = loc(fused<"Add">["out"])
func.func @main(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32> {tessel.name = "y"}) attributes {tessel.entry} {
  %w = tessel.constant dense<1.0> : tensor<2x2x1x1xf32> loc("w")
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> loc(fused[#conv1, #bn1])
  %r = tessel.relu %c : tensor<1x2x3x3xf32> loc(#relu1)
  %i = tessel.cast %r to i32 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xi32> loc(#toint)
  %b = tessel.cast %r to bf16 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xbf16> loc(#mm)
  %n = tessel.neg %b : tensor<1x2x3x3xbf16> loc(#mm)
  %u = tessel.cast %n to f32 : tensor<1x2x3x3xbf16> -> tensor<1x2x3x3xf32> loc(#mm)
  %y = tessel.add %u, %r : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> loc(#out)
  return %y : tensor<1x2x3x3xf32>
}

// -----

// A function that is not the entry is left alone.
// CHECK-LABEL: func.func @helper
// CHECK-SAME:    -> tensor<4xf32>
// CHECK:         return %{{.*}} : tensor<4xf32>
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tessel.relu %x : tensor<4xf32> loc(fused<"Relu">["r"])
  %y = tessel.neg %r : tensor<4xf32> loc(fused<"Neg">["n"])
  return %y : tensor<4xf32>
}

// -----

// A QDQ model's DequantizeLinear (and QuantizeLinear) are plumbing between
// layers: not returned.
// CHECK-LABEL: func.func @qdq
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xf32> {tessel.name = "debug:r"})
func.func @qdq(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
  %d = tessel.neg %x : tensor<4xf32> loc(fused<"DequantizeLinear">["dq"])
  %r = tessel.relu %d : tensor<4xf32> loc(fused<"Relu">["r"])
  %y = tessel.neg %r : tensor<4xf32> loc(fused<"Neg">["n"])
  return %y : tensor<4xf32>
}
