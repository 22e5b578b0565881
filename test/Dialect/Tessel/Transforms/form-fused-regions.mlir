// RUN: tessel-opt %s --split-input-file --tessel-form-fused-regions | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-form-fused-regions --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Conv + bias add + residual add + relu: one region, at the relu, yielding
// what the function returns.
// CHECK-LABEL: func.func @conv_residual_relu
// CHECK:         %[[Y:.*]] = tessel.fused "conv" -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:      %[[C:.*]] = tessel.conv %arg0
// CHECK-NEXT:      %[[B:.*]] = tessel.add %[[C]], %{{.*}}
// CHECK-NEXT:      %[[S:.*]] = tessel.add %[[B]], %arg0
// CHECK-NEXT:      %[[R:.*]] = tessel.relu %[[S]]
// CHECK-NEXT:      tessel.yield %[[R]] : tensor<1x2x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
// LOC-LABEL: func.func @conv_residual_relu
// LOC:         tessel.conv {{.*}} loc(#[[CONV:loc[0-9]+]])
// LOC:         tessel.relu {{.*}} loc(#[[RELU:loc[0-9]+]])
// LOC:         } loc(#[[REGION:loc[0-9]+]])
// LOC-DAG:   #[[CONV]] = loc("conv1")
// LOC-DAG:   #[[RELU]] = loc("relu1")
// LOC-DAG:   #[[REGION]] = loc(fused[#[[CONV]], #{{.*}}, #{{.*}}, #[[RELU]]])
func.func @conv_residual_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %b = tessel.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> loc("conv1")
  %cb = tessel.add %c, %b : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("bias1")
  %s = tessel.add %cb, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("residual1")
  %r = tessel.relu %s : tensor<1x2x4x4xf32> loc("relu1")
  return %r : tensor<1x2x4x4xf32>
}

// -----

