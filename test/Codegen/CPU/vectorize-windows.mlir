// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-windows{vector-width=8}))" \
// RUN:   | FileCheck %s

// 3x3 max pooling with stride 2 over a padded 1x2x9x17 input (output
// 1x2x4x8): tiles of 8 output columns; per tap, a 15-element row segment
// (7 * 2 + 1; 16 would run past the row). A maximum combines exactly in any
// order: the 9 segments are combined in a tree, then every second lane is
// kept once and combined with the accumulator.

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @max_pool
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} -> (tensor<1x2x4x8xf32>)
// CHECK:                 %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<1x2x4x8xf32>, vector<8xf32>
// CHECK-COUNT-9:         vector.transfer_read {{.*}} : tensor<1x2x9x17xf32>, vector<15xf32>
// CHECK-COUNT-8:         arith.maximumf {{.*}} : vector<15xf32>
// CHECK:                 %[[V:.*]] = vector.shuffle %[[W:.*]], %[[W]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK:                 %[[R:.*]] = arith.maximumf %[[V]], %[[ACC]] : vector<8xf32>
// CHECK:                 vector.transfer_write %[[R]]
// CHECK-NOT:     linalg.generic
func.func @max_pool(%x: tensor<1x2x9x17xf32>, %init: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.generic {indexing_maps = [#in, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : tensor<1x2x9x17xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x8xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// Stride 1 reads the segment as it is, one tap after another (a sum is
// not reassociated). An output filled with a constant is not read: the
// accumulators start from it, and a width of 6 gets half vectors (4), the
// last tile at column 2 overlapping the one before it (the columns computed
// twice are written twice alike).

#in1 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win1 = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out1 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @sum_pool
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     linalg.fill
// CHECK:         %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK:         scf.for %{{.+}} = %{{.+}} to %c4{{.*}} step %c4
// CHECK:           %[[X:.*]] = vector.transfer_read {{.*}} : tensor<1x1x7x7xf32>, vector<4xf32>
// CHECK:           arith.addf %[[X]], %[[ZERO]] : vector<4xf32>
// CHECK-COUNT-3:   arith.addf {{.*}} : vector<4xf32>
// CHECK:         %[[C2:.+]] = arith.constant 2 : index
// CHECK:         vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[C2]]]{{.*}} : tensor<1x1x7x7xf32>, vector<4xf32>
// CHECK:         vector.transfer_write {{.+}}, %[[C2]]] {{.+}} : vector<4xf32>, tensor<1x1x6x6xf32>
func.func @sum_pool(%x: tensor<1x1x7x7xf32>) -> tensor<1x1x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x1x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x1x6x6xf32>) -> tensor<1x1x6x6xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.generic {indexing_maps = [#in1, #win1, #out1],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : tensor<1x1x7x7xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x6x6xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

// Left alone: a body that reads the window tensor's element, and i32.

#in2 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win2 = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out2 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     vector.
func.func @left_alone(%x: tensor<1x1x5x5xf32>, %w: tensor<2x2xf32>, %init: tensor<1x1x4x4xf32>,
                      %xi: tensor<1x1x5x5xi32>, %wi: tensor<2x2xi32>, %initi: tensor<1x1x4x4xi32>)
    -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xi32>) {
  %0 = linalg.generic {indexing_maps = [#in2, #win2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x1x5x5xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x4xf32>
  %1 = linalg.generic {indexing_maps = [#in2, #win2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%xi, %wi : tensor<1x1x5x5xi32>, tensor<2x2xi32>) outs(%initi : tensor<1x1x4x4xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %s = arith.maxsi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<1x1x4x4xi32>
  return %0, %1 : tensor<1x1x4x4xf32>, tensor<1x1x4x4xi32>
}

// -----

// 3x3 max pooling, stride 1, of an input padded by -inf (1 on each side;
// output 1x1x6x24, tiles of 8 columns): the kernel reads the unpadded 6x24
// input and the pad goes away. Each tap row is clamped into the input (a
// repeated row of the same window leaves a maximum unchanged); the middle
// tile reads its segments as they are, in a loop; the edge tiles read
// theirs inside the row and clamp their lanes by a shuffle.

#in2 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win2 = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out2 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @max_pool_padded
// CHECK-SAME:    (%[[X:[a-z0-9]+]]: tensor<1x1x6x24xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         scf.for %[[OH:.*]] =
// CHECK:           %[[C5:.*]] = arith.constant 5 : index
// CHECK:           arith.maxsi
// CHECK:           arith.minsi %{{.*}}, %[[C5]]
// CHECK:           vector.transfer_read %[[X]]{{.*}} : tensor<1x1x6x24xf32>, vector<8xf32>
// CHECK-NEXT:      vector.shuffle {{.*}} [0, 0, 1, 2, 3, 4, 5, 6] : vector<8xf32>, vector<8xf32>
// CHECK:           scf.for %{{.*}} = %c8{{.*}} to %c16{{.*}} step %c8
// CHECK-COUNT-9:     vector.transfer_read %[[X]]{{.*}} : tensor<1x1x6x24xf32>, vector<8xf32>
// CHECK-NOT:         vector.shuffle
// CHECK:             scf.yield
// CHECK:           vector.shuffle {{.*}} [1, 2, 3, 4, 5, 6, 7, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NOT:     linalg.generic
func.func @max_pool_padded(%x: tensor<1x1x6x24xf32>) -> tensor<1x1x6x24xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x1x6x24xf32> to tensor<1x1x8x26xf32>
  %empty = tensor.empty() : tensor<1x1x6x24xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x1x6x24xf32>) -> tensor<1x1x6x24xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.generic {indexing_maps = [#in2, #win2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %window : tensor<1x1x8x26xf32>, tensor<3x3xf32>) outs(%init : tensor<1x1x6x24xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x1x6x24xf32>
  return %0 : tensor<1x1x6x24xf32>
}

// -----

// A sum (average pooling) over a zero-padded input keeps reading the pad:
// a clamped tap would count an element twice.

#in3 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win3 = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out3 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @sum_pool_padded
// CHECK:         tensor.pad
// CHECK:         vector.transfer_read {{.*}} : tensor<1x1x8x26xf32>, vector<8xf32>
func.func @sum_pool_padded(%x: tensor<1x1x6x24xf32>, %init: tensor<1x1x6x24xf32>) -> tensor<1x1x6x24xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x6x24xf32> to tensor<1x1x8x26xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.generic {indexing_maps = [#in3, #win3, #out3],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %window : tensor<1x1x8x26xf32>, tensor<3x3xf32>) outs(%init : tensor<1x1x6x24xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x24xf32>
  return %0 : tensor<1x1x6x24xf32>
}

// -----

// A model's own f16 average pooling sums in f32: the row segments are read
// as f16 vectors and extended in the body, the accumulators are f32.

#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh + kh, ow + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @sum_f16
// CHECK:                 %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<1x1x8x8xf32>, vector<8xf32>
// CHECK-COUNT-4:         vector.transfer_read {{.*}} : tensor<1x1x9x9xf16>, vector<8xf16>
// CHECK:                 arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK:                 arith.addf {{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.generic
func.func @sum_f16(%x: tensor<1x1x9x9xf16>, %init: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %window = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.generic {indexing_maps = [#in, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : tensor<1x1x9x9xf16>, tensor<2x2xf32>) outs(%init : tensor<1x1x8x8xf32>) {
  ^bb0(%a: f16, %unused: f32, %acc: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  } -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// A 3x3 stride-2 max pool from 27 to 13 columns (SqueezeNet's last, 512
// channels): no whole or half vector divides 13, and the output starts from
// the fill's -inf, so tiles of 8 columns: one at 0, and one at 5 that
// overlaps it. (With tiles as wide as a divisor of 13, 1 column, this pool
// took 26x onnxruntime's time on Zen 3.) Its segments, 15 elements from
// column 10, end inside the row.

#in5 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#win5 = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out5 = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
// CHECK-LABEL: func.func @max_pool_13_columns
// CHECK:         %[[C5:.+]] = arith.constant 5 : index
// CHECK:         %[[C10:.+]] = arith.muli %[[C5]], %c2{{.*}} : index
// CHECK:         vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[C10]]]{{.*}} : tensor<1x512x27x27xf32>, vector<15xf32>
// CHECK:         vector.transfer_write {{.+}}, %[[C5]]] {{.+}} : vector<8xf32>, tensor<1x512x13x13xf32>
func.func @max_pool_13_columns(%x: tensor<1x512x27x27xf32>) -> tensor<1x512x13x13xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<1x512x13x13xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x512x13x13xf32>) -> tensor<1x512x13x13xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.generic {indexing_maps = [#in5, #win5, #out5],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : tensor<1x512x27x27xf32>, tensor<3x3xf32>) outs(%init : tensor<1x512x13x13xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x512x13x13xf32>
  return %0 : tensor<1x512x13x13xf32>
}
