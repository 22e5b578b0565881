#!/usr/bin/env python3
"""Builds the end-to-end test models with onnx.helper, and their references.

For each model it writes, into --out:
  <name>.onnx                the model (seeded random weights)
  <name>.input_<i>.npy       inputs
  <name>.expected_<i>.npy    outputs computed by onnxruntime, not by Tessel

Usage: models.py {mlp,cnn,cnn_bn,parallel,stem_cnn,activation_clips,...} --out DIR
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def mlp(rng):
    """784-512-256-10 shaped down: Gemm + Relu twice, then Gemm."""
    sizes = [64, 48, 32, 10]
    nodes, inits = [], []
    prev = "x"
    for i in range(3):
        w = rng.standard_normal((sizes[i + 1], sizes[i])) / np.sqrt(sizes[i])
        b = rng.standard_normal(sizes[i + 1]) * 0.1
        inits += [_init(f"fc{i}.weight", w), _init(f"fc{i}.bias", b)]
        out = f"fc{i}_out"
        nodes.append(helper.make_node("Gemm", [prev, f"fc{i}.weight", f"fc{i}.bias"],
                                      [out], name=f"fc{i}", transB=1))
        prev = out
        if i < 2:
            nodes.append(helper.make_node("Relu", [prev], [f"relu{i}_out"], name=f"relu{i}"))
            prev = f"relu{i}_out"
    nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, sizes[0]])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [4, sizes[-1]])],
        inits)
    inputs = [rng.standard_normal((4, sizes[0])).astype(np.float32)]
    return graph, inputs


def _small_cnn(rng, name, dtype, channels, classes, size):
    """Conv, Relu, MaxPool, Conv (strided, padded), Relu, GlobalAveragePool,
    Flatten, Gemm, Softmax on [2, 3, size, size] inputs, in `dtype` (numpy
    float32 or float16: the inputs, the weights and every op)."""
    c1, c2 = channels
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16

    def init(name, array):
        return numpy_helper.from_array(np.asarray(array, dtype=dtype), name)
    inits = [
        init("conv1.weight", rng.standard_normal((c1, 3, 3, 3)) * 0.3),
        init("conv1.bias", rng.standard_normal(c1) * 0.1),
        init("conv2.weight", rng.standard_normal((c2, c1, 3, 3)) * 0.2),
        init("conv2.bias", rng.standard_normal(c2) * 0.1),
        init("fc.weight", rng.standard_normal((classes, c2)) * 0.5),
        init("fc.bias", rng.standard_normal(classes) * 0.1),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2",
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", elem, [2, 3, size, size])],
        [helper.make_tensor_value_info("probs", elem, [2, classes])],
        inits)
    inputs = [rng.standard_normal((2, 3, size, size)).astype(dtype)]
    return graph, inputs


def cnn(rng):
    """_small_cnn in float32: 8 and 16 filters, 10 classes, 16 x 16."""
    return _small_cnn(rng, "cnn", np.float32, (8, 16), 10, 16)


def cnn_bn(rng):
    """Conv (no bias) -> BatchNormalization -> Relu -> Conv (bias, padded)
    -> BatchNormalization -> GlobalAveragePool -> Flatten -> Gemm ->
    BatchNormalization (rank 2), as exporters that keep BatchNorm emit."""
    def bn(prefix, channels):
        return [
            _init(f"{prefix}.scale", rng.uniform(0.5, 1.5, channels)),
            _init(f"{prefix}.bias", rng.standard_normal(channels) * 0.1),
            _init(f"{prefix}.mean", rng.standard_normal(channels) * 0.1),
            _init(f"{prefix}.var", rng.uniform(0.5, 2.0, channels)),
        ]
    inits = [
        _init("conv1.weight", rng.standard_normal((8, 3, 3, 3)) * 0.3),
        *bn("bn1", 8),
        _init("conv2.weight", rng.standard_normal((16, 8, 3, 3)) * 0.2),
        _init("conv2.bias", rng.standard_normal(16) * 0.1),
        *bn("bn2", 16),
        _init("fc.weight", rng.standard_normal((10, 16)) * 0.5),
        _init("fc.bias", rng.standard_normal(10) * 0.1),
        *bn("bn3", 10),
    ]
    def bn_node(name, x, y):
        return helper.make_node("BatchNormalization",
                                [x, f"{name}.scale", f"{name}.bias", f"{name}.mean",
                                 f"{name}.var"], [y], name=name, epsilon=1e-3)
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight"], ["c1"], name="conv1"),
        bn_node("bn1", "c1", "b1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2",
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        bn_node("bn2", "c2", "b2"),
        helper.make_node("GlobalAveragePool", ["b2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["fc"], name="fc",
                         transB=1),
        bn_node("bn3", "fc", "logits"),
    ]
    graph = helper.make_graph(
        nodes, "cnn_bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 10])],
        inits)
    inputs = [rng.standard_normal((2, 3, 16, 16)).astype(np.float32)]
    return graph, inputs


def _stem_cnn(rng, normalizer):
    """A 7x7 stride-2 stem Conv padded by 3 (ResNet's), Relu, a padded 3x3
    Conv, GlobalAveragePool, Flatten and Gemm on [0, 1) pixels; with
    `normalizer`, (x - mean) / std per channel in front (ImageNet's values),
    as exporters write the input normalisation."""
    inits = [
        _init("conv1.weight", rng.standard_normal((16, 3, 7, 7)) * 0.2),
        _init("conv1.bias", rng.standard_normal(16) * 0.1),
        _init("conv2.weight", rng.standard_normal((16, 16, 3, 3)) * 0.2),
        _init("conv2.bias", rng.standard_normal(16) * 0.1),
        _init("fc.weight", rng.standard_normal((10, 16)) * 0.5),
        _init("fc.bias", rng.standard_normal(10) * 0.1),
    ]
    nodes = []
    first = "x"
    if normalizer:
        inits += [_init("mean", np.array([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)),
                  _init("std", np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1))]
        nodes += [helper.make_node("Sub", ["x", "mean"], ["centred"], name="sub_mean"),
                  helper.make_node("Div", ["centred", "std"], ["normalized"], name="div_std")]
        first = "normalized"
    nodes += [
        helper.make_node("Conv", [first, "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         strides=[2, 2], pads=[3, 3, 3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["c2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "stem_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
        inits)
    inputs = [rng.uniform(0.0, 1.0, (1, 3, 32, 32)).astype(np.float32)]
    return graph, inputs


def stem_cnn(rng):
    return _stem_cnn(rng, normalizer=False)


def stem_cnn_normalized(rng):
    return _stem_cnn(rng, normalizer=True)


def mlp_normalized(rng):
    """x * scale + shift per feature (Mul, Add) in front of Gemm (transB),
    Relu, Gemm."""
    inits = [
        _init("scale", rng.uniform(0.5, 2.0, 16)),
        _init("shift", rng.standard_normal(16)),
        _init("fc1.weight", rng.standard_normal((32, 16)) * 0.3),
        _init("fc1.bias", rng.standard_normal(32) * 0.1),
        _init("fc2.weight", rng.standard_normal((32, 4)) * 0.3),
    ]
    nodes = [
        helper.make_node("Mul", ["x", "scale"], ["scaled"], name="mul_scale"),
        helper.make_node("Add", ["scaled", "shift"], ["normalized"], name="add_shift"),
        helper.make_node("Gemm", ["normalized", "fc1.weight", "fc1.bias"], ["h"],
                         name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "fc2.weight"], ["y"], name="fc2"),
    ]
    graph = helper.make_graph(
        nodes, "mlp_normalized",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        inits)
    inputs = [rng.standard_normal((3, 16)).astype(np.float32)]
    return graph, inputs


def parallel(rng):
    """Kernels large enough (>= 2^17 multiply-adds or elements) for
    tessel-parallelize-loops to split: a 3x3 conv (filter tiles), a 1x1 conv
    on a large plane (a product), a max pool, a MatMul, and a
    matrix-vector product of exactly 2^17 multiply-adds (split over its
    weight panels); and an elementwise add too small to split (2^16
    elements)."""
    inits = [
        _init("conv1.weight", rng.standard_normal((32, 32, 3, 3)) * 0.1),
        _init("conv1.bias", rng.standard_normal(32) * 0.1),
        _init("conv2.weight", rng.standard_normal((64, 32, 1, 1)) * 0.2),
        _init("conv2.bias", rng.standard_normal(64) * 0.1),
        _init("w", rng.standard_normal((512, 512)) * 0.05),
        _init("w2", rng.standard_normal((512, 256)) * 0.05),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2"),
        helper.make_node("MaxPool", ["c2"], ["p"], name="pool", kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["a", "a"], ["aa"], name="add"),
        helper.make_node("MatMul", ["aa", "w"], ["m"], name="matmul"),
        helper.make_node("MatMul", ["v", "w2"], ["mv"], name="matvec"),
    ]
    graph = helper.make_graph(
        nodes, "parallel",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 128, 128]),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, [128, 512]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 512])],
        [helper.make_tensor_value_info("p", TensorProto.FLOAT, [1, 64, 64, 64]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [128, 512]),
         helper.make_tensor_value_info("mv", TensorProto.FLOAT, [1, 256])],
        inits)
    inputs = [rng.standard_normal((1, 32, 128, 128)).astype(np.float32),
              rng.standard_normal((128, 512)).astype(np.float32),
              rng.standard_normal((1, 512)).astype(np.float32)]
    return graph, inputs


def _matmul_bias(rng, name, m, k, n):
    """y = a @ b + bias, with a [m, k] and b [k, n] run-time inputs."""
    inits = [_init("bias", rng.standard_normal(n) * 0.1)]
    nodes = [
        helper.make_node("MatMul", ["a", "b"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "bias"], ["y"], name="bias_add"),
    ]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        inits)
    inputs = [(rng.standard_normal((m, k)) * 0.1).astype(np.float32),
              (rng.standard_normal((k, n)) * 0.1).astype(np.float32)]
    return graph, inputs


def blocked_matmul(rng):
    """A MatMul of two run-time operands over 2 MiB ([384, 1024] x
    [1024, 320]), then a bias Add: its whole reduction fits one cache
    block, so the bias and the product run in the register tiles, and each
    column of 64 of the right-hand side is copied into a contiguous buffer
    once (5 columns, split across threads)."""
    return _matmul_bias(rng, "blocked_matmul", 384, 1024, 320)


def blocked_matmul_split_k(rng):
    """A MatMul of two run-time operands over 2 MiB with a reduction longer
    than one cache block ([128, 2048] x [2048, 192]), then a bias Add: the
    reduction runs in two blocks of 1024, so the output tiles start from
    the bias once and accumulate across both blocks."""
    return _matmul_bias(rng, "blocked_matmul_split_k", 128, 2048, 192)


def attention(rng, seq=16, model=32, heads=4, name="attention"):
    """Multi-head self-attention as torch exports it: one QKV MatMul and
    bias, Slices to q, k, v, Reshapes to [seq, heads, d] and Transposes to
    [heads, seq, d] (k to [heads, d, seq]), the scores MatMul, a Div by
    sqrt(d), an additive mask shared by all heads, Softmax, the value
    MatMul, the Transpose back to [seq, heads, d], a Reshape and the output
    MatMul."""
    head = model // heads
    mask = np.triu(np.full((seq, seq), -1e4), 1)
    inits = [
        _init("w_qkv", rng.standard_normal((model, 3 * model)) / np.sqrt(model)),
        _init("b_qkv", rng.standard_normal(3 * model) * 0.1),
        _init("w_out", rng.standard_normal((model, model)) / np.sqrt(model)),
        _init("scale", np.sqrt(head)),
        _init("mask", mask),
        numpy_helper.from_array(np.array([seq, heads, head], np.int64), "shape_3d"),
        numpy_helper.from_array(np.array([seq, model], np.int64), "shape_2d"),
        numpy_helper.from_array(np.array([1], np.int64), "axis"),
    ]
    for i, name in enumerate("qkv"):
        inits += [
            numpy_helper.from_array(np.array([i * model], np.int64), f"{name}_start"),
            numpy_helper.from_array(np.array([(i + 1) * model], np.int64), f"{name}_end"),
        ]
    nodes = [
        helper.make_node("MatMul", ["x", "w_qkv"], ["qkv0"], name="qkv_proj"),
        helper.make_node("Add", ["qkv0", "b_qkv"], ["qkv"], name="qkv_bias"),
    ]
    perms = {"q": [1, 0, 2], "k": [1, 2, 0], "v": [1, 0, 2]}
    for name in "qkv":
        nodes += [
            helper.make_node("Slice", ["qkv", f"{name}_start", f"{name}_end", "axis"],
                             [f"{name}_flat"], name=f"{name}_slice"),
            helper.make_node("Reshape", [f"{name}_flat", "shape_3d"], [f"{name}_3d"],
                             name=f"{name}_reshape"),
            helper.make_node("Transpose", [f"{name}_3d"], [f"{name}_heads"],
                             name=f"{name}_transpose", perm=perms[name]),
        ]
    nodes += [
        helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores"], name="scores"),
        helper.make_node("Div", ["scores", "scale"], ["scaled"], name="scale"),
        helper.make_node("Add", ["scaled", "mask"], ["masked"], name="mask_add"),
        helper.make_node("Softmax", ["masked"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v_heads"], ["context"], name="context"),
        helper.make_node("Transpose", ["context"], ["context_seq"], name="context_transpose",
                         perm=[1, 0, 2]),
        helper.make_node("Reshape", ["context_seq", "shape_2d"], ["context_2d"],
                         name="context_reshape"),
        helper.make_node("MatMul", ["context_2d", "w_out"], ["y"], name="out_proj"),
    ]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, model])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, model])],
        inits)
    inputs = [rng.standard_normal((seq, model)).astype(np.float32)]
    return graph, inputs


def attention_50(rng):
    """The attention block at ViT-B/32's sequence, 50 tokens (49 patches and
    the class token), 2 heads of 32: no whole vector divides the scores'
    50 columns."""
    return attention(rng, seq=50, model=64, heads=2, name="attention_50")


def encoder_ffn(rng):
    """An encoder layer's second half as opset < 17 exporters write it: the
    residual Add, LayerNorm decomposed into ReduceMean, Sub, Pow, ReduceMean,
    Add epsilon, Sqrt, Div, Mul by gamma, Add beta; then MatMul, bias Add,
    GELU in the Erf form (Div by sqrt 2, Erf, Add 1, Mul, Mul by 0.5),
    MatMul, bias Add and the residual Add of the normalised input."""
    seq, model, hidden = 16, 32, 64
    inits = [
        _init("gamma", 1 + 0.1 * rng.standard_normal(model)),
        _init("beta", 0.1 * rng.standard_normal(model)),
        _init("two", 2.0),
        _init("eps", 1e-5),
        _init("w1", rng.standard_normal((model, hidden)) / np.sqrt(model)),
        _init("b1", 0.1 * rng.standard_normal(hidden)),
        _init("sqrt2", np.sqrt(2.0)),
        _init("one", 1.0),
        _init("half", 0.5),
        _init("w2", rng.standard_normal((hidden, model)) / np.sqrt(hidden)),
        _init("b2", 0.1 * rng.standard_normal(model)),
    ]
    nodes = [
        helper.make_node("Add", ["x", "r"], ["h"], name="residual"),
        helper.make_node("ReduceMean", ["h"], ["mean"], name="ln_mean", axes=[-1]),
        helper.make_node("Sub", ["h", "mean"], ["d"], name="ln_sub"),
        helper.make_node("Pow", ["d", "two"], ["sq"], name="ln_pow"),
        helper.make_node("ReduceMean", ["sq"], ["var"], name="ln_var", axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["var_eps"], name="ln_eps"),
        helper.make_node("Sqrt", ["var_eps"], ["std"], name="ln_sqrt"),
        helper.make_node("Div", ["d", "std"], ["n"], name="ln_div"),
        helper.make_node("Mul", ["n", "gamma"], ["ng"], name="ln_gamma"),
        helper.make_node("Add", ["ng", "beta"], ["ln"], name="ln_beta"),
        helper.make_node("MatMul", ["ln", "w1"], ["p1"], name="ffn1"),
        helper.make_node("Add", ["p1", "b1"], ["a1"], name="ffn1_bias"),
        helper.make_node("Div", ["a1", "sqrt2"], ["g0"], name="gelu_div"),
        helper.make_node("Erf", ["g0"], ["g1"], name="gelu_erf"),
        helper.make_node("Add", ["g1", "one"], ["g2"], name="gelu_add"),
        helper.make_node("Mul", ["a1", "g2"], ["g3"], name="gelu_mul"),
        helper.make_node("Mul", ["g3", "half"], ["g"], name="gelu_half"),
        helper.make_node("MatMul", ["g", "w2"], ["p2"], name="ffn2"),
        helper.make_node("Add", ["p2", "b2"], ["a2"], name="ffn2_bias"),
        helper.make_node("Add", ["a2", "ln"], ["y"], name="ffn_residual"),
    ]
    graph = helper.make_graph(
        nodes, "encoder_ffn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, model]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [seq, model])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, model])],
        inits)
    inputs = [rng.standard_normal((seq, model)).astype(np.float32),
              rng.standard_normal((seq, model)).astype(np.float32)]
    return graph, inputs


def pointwise_7x7(rng):
    """A late MobileNetV2 block's shape: a 1x1 Conv 96 -> 192 on a 7x7 map
    with bias and ReLU6 (Clip 0..6); its weights are packed in panels of
    filters, each read again by every tile of the 49 pixels."""
    cin, cout = 96, 192
    w = rng.standard_normal((cout, cin, 1, 1)) / np.sqrt(cin)
    b = rng.standard_normal(cout) * 0.1
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"], name="conv",
                              kernel_shape=[1, 1]),
             helper.make_node("Clip", ["conv", "lo", "hi"], ["y"], name="relu6")]
    graph = helper.make_graph(
        nodes, "pointwise_7x7",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, 7, 7])],
        [_init("w", w), _init("b", b), _init("lo", np.array(0.0)),
         _init("hi", np.array(6.0))])
    inputs = [rng.standard_normal((1, cin, 7, 7)).astype(np.float32)]
    return graph, inputs


def channel_chunks(rng):
    """Convolutions over many channels that run in chunks of channels
    (ResNet-50's late bottlenecks, ResNet-18's 28 x 28 layers): 1x1 384 ->
    64 on 14 x 14 with bias, a residual Add and Relu (AVX2: chunks of 128;
    196 positions, 4 left after the tiles of 6), 1x1 320 -> 64 on 7 x 7 with
    bias only (chunks of 80; 49 positions, 1 left), and a padded 3x3 128 ->
    32 on 26 x 26 with bias (chunks of 16; rows of 6 tiles of 4 columns and
    one of 2)."""
    wa = rng.standard_normal((64, 384, 1, 1)) / np.sqrt(384)
    wb = rng.standard_normal((64, 320, 1, 1)) / np.sqrt(320)
    wc = rng.standard_normal((32, 128, 3, 3)) / np.sqrt(128 * 9)
    nodes = [
        helper.make_node("Conv", ["x", "wa", "ba"], ["ca"], name="conv_a"),
        helper.make_node("Add", ["ca", "r"], ["sa"], name="residual"),
        helper.make_node("Relu", ["sa"], ["ya"], name="relu"),
        helper.make_node("Conv", ["z", "wb", "bb"], ["yb"], name="conv_b"),
        helper.make_node("Conv", ["u", "wc", "bc"], ["yc"], name="conv_c",
                         pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "channel_chunks",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 384, 14, 14]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 64, 14, 14]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 320, 7, 7]),
         helper.make_tensor_value_info("u", TensorProto.FLOAT, [1, 128, 26, 26])],
        [helper.make_tensor_value_info("ya", TensorProto.FLOAT, [1, 64, 14, 14]),
         helper.make_tensor_value_info("yb", TensorProto.FLOAT, [1, 64, 7, 7]),
         helper.make_tensor_value_info("yc", TensorProto.FLOAT, [1, 32, 26, 26])],
        [_init("wa", wa), _init("ba", rng.standard_normal(64) * 0.1),
         _init("wb", wb), _init("bb", rng.standard_normal(64) * 0.1),
         _init("wc", wc), _init("bc", rng.standard_normal(32) * 0.1)])
    inputs = [rng.standard_normal((1, 384, 14, 14)).astype(np.float32),
              rng.standard_normal((1, 64, 14, 14)).astype(np.float32),
              rng.standard_normal((1, 320, 7, 7)).astype(np.float32),
              rng.standard_normal((1, 128, 26, 26)).astype(np.float32)]
    return graph, inputs


def position_groups(rng):
    """Convolutions whose few blocks of filters are split into groups of
    positions for the threads (AVX2): a padded 3x3 128 -> 64 on 14 x 14 in
    channel chunks (2 whole blocks of 24 filters in 4 groups of rows each,
    and the overlapping last block, from filter 40, in 8 groups), a padded
    3x3 128 -> 40 on 20 x 20 (2 whole blocks of 16 in 4 groups; rows past
    14 loop, the edge rows in the last group), and a 1x1 384 -> 56 on
    14 x 14 in chunks (7 blocks of 8 in 2 groups of tiles of positions
    each)."""
    specs = [("a", 128, 64, 14, 3), ("b", 128, 40, 20, 3), ("c", 384, 56, 14, 1)]
    nodes, inputs_info, outputs_info, inits, inputs = [], [], [], [], []
    for n, cin, cout, hw, k in specs:
        inits += [_init("w" + n, rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)),
                  _init("b" + n, rng.standard_normal(cout) * 0.1)]
        nodes.append(helper.make_node("Conv", ["x" + n, "w" + n, "b" + n], ["y" + n],
                                      name="conv_" + n, pads=[k // 2] * 4))
        inputs_info.append(helper.make_tensor_value_info("x" + n, TensorProto.FLOAT, [1, cin, hw, hw]))
        outputs_info.append(helper.make_tensor_value_info("y" + n, TensorProto.FLOAT, [1, cout, hw, hw]))
        inputs.append(rng.standard_normal((1, cin, hw, hw)).astype(np.float32))
    graph = helper.make_graph(nodes, "position_groups", inputs_info, outputs_info, inits)
    return graph, inputs


def overlapping_rows(rng):
    """Products whose rows 6 does not divide, each starting from its bias:
    a 1x1 convolution 16 -> 26 on 8 x 8 with a residual Add and Relu (26
    filters x 64 positions), and a Gemm [62, 64] x [64, 32] + bias (62
    rows). Their register tiles take 6 rows, the last one overlapping the
    one before it (tessel/Codegen/CPU/Transforms.h, overlappingRows)."""
    w = rng.standard_normal((26, 16, 1, 1)) / 4
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
        helper.make_node("Add", ["c", "r"], ["s"], name="residual"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
        helper.make_node("Gemm", ["a", "g", "gb"], ["z"], name="gemm"),
    ]
    graph = helper.make_graph(
        nodes, "overlapping_rows",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 26, 8, 8]),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, [62, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 26, 8, 8]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [62, 32])],
        [_init("w", w), _init("b", rng.standard_normal(26) * 0.1),
         _init("g", rng.standard_normal((64, 32)) / 8),
         _init("gb", rng.standard_normal(32) * 0.1)])
    inputs = [rng.standard_normal((1, 16, 8, 8)).astype(np.float32),
              rng.standard_normal((1, 26, 8, 8)).astype(np.float32),
              rng.standard_normal((62, 64)).astype(np.float32)]
    return graph, inputs


def overlapping_filters(rng):
    """A 1x1 convolution 16 -> 248 on 13 x 13 with a residual Add and Relu:
    31 vectors of 8 filters (AVX2) over 169 positions, which 2-vector
    blocks do not divide: the last block of filters overlaps the one before
    it (lib/Codegen/CPU/ConvolutionOverFilters.h, filtersOverlapLast)."""
    w = rng.standard_normal((248, 16, 1, 1)) / 4
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
        helper.make_node("Add", ["c", "r"], ["s"], name="residual"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes, "overlapping_filters",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 13, 13]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 248, 13, 13])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 248, 13, 13])],
        [_init("w", w), _init("b", rng.standard_normal(248) * 0.1)])
    inputs = [rng.standard_normal((1, 16, 13, 13)).astype(np.float32),
              rng.standard_normal((1, 248, 13, 13)).astype(np.float32)]
    return graph, inputs


def activation_clips(rng):
    """Conv, Relu, Clip(0, 6) (a ReLU6 after a ReLU), Conv 1x1, Clip(-1, 2),
    Relu: the pairs tessel-fold-activation-clips merges."""
    inits = [
        _init("conv1.weight", rng.standard_normal((8, 3, 3, 3)) * 0.8),
        _init("conv1.bias", rng.standard_normal(8) * 0.5),
        _init("conv2.weight", rng.standard_normal((4, 8, 1, 1)) * 0.5),
        _init("conv2.bias", rng.standard_normal(4) * 0.5),
        _init("zero", 0.0), _init("six", 6.0), _init("minus_one", -1.0), _init("two", 2.0),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Clip", ["r1", "zero", "six"], ["k1"], name="relu6"),
        helper.make_node("Conv", ["k1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2"),
        helper.make_node("Clip", ["c2", "minus_one", "two"], ["k2"], name="clip2"),
        helper.make_node("Relu", ["k2"], ["y"], name="relu2"),
    ]
    graph = helper.make_graph(
        nodes, "activation_clips",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        inits)
    inputs = [(rng.standard_normal((1, 3, 8, 8)) * 3).astype(np.float32)]
    return graph, inputs


def silu_cnn(rng):
    """SiLU (x * sigmoid(x), EfficientNet's activation) after a padded 3x3
    Conv (over filters), a 1x1 Conv on a 16 x 16 plane (a product) and a
    Gemm: each product reads its result twice, in the Sigmoid and the Mul,
    and runs the SiLU as its epilogue."""
    inits = [
        _init("conv1.weight", rng.standard_normal((32, 3, 3, 3)) * 0.5),
        _init("conv1.bias", rng.standard_normal(32) * 0.5),
        _init("conv2.weight", rng.standard_normal((16, 32, 1, 1)) * 0.3),
        _init("conv2.bias", rng.standard_normal(16) * 0.5),
        _init("fc.weight", rng.standard_normal((10, 16 * 16 * 16)) * 0.05),
        _init("fc.bias", rng.standard_normal(10) * 0.5),
        numpy_helper.from_array(np.array([1, -1], dtype=np.int64), "shape"),
    ]

    def silu(x, name):
        return [helper.make_node("Sigmoid", [x], [name + ".s"], name=name + ".sigmoid"),
                helper.make_node("Mul", [x, name + ".s"], [name], name=name + ".mul")]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        *silu("c1", "a1"),
        helper.make_node("Conv", ["a1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2"),
        *silu("c2", "a2"),
        helper.make_node("Reshape", ["a2", "shape"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["g"], name="fc", transB=1),
        *silu("g", "y"),
    ]
    graph = helper.make_graph(
        nodes, "silu_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        inits)
    inputs = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32)]
    return graph, inputs


def batched_cnn(rng):
    """A CNN at batch 3 on 64 x 64 images: padded 3x3 Convs with ReLU (the
    first's output 1.5 MB for the batch), MaxPool, a residual block with a
    1x1 shortcut, a 1x1 Conv over a 32 x 32 plane (a product of each
    image), then a 3x3 Conv of 64 filters on a 4 x 4 plane (its weights
    outweigh an image's activations), global average pooling and a Gemm.
    tessel-sample-loops runs the layers up to the 1x1 Conv one image at a
    time, and the last Conv and the Gemm on the whole batch."""
    def conv(name, cin, cout, k):
        return [_init(name + ".weight", rng.standard_normal((cout, cin, k, k))
                      * (1.0 / np.sqrt(cin * k * k))),
                _init(name + ".bias", rng.standard_normal(cout) * 0.1)]
    inits = (conv("c1", 3, 32, 3) + conv("c2", 32, 32, 3) + conv("c3", 32, 32, 3)
             + conv("short", 32, 32, 1) + conv("c4", 32, 64, 1) + conv("c5", 64, 64, 3)
             + [_init("fc.weight", rng.standard_normal((10, 64)) * 0.1),
                _init("fc.bias", rng.standard_normal(10) * 0.1)])

    def node(op, inputs, output, **attrs):
        return helper.make_node(op, inputs, [output], name=output, **attrs)

    def conv_node(name, x, y, pad):
        return node("Conv", [x, name + ".weight", name + ".bias"], y, pads=[pad] * 4)
    nodes = [
        conv_node("c1", "x", "c1", 1), node("Relu", ["c1"], "r1"),
        node("MaxPool", ["r1"], "p1", kernel_shape=[2, 2], strides=[2, 2]),
        conv_node("c2", "p1", "c2", 1), node("Relu", ["c2"], "r2"),
        conv_node("c3", "r2", "c3", 1), conv_node("short", "p1", "s", 0),
        node("Add", ["c3", "s"], "sum"), node("Relu", ["sum"], "r3"),
        conv_node("c4", "r3", "c4", 0), node("Relu", ["c4"], "r4"),
        node("MaxPool", ["r4"], "p2", kernel_shape=[8, 8], strides=[8, 8]),
        conv_node("c5", "p2", "c5", 1), node("Relu", ["c5"], "r5"),
        node("GlobalAveragePool", ["r5"], "g"), node("Flatten", ["g"], "f"),
        node("Gemm", ["f", "fc.weight", "fc.bias"], "y", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "batched_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3, 64, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 10])],
        inits)
    return graph, [rng.standard_normal((3, 3, 64, 64)).astype(np.float32)]


def dynamic_cnn(rng):
    """batched_cnn with a symbolic batch: its input [N, 3, 64, 64], its
    output [N, 10]; the sample is a batch of 13 (tessel-compile
    --dim-range compiles one artifact for every batch; each row of the
    expected output is that sample's alone)."""
    graph, _ = batched_cnn(rng)
    graph.name = "dynamic_cnn"
    for value in (graph.input[0], graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    return graph, [rng.standard_normal((13, 3, 64, 64)).astype(np.float32)]


def padded_encoder(rng):
    """A batch-first encoder layer with a symbolic batch N and sequence S
    (tessel-compile --dim-range S=... runs it padded): a position table
    sliced to S (Shape, Gather, Slice), two-head self-attention (Reshapes
    with 0 to keep N and S), a residual, LayerNormalization, and the first
    token of each sequence as a second output."""
    model, heads, table = 16, 2, 32
    head = model // heads
    inits = [
        _init("positions", rng.standard_normal((table, model)) * 0.5),
        _init("w_qkv", rng.standard_normal((model, 3 * model)) / np.sqrt(model)),
        _init("b_qkv", rng.standard_normal(3 * model) * 0.1),
        _init("w_out", rng.standard_normal((model, model)) / np.sqrt(model)),
        _init("scale", 1 / np.sqrt(head)),
        _init("gamma", 1 + rng.standard_normal(model) * 0.1),
        _init("beta", rng.standard_normal(model) * 0.1),
        numpy_helper.from_array(np.array(1, np.int64), "one"),
        numpy_helper.from_array(np.array([0], np.int64), "zero_1d"),
        numpy_helper.from_array(np.array([1], np.int64), "one_1d"),
        numpy_helper.from_array(np.array([0, 0, heads, head], np.int64),
                                "split_heads"),
        numpy_helper.from_array(np.array([0, 0, model], np.int64), "merge_heads"),
        numpy_helper.from_array(np.array([2], np.int64), "last_axis"),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
        helper.make_node("Gather", ["x_shape", "one"], ["seq"], name="seq", axis=0),
        helper.make_node("Unsqueeze", ["seq", "zero_1d"], ["seq_1d"], name="seq_1d"),
        helper.make_node("Slice", ["positions", "zero_1d", "seq_1d", "zero_1d"],
                         ["table"], name="table"),
        helper.make_node("Add", ["x", "table"], ["h"], name="embed"),
        helper.make_node("MatMul", ["h", "w_qkv"], ["qkv0"], name="qkv_proj"),
        helper.make_node("Add", ["qkv0", "b_qkv"], ["qkv"], name="qkv_bias"),
    ]
    perms = {"q": [0, 2, 1, 3], "k": [0, 2, 3, 1], "v": [0, 2, 1, 3]}
    for i, name in enumerate("qkv"):
        inits += [
            numpy_helper.from_array(np.array([i * model], np.int64), f"{name}_start"),
            numpy_helper.from_array(np.array([(i + 1) * model], np.int64),
                                    f"{name}_end"),
        ]
        nodes += [
            helper.make_node("Slice", ["qkv", f"{name}_start", f"{name}_end",
                                       "last_axis"], [f"{name}_flat"],
                             name=f"{name}_slice"),
            helper.make_node("Reshape", [f"{name}_flat", "split_heads"],
                             [f"{name}_4d"], name=f"{name}_reshape"),
            helper.make_node("Transpose", [f"{name}_4d"], [f"{name}_heads"],
                             name=f"{name}_transpose", perm=perms[name]),
        ]
    nodes += [
        helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores"], name="scores"),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="scale"),
        helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "v_heads"], ["context"], name="context"),
        helper.make_node("Transpose", ["context"], ["context_seq"],
                         name="context_transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["context_seq", "merge_heads"], ["merged"],
                         name="merge"),
        helper.make_node("MatMul", ["merged", "w_out"], ["projected"], name="out_proj"),
        helper.make_node("Add", ["projected", "h"], ["residual"], name="residual"),
        helper.make_node("LayerNormalization", ["residual", "gamma", "beta"], ["y"],
                         name="norm", axis=-1),
        helper.make_node("Slice", ["y", "zero_1d", "one_1d", "one_1d"], ["first"],
                         name="first_token"),
    ]
    graph = helper.make_graph(
        nodes, "padded_encoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "S", model])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "S", model]),
         helper.make_tensor_value_info("first", TensorProto.FLOAT, ["N", 1, model])],
        inits)
    return graph, [rng.standard_normal((2, 5, model)).astype(np.float32)]


def _matmul_integer(rng, name, m, k, n, a_type, a_zero_point=None):
    """MatMulInteger: a run-time [m, k] 8-bit input (minus a_zero_point, if
    given) times a constant int8 [k, n], an int32 result (what 8-bit
    dot-product kernels, VNNI's vpdpbusd, run)."""
    w = rng.integers(-128, 128, size=(k, n)).astype(np.int8)
    inputs, inits = ["a", "w"], [numpy_helper.from_array(w, "w")]
    if a_zero_point is not None:
        inputs.append("a_zero_point")
        inits.append(numpy_helper.from_array(np.array(a_zero_point, dtype=np.uint8),
                                             "a_zero_point"))
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", inputs, ["c"], name="matmul_integer")],
        name,
        [helper.make_tensor_value_info("a", a_type, [m, k])],
        [helper.make_tensor_value_info("c", TensorProto.INT32, [m, n])],
        inits)
    if a_type == TensorProto.UINT8:
        a = rng.integers(0, 256, size=(m, k)).astype(np.uint8)
    else:
        a = rng.integers(-128, 128, size=(m, k)).astype(np.int8)
    return graph, [a]


def matmul_integer(rng):
    """int8 x int8 -> int32, [64, 256] x [256, 64]."""
    return _matmul_integer(rng, "matmul_integer", 64, 256, 64, TensorProto.INT8)


def matmul_integer_u8(rng):
    """uint8 x int8 -> int32 (onnxruntime's U8S8), [12, 128] x [128, 40]: 40
    columns are 2.5 AVX-512 vectors."""
    return _matmul_integer(rng, "matmul_integer_u8", 12, 128, 40, TensorProto.UINT8)


def matmul_integer_zp(rng):
    """uint8 activations with a_zero_point 131 (onnxruntime's asymmetric
    U8S8) x int8 [256, 64]."""
    return _matmul_integer(rng, "matmul_integer_zp", 16, 256, 64, TensorProto.UINT8,
                           a_zero_point=131)


def qlinear_matmul(rng):
    """QLinearMatMul as onnxruntime's quantizer writes it: uint8 activations
    (scale 0.02, zero point 128), symmetric int8 weights [256, 64] (zero
    point 0), a uint8 result (scale 0.5, zero point 120)."""
    m, k, n = 16, 256, 64
    w = rng.integers(-127, 128, size=(k, n)).astype(np.int8)
    params = [("a_scale", np.float32(0.02)), ("a_zero_point", np.uint8(128)),
              ("w_scale", np.float32(0.01)), ("w_zero_point", np.int8(0)),
              ("y_scale", np.float32(0.5)), ("y_zero_point", np.uint8(120))]
    inits = [numpy_helper.from_array(w, "w")] + [
        numpy_helper.from_array(np.array(v), name) for name, v in params]
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zero_point", "w", "w_scale",
                                            "w_zero_point", "y_scale", "y_zero_point"],
                          ["y"], name="qlinear_matmul")],
        "qlinear_matmul",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [m, n])],
        inits)
    return graph, [rng.integers(0, 256, size=(m, k)).astype(np.uint8)]


