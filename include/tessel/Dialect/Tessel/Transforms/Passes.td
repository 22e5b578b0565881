//===- Passes.td - Graph passes on the tessel dialect ----------*- tablegen -*-===//
//
// The "graph" phase's optimisations. Each has its own pass (and flag in
// tessel-opt) and a switch in tessel-compile, for A/B comparisons.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselFoldBatchNormPass
    : Pass<"tessel-fold-batchnorm", "func::FuncOp"> {
  let summary = "Folds inference BatchNormalization into the preceding conv or gemm";
  let description = [{
    Rewrites `batch_norm(conv(x, W, b), scale, beta, mean, var)` into
    `conv(x, W', b')` with, per output channel `c`,
    `k = scale[c] / sqrt(var[c] + epsilon)`, `W'[c] = W[c] * k` and
    `b'[c] = (b[c] - mean[c]) * k + beta[c]` (`b` is 0 when the conv has no
    bias). The same for a rank-2 `gemm` (`y = alpha * A * B + beta * C`),
    whose output columns are the channels: `B` is scaled per column and `C`
    becomes the folded bias (then `beta = 1`).

    It folds only when the result is the same computation: the conv or gemm
    has no other user than the batch norm, its weights (and bias) and the
    four batch-norm vectors are constants, and everything is f32. Otherwise
    (a shared producer, a batch norm of a graph input, an f16 model) the ops
    stay as they are. The folded op keeps both ops' locations, so reports
    name both ONNX nodes.

    ```mlir
    %y = tessel.conv %x, %w {...} : ...
    %z = tessel.batch_norm %y, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : ...
    // becomes
    %z = tessel.conv %x, %w_folded, %b_folded {...} : ...
    ```
  }];
}

