//===- TesselDataMovementOps.td - Constants and data movement -*- tablegen -*-===//
//
// Included by TesselOps.td; one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD
#define TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD

include "tessel/Dialect/Tessel/IR/TesselBase.td"
include "tessel/Dialect/Tessel/IR/TesselEnums.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tessel_ConstantOp : Tessel_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (an ONNX initializer or Constant node)";
  let description = [{
    Produces the tensor held by `value`.

    ```mlir
    %w = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tessel_ReshapeOp : Tessel_Op<"reshape", [Pure, InferTypeOpAdaptor]> {
  let summary = "Reinterprets a tensor with a static shape of the same size";
  let description = [{
    `shape` is fully resolved (no -1 or 0 entries). ONNX Reshape with a
    constant shape, Flatten, Squeeze and Unsqueeze import as this op.

    ```mlir
    %y = tessel.reshape %x {shape = array<i64: 1, 784>} : (tensor<1x1x28x28xf32>) -> tensor<1x784xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_TransposeOp : Tessel_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "Permutes dimensions: result dim i is input dim perm[i]";
  let description = [{
    ```mlir
    %y = tessel.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tessel_Tensor:$result);
  let hasFolder = 1;
  // A transpose that only moves unit dimensions is a reshape.
  let hasCanonicalizeMethod = 1;
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_ConcatOp : Tessel_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one axis";
  let description = [{
    All inputs share rank, element type and every extent except `axis`
    (non-negative).

    ```mlir
    %y = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tessel_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_IndexTensor : RankedTensorOf<[I32, I64]>;

def Tessel_GatherOp : Tessel_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "Takes slices of `input` along `axis` at `indices`";
  let description = [{
    ONNX Gather: the result shape is `input.shape[:axis] + indices.shape +
    input.shape[axis+1:]`. Negative indices count from the end. ONNX leaves
    out-of-range indices undefined; Tessel clamps them into range, so a bad
    index never reads outside the tensor.

    Canonicalization gathers before an elementwise op whose only user is the
    gather, when the op's other operands are single values and the gather
    takes no more elements than its input has: a dequantized embedding table
    (`(cast(table) - zp) * scale`, as onnxruntime's QDQ quantizer writes it)
    then dequantizes the gathered rows only, not the whole table at every
    run. The values are the same; the op runs on fewer elements.

    ```mlir
    %y = tessel.gather %emb, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<1x8xi64>) -> tensor<1x8x16xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tessel_GatherElementsOp : Tessel_Op<"gather_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Picks one element per index along `axis`";
  let description = [{
    ONNX GatherElements: `result[p] = input[p with p[axis] = indices[p]]`; the
    result has the indices' shape. Indices are clamped like `tessel.gather`.

    ```mlir
    %y = tessel.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Tessel_SliceOp : Tessel_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "A strided window: result[i] = input[starts + i * steps]";
  let description = [{
    One entry per dimension in each list; `sizes` is the result shape.
    Steps may be negative (walking backwards from `starts`), never zero. ONNX
    Slice and Split import as this op with their bounds resolved.

    ```mlir
    %y = tessel.slice %x {starts = array<i64: 0, 3>, sizes = array<i64: 2, 2>, steps = array<i64: 1, -1>}
        : (tensor<2x4xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_BroadcastToOp : Tessel_Op<"broadcast_to",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Broadcasts the input to `shape` (numpy rules)";
  let description = [{
    `shape` is the result shape: the input must broadcast to exactly it.
    ONNX Expand imports as this op, with the bidirectional broadcast of the
    input shape and Expand's shape resolved into `shape`.

    ```mlir
    %y = tessel.broadcast_to %x {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_TileOp : Tessel_Op<"tile", [Pure, InferTypeOpAdaptor]> {
  let summary = "Repeats the input `repeats[i]` times along each dimension";
  let description = [{
    ```mlir
    %y = tessel.tile %x {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
}

def Tessel_PadOp : Tessel_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Pads every dimension with a constant, a reflection or the edge";
  let description = [{
    `pads` is `[begin_0, ..., begin_n-1, end_0, ..., end_n-1]`, all >= 0.
    `mode` is `#tessel.pad_mode<constant>` (the default, with `value`),
    `reflect` (mirror without repeating the edge) or `edge` (repeat the edge).

    ```mlir
    %y = tessel.pad %x {mode = #tessel.pad_mode<reflect>, pads = array<i64: 0, 1, 0, 1>}
        : (tensor<2x3xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<Tessel_PadModeAttr,
                           "::mlir::tessel::PadMode::Constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_TriluOp : Tessel_Op<"trilu", [Pure, InferTypeOpAdaptor]> {
  let summary = "Keeps the upper or lower triangle of the last two dimensions";
  let description = [{
    ONNX Trilu: element (i, j) of each matrix is kept when `j - i >= k`
    (`upper`) or `j - i <= k` (lower), and zero otherwise. `k` is an optional
    int64 scalar operand (0 when absent); it may come from a graph input,
    since it does not change the shape.

    ```mlir
    %y = tessel.trilu %x, %k {upper = true} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Optional<RankedTensorOf<[I64]>>:$k,
                       BoolAttr:$upper);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$input (`,` $k^)? attr-dict `:` "
                       "functional-type(operands, results)";
}

def Tessel_ResizeOp : Tessel_Op<"resize", [Pure, InferTypeOpAdaptor]> {
  let summary = "Resizes a tensor by nearest, linear or cubic interpolation";
  let description = [{
    ONNX Resize (and Upsample) with the output shape resolved: the result has
    shape `sizes`; `scales` (one per dimension, > 0) is the scale the
    coordinate transformation uses (`sizes / input shape` when ONNX gave
    sizes). Each dimension is interpolated separately, the last one first.
    Output index `x` maps to the input coordinate given by
    `coordinate_transformation_mode` (a `#tessel.coordinate_mode<...>`):
    `half_pixel` (the default), `pytorch_half_pixel`, `align_corners`,
    `asymmetric`, `tf_half_pixel_for_nn` (Resize-11's `(x + 0.5) / scale`) or
    `tf_crop_and_resize` (which reads `roi`,
    `[start_0, ..., start_n-1, end_0, ..., end_n-1]` in normalised
    coordinates, and yields `extrapolation_value` outside the input).
    `mode` (a `#tessel.interpolation<...>`) `nearest` (the default) rounds the
    coordinate by `nearest_mode` (a `#tessel.nearest_mode<...>`:
    `round_prefer_floor`, the default, `round_prefer_ceil`, `floor`, `ceil`);
    `linear` and `cubic` (Keys' kernel with `cubic_coeff_a`) weigh 2 and 4
    neighbours, clamped to the edge; `exclude_outside` drops neighbours
    outside the input and renormalises the weights. Numerics follow ONNX's
    reference implementation (coordinates in f64).

    ```mlir
    %y = tessel.resize %x {mode = #tessel.interpolation<linear>,
                           scales = array<f64: 1.0, 1.0, 2.0, 2.0>,
                           sizes = array<i64: 1, 1, 4, 4>}
        : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    %z = tessel.resize %x {coordinate_transformation_mode = #tessel.coordinate_mode<asymmetric>,
                           nearest_mode = #tessel.nearest_mode<floor>,
                           scales = array<f64: 1.0, 1.0, 2.0, 2.0>,
                           sizes = array<i64: 1, 1, 4, 4>}
        : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input,
                       DenseI64ArrayAttr:$sizes,
                       DenseF64ArrayAttr:$scales,
                       DefaultValuedAttr<Tessel_InterpolationModeAttr,
                           "::mlir::tessel::InterpolationMode::Nearest">:$mode,
                       DefaultValuedAttr<Tessel_CoordinateTransformationModeAttr,
                           "::mlir::tessel::CoordinateTransformationMode::HalfPixel">:
                           $coordinate_transformation_mode,
                       DefaultValuedAttr<Tessel_NearestModeAttr,
                           "::mlir::tessel::NearestMode::RoundPreferFloor">:
                           $nearest_mode,
                       DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
                       OptionalAttr<DenseF64ArrayAttr>:$roi);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_GridSampleOp : Tessel_Op<"grid_sample",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Samples a 4-D input at the points of a grid (ONNX GridSample)";
  let description = [{
    For input `(N, C, H, W)` and grid `(N, Hout, Wout, 2)` the result is
    `(N, C, Hout, Wout)`: element `(n, c, h, w)` samples channel `c` of image
    `n` at the point `grid[n, h, w]`, whose `(x, y)` are normalised to
    `[-1, 1]` across the width and the height. `align_corners` says whether
    -1 and 1 are the centres of the corner pixels (otherwise their outer
    edges). `mode` (a `#tessel.interpolation<...>`) `linear` (the default)
    weighs the 2x2 neighbours, `cubic` the 4x4 (Keys' kernel, a = -0.75),
    `nearest` takes the nearest pixel (ties to even); `padding_mode` (a
    `#tessel.grid_padding<...>`) gives the pixels outside the input: `zeros`
    (the default), `border` (the nearest edge pixel) or `reflection`
    (mirrored at the borders). Numerics follow ONNX's reference
    implementation (coordinates rounded to f32, interpolation in f64).

    ```mlir
    %y = tessel.grid_sample %x, %grid {mode = #tessel.interpolation<cubic>,
                                       padding_mode = #tessel.grid_padding<border>}
        : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$grid,
                       DefaultValuedAttr<Tessel_InterpolationModeAttr,
                           "::mlir::tessel::InterpolationMode::Linear">:$mode,
                       DefaultValuedAttr<Tessel_GridPaddingModeAttr,
                           "::mlir::tessel::GridPaddingMode::Zeros">:$padding_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$align_corners);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grid attr-dict `:` "
                       "functional-type(operands, results)";
}

def Tessel_GatherNDOp : Tessel_Op<"gather_nd", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX GatherND: slices of `input` at index tuples";
  let description = [{
    The last dimension of `indices` (extent `m`) holds tuples that index the
    first `m` dimensions of `input` after its `batch_dims` leading batch
    dimensions, which `input` and `indices` share. The result shape is
    `indices.shape[:-1] + input.shape[batch_dims + m:]`. Negative indices
    count from the end; out-of-range ones are clamped, as in `tessel.gather`.

    ```mlir
    %y = tessel.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat =
      "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Tessel_ScatterElementsOp : Tessel_Op<"scatter_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX ScatterElements: writes updates at positions along an axis";
  let description = [{
    The result is `input` with, for every position `p` of `updates` (which
    has the shape of `indices`), the element at `p` with `p[axis]` replaced
    by `indices[p]` set to `updates[p]` (`reduction`
    `#tessel.scatter_reduction<none>`, the default), or combined with it by
    `add`, `mul`, `max` or `min`. Updates apply in row-major order, so with
    `none` the last of duplicate positions wins. Negative indices count from
    the end; out-of-range ones are clamped.

    ```mlir
    %y = tessel.scatter_elements %x, %i, %u {axis = 1 : i64,
                                             reduction = #tessel.scatter_reduction<add>}
        : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$indices,
                       Tessel_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedAttr<Tessel_ScatterReductionAttr,
                           "::mlir::tessel::ScatterReduction::None">:$reduction);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_ScatterNDOp : Tessel_Op<"scatter_nd", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX ScatterND: writes slices of updates at index tuples";
  let description = [{
    The last dimension of `indices` (extent `m`) holds tuples that index the
    first `m` dimensions of `input`; `updates` has the shape
    `indices.shape[:-1] + input.shape[m:]`. The result is `input` with each
    indexed slice set to (`reduction` `#tessel.scatter_reduction<none>`, the
    default) or combined by `add`, `mul`, `max` or `min` with its update, in
    row-major order of the tuples. Negative indices count from the end;
    out-of-range ones are clamped.

    ```mlir
    %y = tessel.scatter_nd %x, %i, %u {reduction = #tessel.scatter_reduction<max>}
        : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$input, Tessel_IndexTensor:$indices,
                       Tessel_Tensor:$updates,
                       DefaultValuedAttr<Tessel_ScatterReductionAttr,
                           "::mlir::tessel::ScatterReduction::None">:$reduction);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$input `,` $indices `,` $updates attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_OneHotOp : Tessel_Op<"one_hot", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX OneHot: one-hot encodes indices along a new axis";
  let description = [{
    The result has the shape of `indices` with a new dimension of extent
    `depth` inserted at `axis` (non-negative, at most the indices' rank).
    Element `j` along it is `values[1]` where the index equals `j` and
    `values[0]` elsewhere; `values` holds the two values [off, on]. Indices
    may be of any number type (floats are truncated); negative ones count
    from `depth`, and ones outside [-depth, depth) give an all-off row.

    ```mlir
    %y = tessel.one_hot %i, %v {axis = 1 : i64, depth = 4 : i64}
        : (tensor<3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tessel_Tensor:$indices, Tessel_Tensor:$values,
                       I64Attr:$depth, I64Attr:$axis);
  let results = (outs Tessel_Tensor:$result);
  let assemblyFormat = "$indices `,` $values attr-dict `:` "
                       "functional-type(operands, results)";
}

#endif // TESSEL_DIALECT_TESSEL_IR_TESSELDATAMOVEMENTOPS_TD