def _quantize_dequantize(nodes, inits, name, scale, zero_point):
    """QuantizeLinear then DequantizeLinear of `name` (uint8, per tensor), as
    onnxruntime's QDQ quantizer writes around every activation."""
    inits += [numpy_helper.from_array(np.array(scale, dtype=np.float32), name + "_scale"),
              numpy_helper.from_array(np.array(zero_point, dtype=np.uint8), name + "_zp")]
    nodes += [helper.make_node("QuantizeLinear", [name, name + "_scale", name + "_zp"],
                               [name + "_q"], name=name + "_QuantizeLinear"),
              helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                               [name + "_dq"], name=name + "_DequantizeLinear")]
    return name + "_dq"


def _dequantized_weights(nodes, inits, name, w, axis):
    """Symmetric int8 weights, one scale per entry of `axis` (onnxruntime's
    per-channel S8), dequantized by a DequantizeLinear node."""
    other = tuple(d for d in range(w.ndim) if d != axis)
    scale = (np.abs(w).max(axis=other) / 127.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    inits += [numpy_helper.from_array(q, name + "_q"),
              numpy_helper.from_array(scale, name + "_scale"),
              numpy_helper.from_array(np.zeros(scale.shape, np.int8), name + "_zp")]
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                                  [name + "_dq"], axis=axis, name=name + "_DequantizeLinear"))
    return name + "_dq", scale