// The conv's result is used twice (a shared producer): it stays a kernel of
// its own, and the relu, alone, needs no region.
// CHECK-LABEL: func.func @shared_producer
// CHECK-NOT:     tessel.fused
// CHECK:         tessel.conv
// CHECK:         tessel.relu
func.func @shared_producer(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = tessel.relu %c : tensor<1x2x4x4xf32>
  return %c, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Conv + SiLU (x * sigmoid(x), EfficientNet's activation after a folded
// BatchNorm): the conv's result is read twice, by the Sigmoid and by the
// Mul, both in one elementwise chain, which the conv joins as its epilogue.
// EfficientNet-B1 0.97x, ConvNeXt-tiny 0.98x, MobileNetV3-large 0.97x their
// time with it as a kernel of its own (Xeon EMR, 1 thread).
// CHECK-LABEL: func.func @conv_silu
// CHECK:         %[[Y:.*]] = tessel.fused "conv" -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:      %[[C:.*]] = tessel.conv %arg0
// CHECK-NEXT:      %[[S:.*]] = tessel.sigmoid %[[C]]
// CHECK-NEXT:      %[[M:.*]] = tessel.mul %[[C]], %[[S]]
// CHECK-NEXT:      tessel.yield %[[M]] : tensor<1x2x4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @conv_silu(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = tessel.sigmoid %c : tensor<1x2x4x4xf32>
  %m = tessel.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %m : tensor<1x2x4x4xf32>
}

// -----

// The conv's result is read by a SiLU and by the function's result: it stays
// a kernel of its own.
// CHECK-LABEL: func.func @conv_silu_escaping
// CHECK:         tessel.conv
// CHECK-NEXT:    tessel.fused "elementwise"
func.func @conv_silu_escaping(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = tessel.sigmoid %c : tensor<1x2x4x4xf32>
  %m = tessel.mul %c, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Two convs feed one residual add: the first in program order takes it as
// its epilogue, the second runs alone.
// CHECK-LABEL: func.func @two_anchors
// CHECK:         %[[B:.*]] = tessel.conv %arg1
// CHECK-NEXT:    tessel.fused "conv"
// CHECK-NEXT:      tessel.conv %arg0
// CHECK-NEXT:      tessel.add %{{.*}}, %[[B]]
// CHECK-NEXT:      tessel.relu
// CHECK-NEXT:      tessel.yield
func.func @two_anchors(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %a = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = tessel.conv %y, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = tessel.add %a, %b : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = tessel.relu %s : tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// MatMul + bias + GELU in the Erf form, 0.5 * x * (1 + erf(x / sqrt 2)):
// the bias add's result is read twice, both times in the group.
// CHECK-LABEL: func.func @product_gelu
// CHECK:         %[[Y:.*]] = tessel.fused "product" -> tensor<4x16xf32> {
// CHECK-NEXT:      tessel.matmul
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.div
// CHECK-NEXT:      tessel.erf
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.mul
// CHECK-NEXT:      %[[R:.*]] = tessel.mul
// CHECK-NEXT:      tessel.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @product_gelu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %sqrt2 = tessel.constant dense<1.41421354> : tensor<f32>
  %one = tessel.constant dense<1.0> : tensor<f32>
  %half = tessel.constant dense<0.5> : tensor<f32>
  %p = tessel.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %h = tessel.add %p, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %d = tessel.div %h, %sqrt2 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %e = tessel.erf %d : tensor<4x16xf32>
  %e1 = tessel.add %e, %one : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %m = tessel.mul %h, %e1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = tessel.mul %m, %half : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// -----

// A producer read broadcast (its 1x8 result by a 4x8 add) would be computed
// again for every row: it is not fused.
// CHECK-LABEL: func.func @broadcast_producer
// CHECK-NOT:     tessel.fused
// CHECK:         tessel.sigmoid
// CHECK:         tessel.add
func.func @broadcast_producer(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %s = tessel.sigmoid %y : tensor<1x8xf32>
  %a = tessel.add %x, %s : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// An elementwise op whose result is also returned ends the chain: the chain
// above it is a group without it.
// CHECK-LABEL: func.func @escaping_member
// CHECK:         %[[T:.*]] = tessel.tanh %arg0
// CHECK:         %[[Y:.*]] = tessel.fused "elementwise" -> tensor<8xf32> {
// CHECK-NEXT:      tessel.exp %[[T]]
// CHECK-NEXT:      tessel.neg
// CHECK-NEXT:      tessel.yield
// CHECK:         return %[[T]], %[[Y]]
func.func @escaping_member(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = tessel.tanh %x : tensor<8xf32>
  %e = tessel.exp %t : tensor<8xf32>
  %n = tessel.neg %e : tensor<8xf32>
  return %t, %n : tensor<8xf32>, tensor<8xf32>
}

// -----

// The attention pattern over two heads: the transposes that bring the heads
// to the front, the scores product, the scale, the mask add, the softmax,
// the value product and the transpose back make one region; the reshape
// after it does not.
// CHECK-LABEL: func.func @attention
// CHECK:         %[[A:.*]] = tessel.fused "attention" -> tensor<1x4x2x8xf32> {
// CHECK-NEXT:      tessel.transpose %arg0
// CHECK-NEXT:      tessel.transpose %arg1
// CHECK-NEXT:      tessel.transpose %arg2
// CHECK-NEXT:      tessel.matmul
// CHECK-NEXT:      tessel.mul
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.softmax
// CHECK-NEXT:      tessel.matmul
// CHECK-NEXT:      %[[T:.*]] = tessel.transpose
// CHECK-NEXT:      tessel.yield %[[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tessel.reshape %[[A]]
func.func @attention(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>, %mask: tensor<1x1x1x4xf32>) -> tensor<1x4x16xf32> {
  %scale = tessel.constant dense<0.353553385> : tensor<f32>
  %qt = tessel.transpose %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %kt = tessel.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x8x4xf32>
  %vt = tessel.transpose %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %s = tessel.matmul %qt, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %ss = tessel.mul %s, %scale : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %sm = tessel.add %ss, %mask : (tensor<1x2x4x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tessel.softmax %sm {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %o = tessel.matmul %p, %vt : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %ot = tessel.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  %r = tessel.reshape %ot {shape = array<i64: 1, 4, 16>} : (tensor<1x4x2x8xf32>) -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// One head is a plain product, softmax and product: no attention region;
// the scale is the scores product's epilogue.
// CHECK-LABEL: func.func @one_head
// CHECK-NOT:     "attention"
// CHECK:         tessel.fused "product"
// CHECK-NEXT:      tessel.matmul
// CHECK-NEXT:      tessel.mul
// CHECK-NEXT:      tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tessel.softmax
// CHECK-NEXT:    tessel.matmul
func.func @one_head(%q: tensor<4x8xf32>, %k: tensor<8x4xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %scale = tessel.constant dense<0.353553385> : tensor<f32>
  %s = tessel.matmul %q, %k : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %ss = tessel.mul %s, %scale : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %p = tessel.softmax %ss {axis = 1 : i64} : tensor<4x4xf32>
  %o = tessel.matmul %p, %v : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// LayerNorm as opset < 17 exporters write it: ReduceMean, Sub, Pow, ReduceMean,
// Add epsilon, Sqrt, Div, then scale and shift. One row group.
// CHECK-LABEL: func.func @decomposed_layer_norm
// CHECK:         %[[Y:.*]] = tessel.fused "rows" -> tensor<4x16xf32> {
// CHECK-NEXT:      tessel.reduce_mean %arg0
// CHECK-NEXT:      tessel.sub %arg0
// CHECK-NEXT:      tessel.pow
// CHECK-NEXT:      tessel.reduce_mean
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.sqrt
// CHECK-NEXT:      tessel.div
// CHECK-NEXT:      tessel.mul
// CHECK-NEXT:      %[[R:.*]] = tessel.add
// CHECK-NEXT:      tessel.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @decomposed_layer_norm(%x: tensor<4x16xf32>, %gamma: tensor<16xf32>, %beta: tensor<16xf32>) -> tensor<4x16xf32> {
  %two = tessel.constant dense<2.0> : tensor<f32>
  %eps = tessel.constant dense<9.99999974E-6> : tensor<f32>
  %mean = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = tessel.sub %x, %mean : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = tessel.pow %d, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %var = tessel.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %ve = tessel.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %sd = tessel.sqrt %ve : tensor<4x1xf32>
  %n = tessel.div %d, %sd : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %g = tessel.mul %n, %gamma : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = tessel.add %g, %beta : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A reduction over another axis than the innermost is no row op: the mean
// over rows stays alone.
// CHECK-LABEL: func.func @column_mean
// CHECK-NOT:     tessel.fused
func.func @column_mean(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %mean = tessel.reduce_mean %x {axes = array<i64: 0>, keepdims = true} : (tensor<4x16xf32>) -> tensor<1x16xf32>
  %d = tessel.sub %x, %mean : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  return %d : tensor<4x16xf32>
}

// -----

// A residual add, then a layer norm, then another: both norms and the add
// run row by row in one group.
// CHECK-LABEL: func.func @layer_norms_in_a_row
// CHECK:         tessel.fused "rows" -> tensor<4x16xf32> {
// CHECK-NEXT:      tessel.add %arg0, %arg1
// CHECK-NEXT:      tessel.layer_norm
// CHECK-NEXT:      %[[R:.*]], %{{.*}}, %{{.*}} = tessel.layer_norm
// CHECK-NEXT:      tessel.yield %[[R]] :
func.func @layer_norms_in_a_row(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>, %s: tensor<16xf32>) -> tensor<4x16xf32> {
  %a = tessel.add %x, %y : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %n:3 = tessel.layer_norm %a, %s {axis = 1 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  %m:3 = tessel.layer_norm %n#0, %s {axis = 1 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %m#0 : tensor<4x16xf32>
}

// -----

// The same layer norm with its epsilon a graph input, not a constant: the
// group needs no constant (nothing is folded, the add runs per row), so it
// is still one row group.
// CHECK-LABEL: func.func @runtime_epsilon
// CHECK:         tessel.fused "rows"
// CHECK:           tessel.add %{{.*}}, %arg1 : (tensor<4x1xf32>, tensor<f32>)
// CHECK:           tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @runtime_epsilon(%x: tensor<4x16xf32>, %eps: tensor<f32>) -> tensor<4x16xf32> {
  %two = tessel.constant dense<2.0> : tensor<f32>
  %mean = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = tessel.sub %x, %mean : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = tessel.pow %d, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %var = tessel.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %ve = tessel.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %sd = tessel.sqrt %ve : tensor<4x1xf32>
  %n = tessel.div %d, %sd : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// The mean is also a graph output (a shared producer): it stays out of the
// group, computed once; the rest of the norm reads it per row.
// CHECK-LABEL: func.func @mean_escapes
// CHECK:         %[[MEAN:.*]] = tessel.reduce_mean %arg0
// CHECK-NEXT:    %[[N:.*]] = tessel.fused "rows" -> tensor<4x16xf32> {
// CHECK-NEXT:      tessel.sub %arg0, %[[MEAN]]
// CHECK-NOT:       tessel.reduce_mean %arg0
// CHECK:           tessel.yield
// CHECK:         return %[[N]], %[[MEAN]]
func.func @mean_escapes(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %two = tessel.constant dense<2.0> : tensor<f32>
  %mean = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %d = tessel.sub %x, %mean : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = tessel.pow %d, %two : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %var = tessel.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %sd = tessel.sqrt %var : tensor<4x1xf32>
  %n = tessel.div %d, %sd : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %n, %mean : tensor<4x16xf32>, tensor<4x1xf32>
}

// -----

// The shift a folded input normaliser leaves before a padded convolution
// (an add of a constant that only the convolution reads) joins the
// convolution's group, which reads it as it reads the input; a shift with
// another reader stays out.
// CHECK-LABEL: func.func @input_shift
// CHECK:         tessel.fused "conv" -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:      tessel.add %arg0
// CHECK-NEXT:      tessel.conv
// CHECK-NEXT:      tessel.relu
// CHECK-NEXT:      tessel.yield
// CHECK:         %[[S:.*]] = tessel.add %arg0
// CHECK-NEXT:    tessel.conv %[[S]]
// CHECK-NEXT:    return
func.func @input_shift(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %k = tessel.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %s = tessel.add %x, %k : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = tessel.conv %s, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %r = tessel.relu %c : tensor<1x2x4x4xf32>
  %s2 = tessel.add %x, %k : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tessel.conv %s2, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %r, %c2, %s2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A quantized model's layer boundary: the product's epilogue requantizes
// to ui8 and stores it; the next product's widening of those 8 bits (minus
// the zero point) is not pulled into that chain, so the next product reads
// the ui8 tensor (tessel-narrow-integer-products) instead of i32.
// CHECK-LABEL: func.func @narrow_boundary
// CHECK:         %[[Q:.*]] = tessel.fused "product" -> tensor<4x8xui8>
// CHECK:           tessel.cast %{{.*}} to ui8
// CHECK:         %[[W:.*]] = tessel.fused "elementwise" -> tensor<4x8xi32>
// CHECK-NEXT:      tessel.cast %[[Q]] to i32
// CHECK-NEXT:      tessel.sub
// CHECK:         tessel.matmul %[[W]], %{{.*}} : (tensor<4x8xi32>, tensor<8x8xi32>)
func.func @narrow_boundary(%a: tensor<4x8xi32>, %w: tensor<8x8xi32>, %s: tensor<f32>, %zp: tensor<i32>) -> tensor<4x8xi32> {
  %p = tessel.matmul %a, %w : (tensor<4x8xi32>, tensor<8x8xi32>) -> tensor<4x8xi32>
  %f = tessel.cast %p to f32 : tensor<4x8xi32> -> tensor<4x8xf32>
  %m = tessel.mul %f, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %r = tessel.round %m : tensor<4x8xf32>
  %q = tessel.cast %r to ui8 : tensor<4x8xf32> -> tensor<4x8xui8>
  %wide = tessel.cast %q to i32 : tensor<4x8xui8> -> tensor<4x8xi32>
  %c = tessel.sub %wide, %zp : (tensor<4x8xi32>, tensor<i32>) -> tensor<4x8xi32>
  %y = tessel.matmul %c, %w : (tensor<4x8xi32>, tensor<8x8xi32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

// A transpose and the cast it reads (an image's u8 HWC pixels to f32 CHW):
// one `layout` region. The cast of a transpose's second user stays out.
// CHECK-LABEL: func.func @cast_then_transpose
// CHECK:         %[[Y:.*]] = tessel.fused "layout" -> tensor<3x4x5xf32> {
// CHECK-NEXT:      %[[C:.*]] = tessel.cast %arg0
// CHECK-NEXT:      %[[T:.*]] = tessel.transpose %[[C]] {perm = array<i64: 2, 0, 1>}
// CHECK-NEXT:      tessel.yield %[[T]]
// CHECK:         %[[C2:.*]] = tessel.cast %arg1
// CHECK-NEXT:    tessel.transpose %[[C2]]
// CHECK-NEXT:    return
func.func @cast_then_transpose(%x: tensor<4x5x3xui8>, %z: tensor<4x5x3xui8>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<4x5x3xf32>) {
  %f = tessel.cast %x to f32 : tensor<4x5x3xui8> -> tensor<4x5x3xf32>
  %t = tessel.transpose %f {perm = array<i64: 2, 0, 1>} : (tensor<4x5x3xf32>) -> tensor<3x4x5xf32>
  %g = tessel.cast %z to f32 : tensor<4x5x3xui8> -> tensor<4x5x3xf32>
  %u = tessel.transpose %g {perm = array<i64: 2, 0, 1>} : (tensor<4x5x3xf32>) -> tensor<3x4x5xf32>
  return %t, %u, %g : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<4x5x3xf32>
}

// -----

// An elementwise chain that feeds only a transpose (the cast and the shift
// in front of an image's layout change) joins the transpose's region whole.
// CHECK-LABEL: func.func @chain_then_transpose
// CHECK:         %[[Y:.*]] = tessel.fused "layout" -> tensor<1x3x4x5xf32> {
// CHECK-NEXT:      %[[C:.*]] = tessel.cast %arg0
// CHECK-NEXT:      %[[A:.*]] = tessel.add %[[C]]
// CHECK-NEXT:      %[[T:.*]] = tessel.transpose %[[A]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:      tessel.yield %[[T]]
// CHECK-NEXT:    }
// CHECK-NOT:     tessel.fused
func.func @chain_then_transpose(%x: tensor<1x4x5x3xui8>) -> tensor<1x3x4x5xf32> {
  %k = tessel.constant dense<[[[[1.0, 2.0, 3.0]]]]> : tensor<1x1x1x3xf32>
  %f = tessel.cast %x to f32 : tensor<1x4x5x3xui8> -> tensor<1x4x5x3xf32>
  %a = tessel.add %f, %k : (tensor<1x4x5x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x5x3xf32>
  %t = tessel.transpose %a {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  return %t : tensor<1x3x4x5xf32>
}