def TesselFoldInputNormalizationPass
    : Pass<"tessel-fold-input-normalization", "func::FuncOp"> {
  let summary = "Folds a per-channel affine normaliser of a graph input into the first conv or gemm";
  let description = [{
    Image models often start with `(x - mean) / std` (or `x * a + b`) by
    per-channel constants on the graph input. The chain of `add`, `sub`,
    `mul` and `div` by constants that broadcast along dimension 1 (the
    channels of an NCHW image, the features of a `[rows, features]` gemm
    input) is the affine map `a[c] * x + b[c]`; when it feeds a conv (as its
    input) or a gemm (as `A`, not transposed) whose weights are f32
    constants, the scale moves into the weights:

    - conv: `W'[o, i, ...] = W[o, i, ...] * a[c]` (`c` the input channel
      that `i` reads in `o`'s group) and
      `bias'[o] = bias[o] + sum_{i, k} W[o, i, k] * b[c]`;
    - gemm: `B'[k, n] = B[k, n] * a[k]` and
      `C'[n] = beta * C[n] + alpha * sum_k B[k, n] * b[k]` (then `beta = 1`).

    A padded conv pads the normalised input with zeros, that is the raw
    value `-b / a`, not 0: folding `b` into the bias would be wrong on the
    border. There the shift stays as `tessel.add %x, (b / a)` on the input
    (the conv kernels read through it, so it is no kernel of its own) and
    only the scale moves into the weights; a zero `a` leaves the chain as
    it is.

    When the padded conv's input is a transpose used only by the chain (an
    image's NHWC pixels made NCHW), the shift goes in front of the
    transpose instead, its constant on the axis the channels come from, so
    that the kernel computing the transpose adds it and the conv reads a
    plain tensor.

    The chain may start on the graph input or on what a chain of casts,
    transposes, reshapes, slices, resizes and rounds (each with one user)
    made of it: the conversion `--preprocess` prepends, or an exporter's
    cast of the input.

    It folds only what is the same computation: each op of the chain has one
    user and keeps the input's shape, the constants broadcast per channel,
    and everything is f32. The folded op keeps the locations of the chain's
    ops and of the conv or gemm.

    ```mlir
    %0 = tessel.sub %x, %mean : (tensor<1x3x224x224xf32>, tensor<1x3x1x1xf32>) -> ...
    %1 = tessel.div %0, %std : ...
    %y = tessel.conv %1, %w, %b {pads = array<i64: 0, 0, 0, 0>, ...}
    // becomes
    %y = tessel.conv %x, %w_folded, %b_folded {...}
    ```
  }];
}

def TesselSinkProductScalesPass
    : Pass<"tessel-sink-product-scales", "func::FuncOp"> {
  let summary = "Moves a scalar scale of a matmul operand to its result";
  let description = [{
    `matmul(x * c, y)` and `matmul(x / c, y)` (or the same on `y`), with `c`
    an f32 constant holding one finite, non-zero value, become
    `matmul(x, y) * c` and `matmul(x, y) / c`; with both operands scaled,
    both scales move. Attention scales its queries
    by `1 / sqrt(d)` this way; after the move the scale is the product's
    elementwise consumer, which its register tiles run (one kernel fewer
    per attention layer), instead of a pass of its own over the queries. A
    QDQ model's product of two dequantized 8-bit activations (attention's
    scores and values) then multiplies their centred integers, whose sums
    f32 holds exactly below 2^24 (K * 255 * 255 < 2^24 for K <= 258): the
    sums an integer runtime computes.

    The result is the same up to rounding (the scale applies to the sums
    instead of to each term), so this is a pass with its own switch
    (`--disable=sink-product-scales`), not a canonicalization. It applies
    when the scaling op has no other user, does not broadcast `x` (its
    result has `x`'s type) and everything is f32.

    ```mlir
    %q = tessel.div %x, %c : (tensor<4x128x32xf32>, tensor<f32>) -> tensor<4x128x32xf32>
    %s = tessel.matmul %q, %k : ...
    // becomes
    %p = tessel.matmul %x, %k : ...
    %s = tessel.div %p, %c : ...
    ```
  }];
}

def TesselIntegerProductsPass
    : Pass<"tessel-integer-products", "func::FuncOp"> {
  let summary = "Runs a matmul or convolution of dequantized 8-bit values as an i32 product";
  let description = [{
    A quantized model in ONNX's QDQ form (and Tessel's import of
    DequantizeLinear) multiplies dequantized values:
    `matmul((cast(a) - za) * sa, (cast(w) - zw) * sw)`, `a` an 8-bit
    activation and `w` 8-bit constant weights (or their f32 conversion,
    folded: a constant of integers in [-128, 127]). The zero points and `sa`
    hold one value; `sw` holds one, or one per column of the weights (ONNX's
    per-axis quantization along the output channels). Such a product becomes
    `cast<f32>(matmul(cast<i32>(a) - za, cast<i32>(w - zw))) * sa * sw`: an
    i32 product of 8-bit values (which tessel-narrow-integer-products gives
    VNNI's 8-bit kernel) with the scales in its epilogue. A Gemm's
    transposed weights are transposed here; its alpha and bias follow the
    product. Weights quantized again as if they were an activation
    (onnxruntime's quantizer does so to weights an exporter shared between
    layers through an Identity) are computed here into their 8-bit
    constant first; centred, such weights may span [-127, 128], and are then
    stored negated (the product is negated back, exactly).

    An ungrouped 2-D `conv` of such values (weights `[F, C, KH, KW]`, one
    scale or one per filter, `[F, 1, 1, 1]`) becomes the i32 convolution of
    the 8-bit values (the input centred by its zero point, padded with 0 as
    before), then the scales per filter (`[F, 1, 1]`) and its bias (an int32
    bias dequantized, evaluated here once to f32). tessel-assign-layouts
    runs it channels last, where the CPU code generator makes it a product
    of its gathered windows on the same kernel.

    The integer sum is exact where the f32 one rounds, so the result is what
    an integer runtime computes (onnxruntime's QLinearMatMul and
    QLinearConv), not bit for bit the f32 product. A product stays in f32
    when its sum could overflow i32, when both operands are activations,
    when an operand is not a dequantized 8-bit value while the other is one,
    for a grouped (depthwise) convolution, and with `integer-kernel=false`
    (the pipeline's choice on a target that has no 8-bit product kernel,
    SSE only: there the f32 kernels are faster than integer loops); each
    such product gets a `float-quantized-product` remark with the reason
    (the compile report lists them). A product or convolution left in f32
    reads its dequantized constant weights as an f32 constant computed here,
    once, with the run time's f32 arithmetic, instead of dequantizing them
    on every run. `--disable=integer-products` switches it off.

    ```mlir
    %a = tessel.cast %q to f32 : tensor<4x8xui8> -> tensor<4x8xf32>
    %c = tessel.sub %a, %za : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %x = tessel.mul %c, %sa : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %w = tessel.mul %wint, %sw : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %y = tessel.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // becomes
    %p = tessel.matmul %ai32, %wi32 : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
    %f = tessel.cast %p to f32 : tensor<4x16xi32> -> tensor<4x16xf32>
    %y = tessel.mul (tessel.mul %f, %sa), %sw
    ```
  }];
  let options = [
    Option<"integerKernel", "integer-kernel", "bool", /*default=*/"true",
           "The target has an 8-bit dot-product kernel (VNNI); without one "
           "every product of dequantized values stays f32 (with a remark)">,
  ];
}

def TesselLowPrecisionProductsPass
    : Pass<"tessel-low-precision-products", "func::FuncOp"> {
  let summary = "Runs matmuls and convolutions with constant weights on 16-bit floats";
  let description = [{
    `--precision=bf16|fp16`: a product whose right-hand side is constant
    weights, an ungrouped 2-D `conv`, a `matmul` or a `gemm` (not
    transposing its left-hand side), multiplies `element` (bf16 or f16)
    operands and sums in f32. The weights become a constant of that type
    (rounded to nearest even, here, once), the activation is cast to it
    before the product, and the product's result (16 bits: the activations
    between products are stored in 16 bits) is cast back to f32, where the
    bias, a Gemm's alpha and beta * C, and every other op (normalisations,
    softmax, reductions, elementwise) compute as before. tessel-to-linalg
    sums 16-bit products in f32; the CPU code generator runs bf16 ones on
    AVX512-BF16's `vdpbf16ps` or AMX-BF16 tiles, and f16 ones on
    AVX512-FP16's `vfmadd231ph`, summing blocks of up to 64 reduction steps
    (32 per f16 lane) in f16 and the blocks in f32
    (`include/tessel/Codegen/CPU/F16Blocks.h`).

    Products of two activations (attention's) and grouped (depthwise)
    convolutions stay f32, as does every product with
    `product-kernel=false` (the pipeline's choice on a target without a
    16-bit kernel faster than its FP32 FMA: without AVX512-FP16 for f16;
    without AVX512-BF16 or AMX-BF16 for bf16, or whose `vdpbf16ps` does
    fewer multiply-adds per cycle than its FP32 FMA and has no AMX-BF16:
    there 16-bit operands would only slow the products down). With bf16 and
    `whole-amx-tiles` (Intel's Sapphire and Emerald Rapids: AMX-BF16 tiles,
    and a `vdpbf16ps` at half the FMA's rate) every product that AMX tiles
    do not cover (`include/tessel/Codegen/CPU/AmxTiles.h`: a convolution's
    reduction is its KH * KW * C taps, ResNet's 7 x 7 stem over 3 channels
    147) stays f32; with f16, every product whose columns are not in 16s
    or whose reduction (a convolution's taps padded to the kernel's blocks)
    is not in 8s, and every one with a weight beyond f16's range. Each gets
    a `full-precision-product` remark with the reason, and each product
    moved to 16 bits a `low-precision-product` remark (the compile report
    lists both).

    ```mlir
    %y = tessel.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // becomes, with element=bf16
    %xb = tessel.cast %x to bf16 : tensor<4x8xf32> -> tensor<4x8xbf16>
    %p = tessel.matmul %xb, %wb : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
    %y = tessel.cast %p to f32 : tensor<4x16xbf16> -> tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"element", "element", "std::string", /*default=*/"\"bf16\"",
           "The products' element type: bf16 or f16">,
    Option<"mode", "mode", "std::string", /*default=*/"\"apply\"",
           "apply (the products move), or simulate (each product moved gets "
           "an entry argument precision_mask_<k>, tensor<1xf32>, that "
           "chooses at run time between its low-precision result (1) and "
           "the f32 one (0): --accuracy-budget's search build)">,
    ListOption<"keep", "keep", "std::string",
               "The model nodes whose products stay f32 (--keep-fp32, or "
               "--accuracy-budget's choice); a name that is no product's "
               "node is an error">,
    Option<"productKernel", "product-kernel", "bool", /*default=*/"true",
           "The target has a product kernel for `element` faster than its "
           "FP32 FMA (bf16: AVX512-BF16, AMX-BF16; f16: AVX512-FP16); "
           "without one every product stays f32 (with a remark)">,
    Option<"wholeAmxTiles", "whole-amx-tiles", "bool", /*default=*/"false",
           "bf16: the target's only such kernel is AMX-BF16 tiles (its "
           "vdpbf16ps is slower than its FP32 FMA): only products that are "
           "whole tiles (rows in tiles of 5 to 16, columns in 16s, the "
           "reduction in 32s) move to bf16, the others stay f32 (with a "
           "remark)">,
  ];
}

def TesselQuantizeProductsPass
    : Pass<"tessel-quantize-products", "func::FuncOp"> {
  let summary = "Quantizes the operands of products to int8 (post-training quantization)";
  let description = [{
    The graph side of `tessel-compile --quantize=int8`. Its candidates, in
    walk order: the f32 activation operand of each ungrouped 2-D `conv` with
    constant weights, each `matmul` with a constant `[K, N]` right-hand side
    and each `gemm` with a constant `B` (not `trans_a`); one per distinct
    value.

    With `mode=instrument` the function also returns each candidate (result
    `tessel.name = "calibration_<i>"`): the driver compiles and runs that
    model on the calibration samples and derives one scale and zero point
    per candidate from what it saw. With `mode=apply` (`scales` and
    `zero-points` given, one per candidate) every reader of a candidate
    but the function's results reads it quantized to uint8 and dequantized
    again (the QuantizeLinear / DequantizeLinear pattern onnxruntime's QDQ
    models hold: the producer then writes 8-bit values, which a residual
    add reads too), and the products' weights become symmetric int8, one
    scale per output channel (`max |w| / 127`), dequantized. `tessel-integer-products` then
    runs them as integer products, as it runs a pre-quantized QDQ model.
    Run it on the same graph in every mode (the driver runs the same passes
    before it), so that the candidates are the same.

    `keep` names model nodes whose products stay f32 (`--keep-fp32`, or the
    choice of `--accuracy-budget`): their weights stay f32 and they read
    their activation unquantized; an activation that no quantized product
    reads is not quantized at all. Each gets a `full-precision-product`
    remark.

    `mode=simulate` (the accuracy budget's search) builds one model in
    which each candidate product `k` is quantized or not at run time: an
    entry argument `precision_mask_<k>` (`tensor<1xf32>`, 1 quantizes; arg
    attributes `tessel.nodes`, `tessel.multiply_adds`) blends the
    activation it reads, `x + m * (qdq(x) - x)`, and adds
    `m * product(x', dequantized(W) - W)` to its result; the activation's
    other readers read it blended by the largest mask of its products.
    Everything computes in f32: with every mask 0 the model is the f32
    model, and with a mask 1 the product sees the values the quantized one
    would, up to f32 rounding.

    ```mlir
    %y = tessel.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    // mode=apply scales=0.5 zero-points=3:
    %q = tessel.cast (clip(round(%x / 0.5) + 3, 0, 255)) to ui8
    %d = (tessel.cast %q to f32 - 3) * 0.5
    %y = tessel.matmul %d, (tessel.cast %wq to f32) * %sw
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"apply\"",
           "instrument (return the candidates), apply (quantize them) or "
           "simulate (choose at run time, in f32)">,
    ListOption<"scales", "scales", "double",
               "apply: one activation scale per candidate, in walk order">,
    ListOption<"zeroPoints", "zero-points", "int64_t",
               "apply: one uint8 zero point per candidate">,
    ListOption<"keep", "keep", "std::string",
               "apply: the model nodes whose products stay f32">,
  ];
}

def TesselFoldRequantizationScalesPass
    : Pass<"tessel-fold-requantization-scales", "func::FuncOp"> {
  let summary = "Folds a requantization's division into the scales of the integers it quantizes";
  let description = [{
    A quantization divides by its scale: `round(x / c)`. When `x` is
    integers made real again, `(cast<f32>(p) * a + b) / c` with constant
    `a` and `b` (an integer product's scales and bias,
    tessel-integer-products' epilogue; or a dequantized 8-bit value,
    `(cast<f32>(q) - z) * a`), and `c` one positive constant, the division
    becomes part of the constants: `cast<f32>(p) * (a / c) + b / c`. ReLUs
    between the multiplication and the division stay (they commute with a
    positive scale). Each quotient is computed in double and rounded once
    to f32.

    An integer runtime requantizes this way (onnxruntime's QLinearConv
    multiplies by `a_scale * w_scale / y_scale`). The result is the same up
    to rounding, which moves a quantized value by one step only when the
    quotient falls within an ulp of a rounding tie; so it is a pass with
    its own switch (`--disable=fold-requantization-scales`). A division of
    values that are not scaled integers (a quantization of an f32
    activation) keeps its division, as ONNX's QuantizeLinear defines it.
    It applies when each op of the chain has one user and no operand but
    the constants broadcasts.

    ```mlir
    %f = tessel.cast %p to f32 : tensor<4x16xi32> -> tensor<4x16xf32>
    %s = tessel.mul %f, %a : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %r = tessel.relu %s : tensor<4x16xf32>
    %q = tessel.div %r, %c : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    // becomes (%ac = %a / %c)
    %s = tessel.mul %f, %ac : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %q = tessel.relu %s : tensor<4x16xf32>
    ```
  }];
}

def TesselFoldActivationClipsPass
    : Pass<"tessel-fold-activation-clips", "func::FuncOp"> {
  let summary = "Merges a ReLU and a Clip applied one after the other";
  let description = [{
    Two clamps in a row are one clamp: `clip(relu(x), a, b)` with `a >= 0`
    is `clip(x, a, b)`, and `relu(clip(x, a, b))` is
    `clip(x, max(a, 0), max(b, 0))` (a missing `a` reads as 0); `relu(relu(x))`
    is `relu(x)`. The result is exact (NaN stays NaN either way), one
    elementwise op fewer runs, and a convolution's epilogue holds one op
    instead of two. Exporters write such pairs when a module's activation
    (ReLU) is followed by a quantization-friendly ReLU6 (`Clip(0, 6)`).

    It applies only when the inner op has no other user. Written as the
    worked example of docs/writing-a-pass.md; `--disable=fold-activation-clips`
    switches it off.

    ```mlir
    %r = tessel.relu %x : tensor<1x8xf32>
    %y = tessel.clip %r {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8xf32>
    // becomes
    %y = tessel.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8xf32>
    ```
  }];
}

def TesselExposeNodeOutputsPass
    : Pass<"tessel-expose-node-outputs", "func::FuncOp"> {
  let summary = "Returns every model node's output too (tessel-compile --debug-outputs)";
  let description = [{
    For comparing two compilations of one model layer by layer
    (`tessel-compare`): the entry function (`tessel.entry`) also returns the
    output of each model node that is still computed at this point, in
    program order, named `debug:<node>` (`debug:<node>:<i>` for a node's
    result `i > 0`). A node is known by its ONNX name in the op's location.
    An op that absorbed others (a conv with its folded batch norm) computes
    the last one's output and is named after all of them, the last last
    (`debug:conv1+bn1`). When several ops carry one node's name (a product
    and the casts around it), the last one's result is the node's output.

    Only floating-point tensors are returned: integer tensors are shapes,
    indices or quantized values, which a cosine does not compare. Constants,
    a QDQ model's QuantizeLinear and DequantizeLinear (plumbing between
    layers), values the function already returns, and ops inside regions
    are left out. The model's outputs are those of the build without this
    pass, bit for bit, except in a pre-quantized QDQ model: there a returned
    node output keeps its requantization from folding into the integer
    product (ResNet-18's logits then differ by a cosine of 6e-5).

    The pipeline runs it after the folds that merge nodes (batch norm,
    clips, scales, quantization), so that the nodes compared are those the
    normal build computes, and before layouts and fusion: the returned
    values have the model's layout, and fusion keeps them as kernel outputs.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tessel.entry} {
      %r = tessel.relu %x : tensor<4xf32> loc(fused<"Relu">["r"])
      %y = tessel.neg %r : tensor<4xf32> loc(fused<"Neg">["n"])
      return %y : tensor<4xf32>
    }
    // becomes
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32> {tessel.name = "debug:r"})
      ...
      return %y, %r : tensor<4xf32>, tensor<4xf32>
    ```
  }];
}

def TesselFormFusedRegionsPass
    : Pass<"tessel-form-fused-regions", "func::FuncOp"> {
  let summary = "Groups ops that run as one kernel into tessel.fused regions";
  let description = [{
    Decides fusion on the graph. Each group of two or more ops moves into a
    `tessel.fused` region (at its last op, yielding what is used outside);
    lowering to linalg marks the ops a region became with its group
    (`tessel.fusion_group`), and the code generators fuse ops of one group
    only. An op in no region is a group of its own (a softmax's or layer
    norm's parts still make one kernel). Groups, in this order:

    - `attention`: MatMul -> scale -> (mask add) -> Softmax -> MatMul over
      two or more heads, with the transposes of q, k and v and the one
      after the value product: from the value product, every transpose,
      elementwise op, softmax and product it reads whose users are all in
      the block (reshapes and slices end it).
    - `elementwise`: chains of elementwise ops (and gathers) from a
      consumer, through producers used only in the chain and read whole
      (a producer read broadcast would run once per broadcast element).
      A conversion of 8-bit integers to a wider type that a product or
      convolution reads (maybe minus a zero point) takes no producer: the
      kernel that computes the 8-bit value stores it narrow, and the
      product reads it narrow (tessel-narrow-integer-products).
    - `conv`, `product`: a convolution, MatMul or Gemm joins the chain of
      its one elementwise user (its bias, activation, residual add),
      possibly through a reshape that only adds or drops unit dimensions,
      or the one chain all its users are in (SiLU's Sigmoid and Mul both
      read it); one per chain, the first in program order. A convolution also takes
      the add of a constant that only it reads (the shift a folded input
      normaliser leaves before a padded convolution, which its kernel adds
      as it reads).
    - `layout`: a transpose and the elementwise ops it reads that no anchor
      took (loose ops, and whole `elementwise` chains), through producers
      used only in the group (the cast of an image's pixels and the shift
      of a folded normaliser in front of its HWC -> CHW transpose): one
      loop nest reads the source and writes the permuted result. It comes after
      `conv` and `product`, so that an epilogue a layout conversion reads
      stays the convolution's.
    - `rows`: from a row op (a softmax, layer norm or keep-dims reduction
      over the innermost dimension), an elementwise op or a chain no product
      took, every row op, elementwise op and untaken chain used only in the
      group that its reader reads whole, one element per row, or as a row
      op's input: a layer norm written as ReduceMean, Sub, Pow, Sqrt and
      Div, or two layer norms in a row. Kept when it holds a row op.

    Groups grow to a fixed point: a producer with two users joins once both
    are in.

    Ops keep their locations, and the region's location fuses them all.

    ```mlir
    %y = tessel.conv %x, %w, %b {...} : ...
    %z = tessel.relu %y : tensor<1x64x56x56xf32>
    // becomes
    %z = tessel.fused "conv" -> tensor<1x64x56x56xf32> {
      %y = tessel.conv %x, %w, %b {...} : ...
      %r = tessel.relu %y : tensor<1x64x56x56xf32>
      tessel.yield %r : tensor<1x64x56x56xf32>
    }
    ```
  }];
}

def TesselDropZeroChannelsPass
    : Pass<"tessel-drop-zero-channels", "ModuleOp"> {
  let summary = "Removes conv output channels whose weights and bias are all zero";
  let description = [{
    Structured-pruned models zero whole output channels of a convolution.
    Such a channel is 0 everywhere, so when it only feeds another
    convolution (directly or through activations that map 0 to 0: `relu`,
    `leaky_relu`, `hard_swish`, `clip` whose range holds 0), the producer
    need not compute it and the consumer need not read it: the producer
    loses those output channels and the consumer the matching input
    channels. Padding is zeros, so for finite inputs the result is exactly
    the same (an Inf or NaN input would have made the zero channel NaN; the
    consumer's weights for a dropped channel must be finite).

    It applies when the producer's weights (and bias) are f32 constants, its
    `group` is 1, every value on the way has one user, and the consumer is a
    `group = 1` convolution with constant weights. A channel that feeds
    anything else (a residual add, a concat, an output) stays. A
    `dropped-channels` remark (category `tessel`) counts the channels removed
    (`tessel-compile --report` shows it as `graph.dropped_channels`).

    `channel-multiple`: when a producer's channel count is a multiple of it,
    only a multiple of it is removed, so the count stays one (the CPU
    convolution kernels tile filters by whole vectors; tessel-compile sets
    it to the target's f32 vector width). Zero channels beyond that stay.
  }];
  let options = [
    Option<"channelMultiple", "channel-multiple", "int64_t", /*default=*/"1",
           "remove channels in multiples of this">,
  ];
}

def TesselAssignLayoutsPass
    : Pass<"tessel-assign-layouts", "ModuleOp"> {
  let summary = "Runs 2-D convolutions and pooling on channels-last (NHWC) activations";
  let description = [{
    Every 2-D f32 `conv`, `max_pool`, `avg_pool` and `global_average_pool`
    in `#tessel.layout<nchw>` that the CPU kernels run channels last becomes
    the same op in `#tessel.layout<nhwc>` between a transpose of its input
    to NHWC and one of its result back to NCHW. Those kernels: a pointwise
    convolution (1x1, stride 1, unpadded, ungrouped: a product); a
    convolution with constant weights whose filters per group (depthwise:
    all its filters) fill vectors of `vector-width` f32 (or, with 16, half
    vectors); pooling whose channels do; any global average. The others
    (other integer types, 12 filters per group, run-time weights) keep
    NCHW, with the conversions around them: channels last they would be
    scalar loops. An ungrouped i32 `conv` of 8-bit values (cast, maybe minus
    a zero point; `tessel-integer-products`, ConvInteger, QLinearConv) with
    constant weights goes channels last too, where it runs as a product of
    its gathered windows on the 8-bit dot-product kernel, and so does an
    ungrouped bf16 or f16 `conv` with constant weights
    (`tessel-low-precision-products`), on the bf16 or f16 kernel. With
    `integer-only` (tessel-compile's default layout), only a module that
    holds such a convolution (8-bit, bf16 or f16) goes channels last, all
    of it then (a quantized model's f32 depthwise convolutions and pooling would
    otherwise sit between transposes); other modules keep their layout. The
    transposes then sink through what follows: elementwise ops of one
    operand (activations, `clip`, math, `cast`), broadcasting binary ops
    (`add`, `sub`, `mul`, `div`, `min`, `max`, `prelu`) whose operands are
    transposed alike or constant (a constant is transposed the other way,
    at compile time), and `concat` (on the permuted axis). A transpose that
    meets its inverse in front of the next layer folds away; one that only
    moves unit dimensions (after `global_average_pool`) becomes a reshape.
    What is left converts layouts at the graph's edges, or in front of an op
    no transpose passes (a reshape of a whole feature map, a softmax over
    channels).

    A `layout-conversions` remark (category `tessel`) counts the NCHW<->NHWC
    transposes left: `edges` (reading a graph input, or only feeding the
    results) and `inside` (`tessel-compile --report` shows them as
    `graph.layout_conversions`). Convolution weights keep `[OC, C / group,
    KH, KW]`: the kernels pack them at compile time.

    ```mlir
    %y = tessel.conv %x, %w ... : (tensor<1x3x8x8xf32>, ...) -> tensor<1x4x8x8xf32>
    %r = tessel.relu %y : tensor<1x4x8x8xf32>
    // becomes
    %t = tessel.transpose %x {perm = array<i64: 0, 2, 3, 1>} ...
    %y = tessel.conv %t, %w {layout = #tessel.layout<nhwc>, ...} ... -> tensor<1x8x8x4xf32>
    %r = tessel.relu %y : tensor<1x8x8x4xf32>
    %o = tessel.transpose %r {perm = array<i64: 0, 3, 1, 2>} ...
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 elements per vector register of the target (tessel-compile "
           "sets it)">,
    Option<"integerOnly", "integer-only", "bool", /*default=*/"false",
           "Only a module holding a convolution of 8-bit values (whose "
           "kernel exists only channels last) goes channels last; others "
           "keep their layout (tessel-compile's default --layout=nchw)">,
  ];
}

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