def _dequantized_bias(nodes, inits, name, b, scale):
    """An int32 bias with scale input_scale * weight_scale, as onnxruntime
    quantizes a bias."""
    q = np.round(b / scale).astype(np.int32)
    inits += [numpy_helper.from_array(q, name + "_q"),
              numpy_helper.from_array(scale.astype(np.float32), name + "_scale"),
              numpy_helper.from_array(np.zeros(scale.shape, np.int32), name + "_zp")]
    nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                                  [name + "_dq"], axis=0, name=name + "_DequantizeLinear"))
    return name + "_dq"


def qdq_mlp(rng):
    """A QDQ model as onnxruntime's quantize_static writes it (U8S8,
    per-channel): x -> Q/DQ -> MatMul (int8 weights [64, 32], per column)
    -> Q/DQ -> Add (int32 bias) -> Relu -> Q/DQ -> Gemm (trans_b, weights
    [16, 32] per row, bias) -> Q/DQ."""
    nodes, inits = [], []
    x = _quantize_dequantize(nodes, inits, "x", 0.03, 128)
    w1, s1 = _dequantized_weights(nodes, inits, "w1", rng.standard_normal((64, 32)) * 0.2, 1)
    nodes.append(helper.make_node("MatMul", [x, w1], ["h"], name="matmul"))
    h = _quantize_dequantize(nodes, inits, "h", 0.04, 120)
    b1 = _dequantized_bias(nodes, inits, "b1", rng.standard_normal(32) * 0.1, 0.03 * s1)
    nodes.append(helper.make_node("Add", [h, b1], ["hb"], name="add"))
    hb = _quantize_dequantize(nodes, inits, "hb", 0.04, 125)
    nodes.append(helper.make_node("Relu", [hb], ["r"], name="relu"))
    r = _quantize_dequantize(nodes, inits, "r", 0.02, 0)
    w2, s2 = _dequantized_weights(nodes, inits, "w2", rng.standard_normal((16, 32)) * 0.2, 0)
    b2 = _dequantized_bias(nodes, inits, "b2", rng.standard_normal(16) * 0.1, 0.02 * s2)
    nodes.append(helper.make_node("Gemm", [r, w2, b2], ["y0"], transB=1, name="gemm"))
    y = _quantize_dequantize(nodes, inits, "y0", 0.01, 128)
    nodes.append(helper.make_node("Identity", [y], ["y"], name="output"))
    graph = helper.make_graph(nodes, "qdq_mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 16])],
                              inits)
    return graph, [rng.standard_normal((8, 64)).astype(np.float32)]


