#!/usr/bin/env python3
"""Single-node models for window and resize cases the installed ONNX suite
does not cover (grouped or cropping ConvTranspose, dilated 3-D AveragePool,
Resize with axes and keep_aspect_ratio_policy, linear Upsample), with
onnxruntime references.

Weights, scales and sizes are initializers; the one data input is random.
Writes, into --out, for each case <name>: <name>.onnx, <name>.input_0.npy and
<name>.expected_0.npy (computed by onnxruntime, not by Tessel).

Usage: window_models.py --out DIR
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper

F32 = np.float32

CASES = [
    # name, op, attributes, opset, data shape, initializers (name -> array
    # or shape of a random array), input names (data first; "" omitted)
    ("convtranspose_group", "ConvTranspose",
     dict(group=2, strides=[2, 1], pads=[1, 0, 2, 1], dilations=[1, 2],
          output_padding=[1, 0]), 17, (1, 4, 5, 4),
     {"w": (4, 3, 3, 2), "b": (6,)}, ["x", "w", "b"]),
    ("convtranspose_1d_crop", "ConvTranspose",
     dict(group=2, pads=[3, 0]), 17, (1, 4, 5), {"w": (4, 3, 2)},
     ["x", "w"]),
    ("convtranspose_3d_same_lower", "ConvTranspose",
     dict(strides=[2, 2, 1], auto_pad="SAME_LOWER"), 17, (1, 2, 3, 2, 3),
     {"w": (2, 2, 2, 3, 2)}, ["x", "w"]),
    # Zero-padded convolutions with constant weights, which the kernels
    # read unpadded (the padded taps skipped): asymmetric pads, a 7x7
    # stride-2 stem, dilation, groups, half vectors of filters (24), a
    # padding wider than the kernel reaches (border outputs are the bias
    # alone), and two images.
    ("conv_pad_asymmetric", "Conv", dict(pads=[0, 1, 2, 1]), 17,
     (1, 3, 9, 10), {"w": (16, 3, 3, 3), "b": (16,)}, ["x", "w", "b"]),
    ("conv_pad_stem", "Conv",
     dict(kernel_shape=[7, 7], strides=[2, 2], pads=[3, 3, 3, 3]), 17,
     (1, 3, 30, 22), {"w": (16, 3, 7, 7), "b": (16,)}, ["x", "w", "b"]),
    ("conv_pad_dilated", "Conv", dict(dilations=[2, 2], pads=[2, 2, 2, 2]),
     17, (2, 4, 7, 12), {"w": (32, 4, 3, 3)}, ["x", "w"]),
    ("conv_pad_grouped", "Conv", dict(group=2, strides=[2, 1],
                                      pads=[1, 1, 1, 1]), 17,
     (1, 6, 11, 8), {"w": (32, 3, 3, 3), "b": (32,)}, ["x", "w", "b"]),
    ("conv_pad_half_vectors", "Conv", dict(pads=[1, 1, 1, 1]), 17,
     (1, 8, 14, 14), {"w": (24, 8, 3, 3), "b": (24,)}, ["x", "w", "b"]),
    ("conv_pad_wide", "Conv", dict(pads=[3, 4, 3, 4]), 17, (1, 2, 5, 6),
     {"w": (16, 2, 3, 3), "b": (16,)}, ["x", "w", "b"]),
    # 1x1 convolutions with strides (ResNet's shortcuts), which run as a
    # copy of the positions they read and a stride-1 convolution: a plane
    # of one 16-lane vector after the stride (a product), and two images
    # with unequal strides and a plane of 15 (over filters).
    ("conv_1x1_stride2", "Conv", dict(strides=[2, 2]), 17, (1, 16, 8, 8),
     {"w": (32, 16, 1, 1), "b": (32,)}, ["x", "w", "b"]),
    ("conv_1x1_stride23", "Conv", dict(strides=[2, 3]), 17, (2, 8, 9, 7),
     {"w": (16, 8, 1, 1)}, ["x", "w"]),
    # Filters that end in a half vector of 16 lanes (72 = 64 + 8; a
    # classifier's 1000 as a convolution), run as two convolutions on
    # slices of the output: pointwise with a bias, and 3x3 zero-padded.
    ("conv_filter_remainder", "Conv", {}, 17, (1, 16, 5, 5),
     {"w": (72, 16, 1, 1), "b": (72,)}, ["x", "w", "b"]),
    ("conv_filter_remainder_pad", "Conv", dict(pads=[1, 1, 1, 1]), 17,
     (1, 8, 7, 7), {"w": (72, 8, 3, 3)}, ["x", "w"]),
    # Zero-padded depthwise convolutions (tiles over columns), read
    # unpadded: edge column tiles on both sides and a middle loop, stride 2
    # (a strided segment), dilation with asymmetric pads, and rows that
    # read only padding.
    ("conv_dw_pad", "Conv", dict(group=8, pads=[1, 1, 1, 1]), 17,
     (1, 8, 6, 70), {"w": (8, 1, 3, 3), "b": (8,)}, ["x", "w", "b"]),
    ("conv_dw_pad_stride2", "Conv", dict(group=8, strides=[2, 2],
                                         pads=[1, 1, 1, 1]), 17,
     (1, 8, 15, 66), {"w": (8, 1, 3, 3), "b": (8,)}, ["x", "w", "b"]),
    # A 1x1 convolution over filters at 28x28 (no product: 784 positions
    # fill no 4-vector tiles): tiles of 8 positions cross rows, stored
    # transposed into the output viewed as [N, F, H*W].
    ("conv_plane_stores", "Conv", dict(), 17,
     (1, 8, 28, 28), {"w": (32, 8, 1, 1), "b": (32,)}, ["x", "w", "b"]),
    # Stride 2 over an unpadded row of 15 columns for 8 outputs: the
    # row holds no 16-column read, so the tile reads the 15 it needs
    # (conv-epilogue.mlir's strided_tight_row checks the read; a 16-column
    # read from column -1 gave the same values, so this checks numerics
    # only).
    ("conv_dw_stride2_tight", "Conv", dict(group=4, strides=[2, 2]), 17,
     (1, 4, 5, 15), {"w": (4, 1, 1, 1), "b": (4,)}, ["x", "w", "b"]),
    # 14 output columns: a tile of 8 and one overlapping it from column 6.
    ("conv_dw_pad_stride2_narrow", "Conv", dict(group=8, strides=[2, 2],
                                                pads=[1, 1, 1, 1]), 17,
     (1, 8, 28, 28), {"w": (8, 1, 3, 3), "b": (8,)}, ["x", "w", "b"]),
    ("conv_dw_pad_dilated", "Conv", dict(group=4, dilations=[2, 2],
                                         pads=[3, 2, 1, 2]), 17,
     (2, 4, 7, 19), {"w": (8, 1, 3, 3)}, ["x", "w"]),
    ("conv_dw_pad_wide", "Conv", dict(group=3, pads=[4, 1, 4, 1]), 17,
     (1, 3, 4, 17), {"w": (3, 1, 3, 3), "b": (3,)}, ["x", "w", "b"]),
    # Max pooling over -inf padding, which the kernel reads unpadded (the
    # padded taps clamped to the nearest element of the same window): the
    # ResNet stem's 3x3 stride 2 with several column tiles, and asymmetric
    # pads on two images.
    ("maxpool_pad_stride2", "MaxPool",
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), 12,
     (1, 4, 21, 70), {}, ["x"]),
    ("maxpool_pad_asymmetric", "MaxPool",
     dict(kernel_shape=[3, 2], pads=[2, 0, 1, 1]), 12, (2, 3, 9, 40), {},
     ["x"]),
    # Output widths that no whole or half vector divides, output only
    # written (a fill's -inf or 0): vectors of 8 (or 4) columns, the last
    # overlapping the one before it. SqueezeNet's 3x3 stride-2 ceil-mode
    # pools, 27 -> 13 (its segments inside the row) and 54 -> 27 (the last
    # window past the row's end, read clamped), and a 2x2 average to 7.
    ("maxpool_ceil_13", "MaxPool",
     dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), 12,
     (1, 3, 27, 27), {}, ["x"]),
    ("maxpool_ceil_27", "MaxPool",
     dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), 12,
     (1, 2, 54, 54), {}, ["x"]),
    ("averagepool_7", "AveragePool",
     dict(kernel_shape=[2, 2], strides=[2, 2]), 19, (1, 3, 14, 14), {},
     ["x"]),
    ("averagepool_3d_dilated", "AveragePool",
     dict(kernel_shape=[2, 3, 2], strides=[1, 2, 2], dilations=[2, 1, 2],
          pads=[1, 1, 0, 0, 1, 1], count_include_pad=1), 19, (1, 2, 5, 6, 7),
     {}, ["x"]),
    ("averagepool_3d_ceil", "AveragePool",
     dict(kernel_shape=[2, 2, 3], strides=[2, 2, 2], pads=[0, 1, 1, 0, 1, 1],
          ceil_mode=1), 19, (1, 2, 5, 6, 7), {}, ["x"]),
    ("maxpool_3d_dilated_ceil", "MaxPool",
     dict(kernel_shape=[2, 2, 2], strides=[2, 1, 2], dilations=[1, 2, 1],
          ceil_mode=1), 12, (1, 2, 5, 6, 7), {}, ["x"]),
    ("resize_axes_not_larger", "Resize",
     dict(mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
     18, (1, 2, 4, 6), {"sizes": np.array([8, 9], np.int64)},
     ["x", "", "", "sizes"]),
    ("resize_nearest_3d", "Resize",
     dict(mode="nearest", coordinate_transformation_mode="asymmetric",
          nearest_mode="round_prefer_ceil"), 13, (1, 1, 3, 4, 5),
     {"scales": np.array([1, 1, 1.5, 0.5, 1.3], F32)}, ["x", "", "scales"]),
    ("upsample_linear", "Upsample", dict(mode="linear"), 9, (1, 2, 3, 3),
     {"scales": np.array([1, 1, 2, 1.5], F32)}, ["x", "scales"]),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, op, attrs, opset, shape, inits, inputs in CASES:
        x = rng.standard_normal(shape).astype(F32)
        initializers = []
        for key, value in inits.items():
            if isinstance(value, tuple):
                value = rng.standard_normal(value).astype(F32)
            initializers.append(numpy_helper.from_array(value, key))
        info = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, shape)
        out = helper.make_tensor_value_info("y", 0, None)
        node = helper.make_node(op, inputs, ["y"], name=name, **attrs)
        graph = helper.make_graph([node], name, [info], [out], initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(model, path)
        session = onnxruntime.InferenceSession(path)
        expected = session.run(None, {"x": x})[0]
        np.save(os.path.join(args.out, f"{name}.input_0.npy"), x)
        np.save(os.path.join(args.out, f"{name}.expected_0.npy"), expected)


if __name__ == "__main__":
    main()
