// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-fuse-attention))" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-fuse-attention,tessel-vectorize-contractions{vector-width=8},tessel-vectorize-generics{vector-width=8}))" \
// RUN:   | FileCheck %s --check-prefix=VEC
// RUN: tessel-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(tessel-fuse-attention))" \
// RUN:   | FileCheck %s --check-prefix=ONCE
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-fuse-attention))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-KERNELS
// RUN: tessel-opt %s --split-input-file  --pass-pipeline="builtin.module(func.func(tessel-fuse-attention,tessel-vectorize-contractions{vector-width=8},tessel-vectorize-generics{vector-width=8}))" \
// RUN:   --remarks-filter=tessel --remark-format=emitRemark --mlir-disable-threading \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC-KERNELS

#lhs = affine_map<(h, m, n, k) -> (h, m, k)>
#rhs = affine_map<(h, m, n, k) -> (h, k, n)>
#out = affine_map<(h, m, n, k) -> (h, m, n)>
#id = affine_map<(h, m, n) -> (h, m, n)>
#row = affine_map<(h, m, n) -> (h, m)>
#scalar = affine_map<(h, m, n) -> ()>
#mask = affine_map<(h, m, n) -> (m, n)>

// Two heads of 4 positions and 8 features, as torch exports them: q and v
// transposed [seq, heads, d] -> [heads, seq, d], k to [heads, d, seq]; the
// scores scaled, masked by a mask every head shares (computed from an
// argument: it is read whole, so it stays outside, computed once), the
// softmax (maximum, exp, sum, division), the value product and the
// transpose back. One loop over the heads computes all of it; its ops are
// parts of one `attention` kernel.
// The vectorizers after the pass register-tile and vectorize the ops in the
// loop (the products, the softmax as one row group) without kernels of their
// own: the function has two, the attention block and the mask.
// VEC-LABEL: func.func @attention
// VEC-KERNELS: Function=attention | kind=attention
// VEC-KERNELS: Function=attention | kind=elementwise
// VEC-KERNELS-NOT: Function=attention |
// VEC:         scf.for
// VEC:           vector.contract
// VEC:           vector.multi_reduction <maximumf>
// VEC:           vector.multi_reduction <add>
// VEC:           vector.contract
// VEC-NOT:     linalg.
// VEC:         return
// Each member is computed once per head: the scaled scores are read twice
// (by the maximum and by the exponential), yet the loop holds the two
// products and the two row reductions once each.
// ONCE-LABEL:    func.func @attention
// ONCE-COUNT-4:  "reduction"]
// ONCE-NOT:      "reduction"]
// ONCE-LABEL:    func.func @chained_products
// CHECK-LABEL: func.func @attention
// CHECK-KERNELS: Function=attention | kind=attention
// CHECK:         %[[MASK:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4xf32>)
// CHECK:         scf.for %[[H:.*]] = %c0 to %c2 step %c1
// CHECK-DAG:       linalg.transpose {{.*}} permutation = [1, 0, 2]  {tessel.in_kernel}
// CHECK-DAG:       linalg.transpose {{.*}} permutation = [1, 2, 0]  {tessel.in_kernel}
// CHECK:           linalg.fill {tessel.in_kernel}
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8xf32>, tensor<1x8x4xf32>) outs(%{{.*}} : tensor<1x4x4xf32>) attrs =  {tessel.in_kernel}
// CHECK:           %[[WHOLE:.*]] = tensor.extract_slice %[[MASK]][0, 0] [4, 4] [1, 1]
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[WHOLE]] : tensor<1x4x4xf32>, tensor<f32>, tensor<4x4xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4xf32>) outs(%{{.*}} : tensor<1x4xf32>) attrs =  {tessel.in_kernel}
// CHECK:           math.exp
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4xf32>) outs(%{{.*}} : tensor<1x4xf32>) attrs =  {tessel.in_kernel}
// CHECK:           arith.divf
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf32>, tensor<1x4x8xf32>) outs(%{{.*}} : tensor<1x4x8xf32>) attrs =  {tessel.in_kernel}
// CHECK:           linalg.transpose {{.*}} outs(%{{.*}} : tensor<4x1x8xf32>) permutation = [1, 0, 2]  {tessel.in_kernel}
// CHECK:           tensor.insert_slice {{.*}}[0, %[[H]], 0] [4, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> into tensor<4x2x8xf32>
// CHECK:         }
// CHECK-NOT:     linalg.
// CHECK:         return
func.func @attention(%q: tensor<4x2x8xf32>, %k: tensor<4x2x8xf32>, %v: tensor<4x2x8xf32>, %m: tensor<4x4xf32>, %scale: tensor<f32>) -> tensor<4x2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<2x4x8xf32>
  %qt = linalg.transpose ins(%q : tensor<4x2x8xf32>) outs(%e0 : tensor<2x4x8xf32>) permutation = [1, 0, 2]
  %e1 = tensor.empty() : tensor<2x8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<4x2x8xf32>) outs(%e1 : tensor<2x8x4xf32>) permutation = [1, 2, 0]
  %e2 = tensor.empty() : tensor<2x4x8xf32>
  %vt = linalg.transpose ins(%v : tensor<4x2x8xf32>) outs(%e2 : tensor<2x4x8xf32>) permutation = [1, 0, 2]
  %e3 = tensor.empty() : tensor<2x4x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f3 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %em = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x4xf32>) outs(%em : tensor<4x4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<2x4x4xf32>
  %sc = linalg.generic {indexing_maps = [#id, #scalar, #mask, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %scale, %mask : tensor<2x4x4xf32>, tensor<f32>, tensor<4x4xf32>) outs(%e4 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    %x = arith.divf %a, %b : f32
    %r = arith.addf %x, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e5 = tensor.empty() : tensor<2x4xf32>
  %f5 = linalg.fill ins(%ninf : f32) outs(%e5 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sc : tensor<2x4x4xf32>) outs(%f5 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.maximumf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e6 = tensor.empty() : tensor<2x4x4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc, %max : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e6 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e7 = tensor.empty() : tensor<2x4xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x4x4xf32>) outs(%f7 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e8 = tensor.empty() : tensor<2x4x4xf32>
  %pr = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e8 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e9 = tensor.empty() : tensor<2x4x8xf32>
  %f9 = linalg.fill ins(%zero : f32) outs(%e9 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%pr, %vt : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f9 : tensor<2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  %e10 = tensor.empty() : tensor<4x2x8xf32>
  %back = linalg.transpose ins(%o : tensor<2x4x8xf32>) outs(%e10 : tensor<4x2x8xf32>) permutation = [1, 0, 2]
  return %back : tensor<4x2x8xf32>
}

// -----

#lhs = affine_map<(h, m, n, k) -> (h, m, k)>
#rhs = affine_map<(h, m, n, k) -> (h, k, n)>
#out = affine_map<(h, m, n, k) -> (h, m, n)>

// Two batched products in a row with no reduction between them (no
// softmax): not an attention block, nothing changes.
// CHECK-LABEL: func.func @chained_products
// CHECK-KERNELS-NOT: Function=chained_products |
// CHECK-NOT:     scf.for
// CHECK-COUNT-2: linalg.generic
func.func @chained_products(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %c : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f1 : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

#lhs = affine_map<(h, m, n, k) -> (h, m, k)>
#rhs = affine_map<(h, m, n, k) -> (h, k, n)>
#out = affine_map<(h, m, n, k) -> (h, m, n)>
#id = affine_map<(h, m, n) -> (h, m, n)>
#row = affine_map<(h, m, n) -> (h, m)>

// The scores have a second user outside the block (they are returned too):
// the scores product is no member, so the block holds one product and is
// no attention block; nothing changes.
// CHECK-LABEL: func.func @shared_scores
// CHECK-KERNELS-NOT: Function=shared_scores |
// CHECK-NOT:     scf.for
// CHECK-COUNT-4: linalg.generic
func.func @shared_scores(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x4x4xf32>) outs(%f1 : tensor<2x4xf32>) {
  ^bb0(%x: f32, %z: f32):
    %r = arith.addf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x4x4xf32>
  %pr = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e2 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %r = arith.divf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%pr, %c : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f3 : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  return %o, %s : tensor<2x4x8xf32>, tensor<2x4x4xf32>
}

// -----

#lhs = affine_map<(h, m, n, k) -> (h, m, k)>
#rhs = affine_map<(h, m, n, k) -> (h, k, n)>
#out = affine_map<(h, m, n, k) -> (h, m, n)>
#id = affine_map<(h, m, n) -> (h, m, n)>
#row = affine_map<(h, m, n) -> (h, m)>

// No transpose after the value product: the product is the root, tiled by 1
// along its batch loop, with the scores product, the sum and the division
// in its loop; the originals are all erased.
// CHECK-LABEL: func.func @value_product_root
// CHECK-KERNELS: Function=value_product_root | kind=attention
// CHECK:         scf.for %[[H:.*]] = %c0 to %c2 step %c1
// CHECK-COUNT-4:   linalg.generic {{.*}} {tessel.in_kernel}
// CHECK:           tensor.insert_slice {{.*}}[%[[H]], 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x8xf32> into tensor<2x4x8xf32>
// CHECK:         }
// CHECK-NOT:     linalg.
// CHECK:         return
func.func @value_product_root(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x4x4xf32>) outs(%f1 : tensor<2x4xf32>) {
  ^bb0(%x: f32, %z: f32):
    %r = arith.addf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x4x4xf32>
  %pr = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %sum : tensor<2x4x4xf32>, tensor<2x4xf32>) outs(%e2 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %r = arith.divf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %o = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%pr, %c : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%f3 : tensor<2x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

#lhs = affine_map<(h, m, n, k) -> (h, m, k)>
#rhs = affine_map<(h, m, n, k) -> (h, k, n)>
#out = affine_map<(h, m, n, k) -> (h, m, n)>
#id = affine_map<(h, m, n) -> (h, m, n)>
#row = affine_map<(h, m, n) -> (h, m)>

// 50 keys (ViT-B/32's 49 patches and the class token): no whole vector
// divides the scores' 50 columns. Inside the loop over heads (the loop
// split across threads), the scores' register tiles take whole vectors and
// the last column tile overlaps the one before it (at column 42), instead
// of tiles 10 columns wide that LLVM splits into a vector and a half-empty
// one, reshuffled every step.
// VEC-LABEL: func.func @fifty_keys
// VEC:         scf.for %{{.*}} = %c0 to %c2 step %c1
// VEC:           scf.for %[[J:.*]] = %c0 to %c50 step %c8
// VEC-NEXT:        %[[AT:.*]] = affine.min #{{.*}}(%[[J]])
// VEC:             vector.contract {{.*}} into vector<10x8xf32>
// VEC:             vector.transfer_write %{{.*}}[%{{.*}}, %[[AT]]] {{.*}} : vector<10x8xf32>, tensor<50x50xf32>
// VEC-NOT:       vector<{{[0-9]+}}x10xf32>
// VEC:         return
func.func @fifty_keys(%a: tensor<2x50x64xf32>, %b: tensor<2x64x50xf32>, %c: tensor<2x50x64xf32>) -> tensor<2x50x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x50x50xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x50x50xf32>) -> tensor<2x50x50xf32>
  %s = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x50x64xf32>, tensor<2x64x50xf32>) outs(%f0 : tensor<2x50x50xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x50x50xf32>
  %e1 = tensor.empty() : tensor<2x50xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x50xf32>) -> tensor<2x50xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x50x50xf32>) outs(%f1 : tensor<2x50xf32>) {
  ^bb0(%x: f32, %z: f32):
    %r = arith.addf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x50xf32>
  %e2 = tensor.empty() : tensor<2x50x50xf32>
  %pr = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %sum : tensor<2x50x50xf32>, tensor<2x50xf32>) outs(%e2 : tensor<2x50x50xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %r = arith.divf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x50x50xf32>
  %e3 = tensor.empty() : tensor<2x50x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x50x64xf32>) -> tensor<2x50x64xf32>
  %o = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%pr, %c : tensor<2x50x50xf32>, tensor<2x50x64xf32>) outs(%f3 : tensor<2x50x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %z, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x50x64xf32>
  return %o : tensor<2x50x64xf32>
}