def qdq_batched(rng):
    """A transformer's projection in QDQ form: [2, 16, 64] activations (two
    batches of a sequence) times per-column int8 weights [64, 48]."""
    nodes, inits = [], []
    x = _quantize_dequantize(nodes, inits, "x", 0.03, 128)
    w, _ = _dequantized_weights(nodes, inits, "w", rng.standard_normal((64, 48)) * 0.2, 1)
    nodes.append(helper.make_node("MatMul", [x, w], ["p"], name="projection"))
    p = _quantize_dequantize(nodes, inits, "p", 0.05, 128)
    nodes.append(helper.make_node("Identity", [p], ["y"], name="output"))
    graph = helper.make_graph(nodes, "qdq_batched",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 48])],
                              inits)
    return graph, [rng.standard_normal((2, 16, 64)).astype(np.float32)]


def qdq_cnn(rng):
    """Convolutions in QDQ form (U8S8, weights per output channel, int32
    biases): a 3x3 padded convolution -> Relu -> a pointwise one -> a 3x3
    stride-2 one, each with its activations quantized and dequantized."""
    nodes, inits = [], []
    x = _quantize_dequantize(nodes, inits, "x", 0.03, 128)
    shapes = [("c1", (16, 8, 3, 3), 1, 1), ("c2", (24, 16, 1, 1), 0, 1),
              ("c3", (32, 24, 3, 3), 1, 2)]
    scale, zp = 0.03, 128
    for i, (name, shape, pad, stride) in enumerate(shapes):
        w, sw = _dequantized_weights(nodes, inits, name + "_w",
                                     rng.standard_normal(shape) * 0.2, 0)
        b = _dequantized_bias(nodes, inits, name + "_b",
                              rng.standard_normal(shape[0]) * 0.1, scale * sw)
        nodes.append(helper.make_node("Conv", [x, w, b], [name], pads=[pad] * 4,
                                      strides=[stride] * 2, name=name))
        scale, zp = 0.05, 120
        x = _quantize_dequantize(nodes, inits, name, scale, zp)
        if i == 0:
            nodes.append(helper.make_node("Relu", [x], ["relu"], name="relu"))
            scale, zp = 0.03, 0
            x = _quantize_dequantize(nodes, inits, "relu", scale, zp)
    nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))
    graph = helper.make_graph(nodes, "qdq_cnn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 6, 6])],
                              inits)
    return graph, [rng.standard_normal((1, 8, 12, 12)).astype(np.float32)]


