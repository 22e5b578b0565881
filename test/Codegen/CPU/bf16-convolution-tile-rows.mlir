// RUN: tessel-opt %s --tessel-vectorize-convolutions="vector-width=16 bf16-tile-rows=true" | FileCheck %s
// RUN: tessel-opt %s --tessel-vectorize-convolutions="vector-width=16" | FileCheck %s --check-prefix=PAIRS

#in = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#out = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>

// A bf16 convolution (channels last, --precision=bf16) runs as a product
// of its gathered windows: 3 x 3 x 3 = 27 taps, padded with zeros to pairs
// (28, vdpbf16ps's groups) and, where the target runs bf16 products on AMX
// tiles, to whole 64-byte tile rows (32 bf16) when that adds at most a
// quarter to the taps (here 19%): the product is then whole tiles. The
// weights get the same zero rows.
// CHECK-LABEL: func.func @gathered
// CHECK:         tensor.empty() : tensor<16x32xbf16>
// CHECK:         arith.constant dense<0.000000e+00> : vector<5xbf16>
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<16x32xbf16>, tensor<32x16xbf16>)
// PAIRS-LABEL: func.func @gathered
// PAIRS:         tensor.empty() : tensor<16x28xbf16>
// PAIRS:         ins(%{{.*}}, %{{.*}} : tensor<16x28xbf16>, tensor<28x16xbf16>)
func.func @gathered(%x: tensor<1x6x6x3xbf16>) -> tensor<1x4x4x16xf32> {
  %w = arith.constant dense<0.5> : tensor<16x3x3x3xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x6x6x3xbf16>, tensor<16x3x3x3xbf16>) outs(%init : tensor<1x4x4x16xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  return %y : tensor<1x4x4x16xf32>
}
