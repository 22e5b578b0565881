// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=8}))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=8}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-vectorize-generics{vector-width=16}))" \
// RUN:   | FileCheck %s --check-prefix=WIDE

// An elementwise op over 4x256: tiles of 64 elements (8 vectors of 8) along
// the innermost loop, one row at a time.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_relu
// CHECK:         scf.for {{.*}} -> (tensor<4x256xf32>)
// CHECK:           scf.for {{.*}} -> (tensor<4x256xf32>)
// CHECK:             %[[X:.*]] = vector.transfer_read {{.*}} : tensor<4x256xf32>, vector<1x64xf32>
// CHECK:             %[[B:.*]] = vector.transfer_read {{.*}} : tensor<256xf32>, vector<1x64xf32>
// CHECK:             %[[S:.*]] = arith.addf %[[X]], %[[B]] : vector<1x64xf32>
// CHECK:             %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<1x64xf32>
// CHECK:             vector.transfer_write %[[R]]
// CHECK-NOT:     linalg.generic
func.func @bias_relu(%x: tensor<4x256xf32>, %b: tensor<256xf32>) -> tensor<4x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x256xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x256xf32>, tensor<256xf32>) outs(%init : tensor<4x256xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x256xf32>
  return %0 : tensor<4x256xf32>
}

// -----

// Softmax's row maximum over rows of 32: two rows per tile (64 elements),
// reduced along the innermost dimension; the fill of its init is one
// vector write.

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max
// CHECK:         vector.transfer_write %{{.*}} : vector<16xf32>, tensor<16xf32>
// CHECK:         scf.for
// CHECK:           %[[V:.*]] = vector.transfer_read {{.*}} : tensor<16x32xf32>, vector<2x32xf32>
// CHECK:           vector.multi_reduction <maxnumf>, %[[V]], %{{.*}} [1] : vector<2x32xf32> to vector<2xf32>
func.func @row_max(%x: tensor<16x32xf32>) -> tensor<16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %init = tensor.empty() : tensor<16xf32>
  %fill = linalg.fill ins(%ninf : f32) outs(%init : tensor<16xf32>) -> tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#in, #out],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf32>) outs(%fill : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A small op is one tile: no loops.