def _gru(rng, name, linear_before_reset):
    """A bidirectional GRU ([5 steps, batch 2, 6] -> hidden 8) with biases,
    an initial state and sequence lengths 5 and 3: Tessel computes the
    input's share of every gate for all steps in one product and, with
    linear_before_reset, the recurrent share of all three gates in one
    product per step (torch exports its GRUs so)."""
    steps, batch, size, hidden = 5, 2, 6, 8
    inits = [
        _init("w", rng.standard_normal((2, 3 * hidden, size)) * 0.3),
        _init("r", rng.standard_normal((2, 3 * hidden, hidden)) * 0.3),
        _init("b", rng.standard_normal((2, 6 * hidden)) * 0.3),
        numpy_helper.from_array(np.array([5, 3], np.int32), "lens"),
    ]
    nodes = [helper.make_node(
        "GRU", ["x", "w", "r", "b", "lens", "h0"], ["y", "yh"], name="gru",
        hidden_size=hidden, direction="bidirectional",
        linear_before_reset=linear_before_reset)]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [steps, batch, size]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT,
                                       [2, batch, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [steps, 2, batch, hidden]),
         helper.make_tensor_value_info("yh", TensorProto.FLOAT,
                                       [2, batch, hidden])],
        inits)
    inputs = [rng.standard_normal((steps, batch, size)).astype(np.float32),
              (rng.standard_normal((2, batch, hidden)) * 0.5).astype(np.float32)]
    return graph, inputs


