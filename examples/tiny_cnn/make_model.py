#!/usr/bin/env python3
"""Writes the Quick start's example: a small MNIST-shaped CNN.

model.onnx    Conv 3x3 (1->8, pad 1) + Relu + MaxPool 2x2, Conv 3x3 (8->16,
              stride 2, pad 1) + Relu, GlobalAveragePool, Flatten, Gemm
              (16->10), Softmax; opset 17, seeded random weights
input.npy     one 1x1x28x28 image (a drawn ring, values in [0, 1])
expected.npy  the probabilities onnxruntime computes for it

These files are committed; rerun this script only to change the example.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)


def init(name, shape, scale):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


nodes = [
    helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "conv2.w", "conv2.b"], ["c2"], name="conv2", strides=[2, 2], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
    helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
]
inits = [init("conv1.w", (8, 1, 3, 3), 0.5), init("conv1.b", (8,), 0.1),
         init("conv2.w", (16, 8, 3, 3), 0.2), init("conv2.b", (16,), 0.1),
         init("fc.w", (10, 16), 1.0), init("fc.b", (10,), 0.1)]
graph = helper.make_graph(
    nodes, "tiny_cnn",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 28, 28])],
    [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 10])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="tessel-examples")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "model.onnx"))

yy, xx = np.mgrid[0:28, 0:28]
radius = np.hypot(yy - 13.5, xx - 13.5)
image = np.clip(1.0 - np.abs(radius - 8.0) / 2.5, 0, 1).astype(np.float32)[None, None]
np.save(os.path.join(here, "input.npy"), image)

import onnxruntime as ort  # noqa: E402  (only needed to make the reference)
session = ort.InferenceSession(os.path.join(here, "model.onnx"), providers=["CPUExecutionProvider"])
(probabilities,) = session.run(None, {"image": image})
np.save(os.path.join(here, "expected.npy"), probabilities)
print("wrote model.onnx, input.npy, expected.npy; onnxruntime says", probabilities.round(4))