// CHECK-LABEL: func.func @one_tile
// CHECK-NOT:     scf.for
// CHECK:         math.exp %{{.*}} : vector<2x3xf32>
func.func @one_tile(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %init = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%a: f32, %out: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Loops no vector width divides: a 7 x 7 window (49 elements) is one tile;
// two channels would pass the 64-element budget, so one at a time.

// CHECK-LABEL: func.func @window_sum
// CHECK:         scf.for
// CHECK:         vector.multi_reduction <add>, %{{.*}} [2, 3] : vector<1x1x7x7xf32> to vector<1x1xf32>
func.func @window_sum(%x: tensor<1x8x7x7xf32>, %init: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<1x8x7x7xf32>) outs(%init : tensor<1x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Left alone: an integer division (a partial vector's padding lanes would
// divide by zero), a dynamic shape, and a contraction
// (tessel-vectorize-contractions' job).

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     vector.
func.func @left_alone(%i: tensor<4xi32>, %d: tensor<?xf32>,
                      %a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>)
    -> (tensor<4xi32>, tensor<?xf32>, tensor<4x4xf32>) {
  %iinit = tensor.empty() : tensor<4xi32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%i : tensor<4xi32>) outs(%iinit : tensor<4xi32>) {
  ^bb0(%x: i32, %out: i32):
    %s = arith.divsi %x, %x : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?xf32>
  %dinit = tensor.empty(%n) : tensor<?xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%d : tensor<?xf32>) outs(%dinit : tensor<?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %1, %2, %3 : tensor<4xi32>, tensor<?xf32>, tensor<4x4xf32>
}

// -----

// A gather (an embedding: Gather's rows, clamped, then arithmetic, as a QDQ
// model quantizes them) vectorizes with the rest of its body: the row index
// is a loaded value, so the reads are one vector.gather per tile.

// CHECK-LABEL: func.func @gather_rows
// CHECK-NOT:     tensor.extract
// CHECK:         scf.for
// CHECK:           vector.transfer_read {{.*}} : tensor<4xi64>, vector<2x32xi64>
// CHECK:           vector.gather {{.*}} : tensor<10x32xf32>, vector<2x32xindex>, vector<2x32xi1>, vector<2x32xf32> into vector<2x32xf32>
// CHECK:           arith.mulf {{.*}} : vector<2x32xf32>
// CHECK:           vector.transfer_write
func.func @gather_rows(%table: tensor<10x32xf32>, %idx: tensor<4xi64>) -> tensor<4x32xf32> {
  %init = tensor.empty() : tensor<4x32xf32>
  %c9 = arith.constant 9 : index
  %c0 = arith.constant 0 : index
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<4xi64>) outs(%init : tensor<4x32xf32>) {
  ^bb0(%k: i64, %out: f32):
    %j = arith.index_cast %k : i64 to index
    %lo = arith.maxsi %j, %c0 : index
    %r = arith.minsi %lo, %c9 : index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%r, %col] : tensor<10x32xf32>
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// A constant pad becomes a fill of the padded tensor and a copy into its
// interior, both vectorized (bufferized as it was, the pad's strided copy
// could only become scalar loops).

// CHECK-LABEL: func.func @pad
// CHECK-NOT:     tensor.pad
// CHECK-KERNELS: Function=pad | kind=fill
// CHECK-KERNELS: Function=pad | kind=copy
// CHECK-KERNELS-NOT: Function=pad |
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[FILLED:.*]] = scf.for
// CHECK:           vector.transfer_write %{{.*}} : vector<1x1x6x6xf32>, tensor<1x2x6x6xf32>
// CHECK:         %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<1x2x4x4xf32>, vector<1x2x4x4xf32>
// CHECK:         vector.transfer_write %[[X]], %[[FILLED]][%{{.*}}, %{{.*}}, %[[C1]], %[[C1]]]
func.func @pad(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %0 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// A quantized model's elementwise ops: QuantizeLinear (f32 in, u8 out) and
// an i32 zero point subtracted from widened u8 values are vectors too.
// CHECK-LABEL: func.func @quantize
// CHECK:         arith.fptoui {{.*}} : vector<{{.*}}xf32> to vector<{{.*}}xi8>
// CHECK:         arith.extui {{.*}} : vector<{{.*}}xi8> to vector<{{.*}}xi32>
// CHECK-NOT:     linalg.generic
// CHECK-KERNELS: Function=quantize | kind=elementwise
// CHECK-KERNELS: Function=quantize | kind=elementwise
func.func @quantize(%x: tensor<4x32xf32>, %zp: tensor<i32>) -> (tensor<4x32xi8>, tensor<4x32xi32>) {
  %q0 = tensor.empty() : tensor<4x32xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%q0 : tensor<4x32xi8>) {
  ^bb0(%v: f32, %out: i8):
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %r = math.roundeven %v : f32
    %l = arith.maximumf %r, %lo : f32
    %h = arith.minimumf %l, %hi : f32
    %u = arith.fptoui %h : f32 to i8
    linalg.yield %u : i8
  } -> tensor<4x32xi8>
  %w0 = tensor.empty() : tensor<4x32xi32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q, %zp : tensor<4x32xi8>, tensor<i32>) outs(%w0 : tensor<4x32xi32>) {
  ^bb0(%v: i8, %z: i32, %out: i32):
    %e = arith.extui %v : i8 to i32
    %d = arith.subi %e, %z : i32
    linalg.yield %d : i32
  } -> tensor<4x32xi32>
  return %q, %w : tensor<4x32xi8>, tensor<4x32xi32>
}

// -----

// A squeeze-excitation scale, [1, 4, 24, 24] * [1, 4, 1, 1]: rows of 24
// fill no whole vectors of 16 (a vector<24> tile would be split into
// partial registers, and at 120 columns into scalars). The unit dimensions
// go first (the scale's), then the loops that every operand reads
// consecutively (the rows and columns) run as one of 576, tiled by 96
// (the largest multiple of a vector up to 8 that divides it); the scale is
// read broadcast along it.
// WIDE-LABEL: func.func @se_scale_collapsed
// WIDE:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : tensor<1x4x24x24xf32> into tensor<4x576xf32>
// WIDE:         scf.for %[[C:.*]] = %c0 to %c4 step %c1
// WIDE:           scf.for %[[P:.*]] = %c0 to %c576 step %c96
// WIDE:             vector.transfer_read %[[X]][%[[C]], %[[P]]]{{.*}} : tensor<4x576xf32>, vector<1x96xf32>
// WIDE:             arith.mulf {{.*}} : vector<1x96xf32>
// WIDE:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] output_shape [1, 4, 24, 24] : tensor<4x576xf32> into tensor<1x4x24x24xf32>
#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#per_channel = affine_map<(n, c, h, w) -> (n, c, 0, 0)>
func.func @se_scale_collapsed(%x: tensor<1x4x24x24xf32>, %s: tensor<1x4x1x1xf32>) -> tensor<1x4x24x24xf32> {
  %e = tensor.empty() : tensor<1x4x24x24xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #per_channel, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<1x4x24x24xf32>, tensor<1x4x1x1xf32>) outs(%e : tensor<1x4x24x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x24x24xf32>
  return %0 : tensor<1x4x24x24xf32>
}