def gru_linear_before_reset(rng):
    return _gru(rng, "gru_linear_before_reset", 1)


def gru_reset_first(rng):
    return _gru(rng, "gru_reset_first", 0)


def lstm_wide(rng):
    """An LSTM whose weights are over the 65536 elements that folding copies
    element by element (hidden 136: R is [1, 544, 136]): their gate blocks
    and reshapes still fold, so each product reads a constant."""
    steps, batch, size, hidden = 3, 1, 8, 136
    inits = [
        _init("w", rng.standard_normal((1, 4 * hidden, size)) * 0.2),
        _init("r", rng.standard_normal((1, 4 * hidden, hidden)) * 0.1),
        _init("b", rng.standard_normal((1, 8 * hidden)) * 0.2),
    ]
    nodes = [helper.make_node("LSTM", ["x", "w", "r", "b"], ["y"],
                              name="lstm", hidden_size=hidden)]
    graph = helper.make_graph(
        nodes, "lstm_wide",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [steps, batch, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [steps, 1, batch, hidden])],
        inits)
    return graph, [rng.standard_normal((steps, batch, size)).astype(np.float32)]


def lstm_long(rng):
    """A 2-layer stack of LSTMs over 20 steps (hidden 16): unrolled, each
    layer's steps are identical kernels, which tessel-outline-kernels
    compiles once, and each Y is a concat of 20 steps (one tensor.concat,
    not a chain of 20 inserts)."""
    steps, batch, size, hidden = 20, 1, 8, 16
    inits = []
    nodes = []
    x = "x"
    for layer, inputs in enumerate([size, hidden]):
        inits += [
            _init(f"w{layer}",
                  rng.standard_normal((1, 4 * hidden, inputs)) * 0.3),
            _init(f"r{layer}",
                  rng.standard_normal((1, 4 * hidden, hidden)) * 0.3),
            _init(f"b{layer}", rng.standard_normal((1, 8 * hidden)) * 0.3),
        ]
        nodes.append(helper.make_node(
            "LSTM", [x, f"w{layer}", f"r{layer}", f"b{layer}"],
            [f"y{layer}"], name=f"lstm{layer}", hidden_size=hidden))
        if layer == 0:
            nodes.append(helper.make_node("Squeeze", ["y0", "axis1"], ["x1"],
                                          name="squeeze"))
            inits.append(numpy_helper.from_array(np.array([1], np.int64),
                                                 "axis1"))
            x = "x1"
    graph = helper.make_graph(
        nodes, "lstm_long",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [steps, batch, size])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT,
                                       [steps, 1, batch, hidden])],
        inits)
    return graph, [rng.standard_normal((steps, batch, size)).astype(np.float32)]


