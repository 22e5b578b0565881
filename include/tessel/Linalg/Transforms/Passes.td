//===- Passes.td - Linalg-phase passes ---------------------*- tablegen -*-===//

#ifndef TESSEL_LINALG_TRANSFORMS_PASSES_TD
#define TESSEL_LINALG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselReadThroughUnitExpandsPass
    : Pass<"tessel-read-through-unit-expands", "func::FuncOp"> {
  let summary = "All-parallel generics read unit-dim expands through their source";
  let description = [{
    A keep-dims reduction lowers to a reduction into the kept dimensions and
    a `tensor.expand_shape` that adds the unit dimension back. An
    all-parallel `linalg.generic` reading such an expand (one that only adds
    unit dimensions) reads its source instead, the unit dimensions'
    expressions dropped from its indexing map (they can only be 0). The
    reads then go from generic to generic, so the row groups of
    `tessel-vectorize-generics` see a layer norm written as ReduceMean, Sub,
    Pow, Sqrt and Div whole. A product's or convolution's result stays read
    through the expand, which its epilogue fusion absorbs.

    ```mlir
    %e = tensor.expand_shape %mean [[0, 1]] output_shape [16, 1]
        : tensor<16xf32> into tensor<16x1xf32>
    %d = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1),
                                          (d0, d1) -> (d0, 0), ...]}
        ins(%x, %e : ...)
    // becomes: ins(%x, %mean) with (d0, d1) -> (d0) for %mean
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TesselSplitEmptyTensorsPass
    : Pass<"tessel-split-empty-tensors", "func::FuncOp"> {
  let summary = "Gives every use of a tensor.empty its own tensor.empty";
  let description = [{
    Right before bufferization. CSE merges the `tensor.empty`s of one type
    into one, so the loops of every kernel that writes a result of that type
    start from the same value: One-Shot Bufferize's analysis then checks each
    of those writes against all the others (a 2-layer GRU unrolled over 100
    steps: 200 kernels per shape, 7.5 s of analysis and empty-tensor
    elimination). A `tensor.empty` with several uses is cloned right
    before each user, so each kernel's result starts from its own value and
    the analysis (and `eliminate-empty-tensors`) sees independent writes. An empty tensor
    defines no contents: nothing else changes.

    ```mlir
    %e = tensor.empty() : tensor<1x256xf32>
    %a = scf.for ... iter_args(%t = %e) ...
    %b = scf.for ... iter_args(%t = %e) ...
    // After: each loop's init is a tensor.empty of its own.
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TesselFuseElementwisePass
    : Pass<"tessel-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuses producer-consumer chains of elementwise linalg.generics";
  let description = [{
    Merges an all-parallel `linalg.generic` into the all-parallel generic that
    consumes it (upstream's elementwise fusion patterns), so a chain such as
    bias add -> ReLU -> residual add becomes one loop nest that reads each
    input once and writes one result. Two rules keep it a win:

    - the producer has no user but the consumer (otherwise it would be
      computed twice); the consumer may read it more than once (GELU's
      `x * (1 + erf(x / sqrt(2))) / 2` reads its input twice: each read
      fuses, and the body computes the producer's value for each),
      and the consumer reads it without broadcasting (a permutation map;
      a broadcast would compute it once per broadcast element);
    - the consumer has no reduction loop: fusing into a convolution or a
      matrix product would recompute the producer once per reduction step,
      and would hide the contraction from the vectorisers.

    Each fused generic keeps the locations of the ops it came from.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def TesselNarrowIntegerProductsPass
    : Pass<"tessel-narrow-integer-products", "func::FuncOp"> {
  let summary = "i32 products of 8-bit values read their operands as i8";
  let description = [{
    An i32 contraction (`out + a * b`) whose inputs are each an all-parallel
    extension from i8 (`arith.extsi` or `arith.extui` in an identity
    generic) or a constant whose values all fit i8 reads the 8-bit values
    instead and extends them in its body. The integers it computes are the
    same; it reads a quarter of the bytes, and the CPU code generator can run
    it on an 8-bit dot-product micro-kernel (AVX512-VNNI's `vpdpbusd`). A
    left-hand side centred by a constant zero point (`ext(a) - zp`,
    MatMulInteger's `a_zero_point`) is read narrow too when the right-hand
    side is a constant `[K, N]`: `zp * sum(b)` per column comes off the
    product's initial value once.

    When: in the linalg phase, after `tessel-convert-tessel-to-linalg`
    (ONNX's MatMulInteger without zero points lowers to an extension and an
    i32 product, and the extension of a constant folds into an i32
    constant). No options.

    ```mlir
    // Before:
    %a32 = linalg.generic {...} ins(%a : tensor<8x64xi8>) ... { arith.extsi }
    %c = linalg.generic {...} ins(%a32, %w32 : tensor<8x64xi32>, tensor<64x32xi32>) ...
    // After:
    %c = linalg.generic {...} ins(%a, %w8 : tensor<8x64xi8>, tensor<64x32xi8>) ... {
      %x = arith.extsi %in : i8 to i32 ... arith.muli ... arith.addi }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TesselQuantizeByReciprocalPass
    : Pass<"tessel-quantize-by-reciprocal", "func::FuncOp"> {
  let summary = "A quantization's division by a constant scale multiplies by its reciprocal, corrected exactly";
  let description = [{
    QuantizeLinear divides by its scale and rounds to the nearest even
    integer: `roundeven(x / s)`. A vector division is slow (AVX-512's
    `vdivps` issues once per 10-16 cycles), and a QDQ model quantizes every
    activation, some of them several times per element (a GELU written with
    QuantizeLinear and DequantizeLinear around each of its five ops).
    Multiplying by the reciprocal instead is not the same number, so this
    pass corrects the quotient the way Markstein's division sequences do:

    ```
    y = x * r           // r = RN(1 / s), computed once at compile time
    e = fma(-y, s, x)   // the residual, exact
    q = fma(e, r, y)    // RN(x / s)
    q = isnan(q) ? y : q
    ```

    The last line keeps an infinite `x`, or a quotient past the f32 range,
    as the division gives it (`y` is infinite there and `q` a NaN).
    The rewrite applies to an `arith.divf` in a `linalg.generic` body when
    every user of the quotient is `math.roundeven`, and the divisor is a
    block argument read from an f32 constant whose elements are finite and
    within `[2^-64, 2^64]` in magnitude. The reciprocals become a new
    constant input with the scale's indexing map. Under those conditions
    the rounded result is the rounded quotient for every f32 `x`: checked
    exhaustively over all 2^32 inputs for 33 scales (`bench/notes/
    quantize-by-reciprocal.md`); the only other differences are in
    quotients under 2^-38, which both round to zero. Divisions that are not
    rounded (a model's own Div) keep `arith.divf`.

    When: in the linalg phase, after `tessel-fuse-elementwise` (the
    quantization is then in the body of the generic or the product epilogue
    that computes its input). Targets without FMA skip it (`fma=false`):
    their `fma` is a library call.
  }];
  let options = [
    Option<"fma", "fma", "bool", /*default=*/"true",
           "The target has a fused multiply-add instruction">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
  ];
}

#endif // TESSEL_LINALG_TRANSFORMS_PASSES_TD