def half_cnn(rng):
    """A model that arrives in float16 (inputs, weights, every op):
    _small_cnn with 16 and 32 filters, 16 classes, 32 x 32."""
    return _small_cnn(rng, "half_cnn", np.float16, (16, 32), 16, 32)


def half_batched_matmul(rng):
    """A batched MatMul of two float16 activations, [4, 64, 64] x [4, 64,
    64] (attention's scores, in a model that arrives in f16)."""
    f16 = TensorProto.FLOAT16
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="bmm")], "half_batched_matmul",
        [helper.make_tensor_value_info("a", f16, [4, 64, 64]),
         helper.make_tensor_value_info("b", f16, [4, 64, 64])],
        [helper.make_tensor_value_info("y", f16, [4, 64, 64])])
    inputs = [rng.standard_normal((4, 64, 64)).astype(np.float16),
              rng.standard_normal((4, 64, 64)).astype(np.float16)]
    return graph, inputs


MODELS = {"mlp": mlp, "cnn": cnn, "cnn_bn": cnn_bn, "parallel": parallel,
          "stem_cnn": stem_cnn, "stem_cnn_normalized": stem_cnn_normalized,
          "mlp_normalized": mlp_normalized, "attention": attention,
          "attention_50": attention_50,
          "blocked_matmul": blocked_matmul,
          "blocked_matmul_split_k": blocked_matmul_split_k, "encoder_ffn": encoder_ffn,
          "pointwise_7x7": pointwise_7x7, "channel_chunks": channel_chunks,
          "activation_clips": activation_clips,
          "silu_cnn": silu_cnn,
          "matmul_integer": matmul_integer, "matmul_integer_u8": matmul_integer_u8,
          "matmul_integer_zp": matmul_integer_zp, "qlinear_matmul": qlinear_matmul,
          "qdq_mlp": qdq_mlp, "qdq_batched": qdq_batched,
          "qdq_cnn": qdq_cnn,
          "gru_linear_before_reset": gru_linear_before_reset,
          "gru_reset_first": gru_reset_first, "lstm_wide": lstm_wide,
          "lstm_long": lstm_long,
          "overlapping_rows": overlapping_rows,
          "overlapping_filters": overlapping_filters,
          "position_groups": position_groups,
          "half_cnn": half_cnn, "half_batched_matmul": half_batched_matmul,
          "batched_cnn": batched_cnn, "dynamic_cnn": dynamic_cnn,
          "padded_encoder": padded_encoder}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=sorted(MODELS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    graph, inputs = MODELS[args.model](rng)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.model + ".onnx")
    onnx.save(model, path)

    import onnxruntime as ort
    options = ort.SessionOptions()
    if any(n.op_type == "QuantizeLinear" for n in graph.node):
        # onnxruntime fuses a QDQ graph into 8-bit kernels. On AVX2 without
        # VNNI (Zen 3, Haswell) they multiply u8 x s8 with vpmaddubsw, which
        # saturates each pair's sum at int16: on Zen 3 the fused qdq_cnn is
        # off by up to 6 steps in 283 of its 1152 outputs. Unfused, it runs
        # each QuantizeLinear, DequantizeLinear and float product as ONNX
        # defines them, on every host.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feeds = {i.name: a for i, a in zip(session.get_inputs(), inputs)}
    outputs = session.run(None, feeds)
    for i, a in enumerate(inputs):
        np.save(os.path.join(args.out, f"{args.model}.input_{i}.npy"), a)
    for i, a in enumerate(outputs):
        np.save(os.path.join(args.out, f"{args.model}.expected_{i}.npy"), a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
