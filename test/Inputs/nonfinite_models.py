#!/usr/bin/env python3
"""Single-op models fed NaN, +Inf and -Inf among finite values, with
onnxruntime references: non-finite inputs must propagate as onnxruntime
propagates them, and never crash.

Writes, into --out, for each case <name>: <name>.onnx, <name>.input_<i>.npy
and <name>.expected_0.npy (computed by onnxruntime, not by Tessel).

MaxPool is the exception: onnxruntime skips a NaN in a window (its running
maximum starts at -inf and `x > max` is false for NaN), while Tessel, like
PyTorch's max_pool2d, propagates it. Its case has infinities only, and
max_pool.nan_input_0.npy (a NaN in the first window) is written for a check
that the NaN comes out.

Usage: nonfinite_models.py --out DIR
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import helper

F = onnx.TensorProto.FLOAT
# name, op, attributes, input shapes, output shape
CASES = [
    ("add", "Add", {}, [(2, 8), (2, 8)], (2, 8)),
    ("exp", "Exp", {}, [(2, 8)], (2, 8)),
    ("relu", "Relu", {}, [(2, 8)], (2, 8)),
    ("max_pool", "MaxPool", {"kernel_shape": [2, 2]}, [(1, 1, 4, 4)], (1, 1, 3, 3)),
    ("reduce_max", "ReduceMax", {"axes": [1], "keepdims": 0}, [(4, 4)], (4,)),
    ("sigmoid", "Sigmoid", {}, [(2, 8)], (2, 8)),
    ("tanh", "Tanh", {}, [(2, 8)], (2, 8)),
    ("softmax", "Softmax", {"axis": -1}, [(4, 4)], (4, 4)),
    ("matmul", "MatMul", {}, [(4, 4), (4, 4)], (4, 4)),
    ("reduce_sum", "ReduceSum", {"keepdims": 0}, [(4, 4), None], (4,)),
    ("average_pool", "AveragePool", {"kernel_shape": [2, 2]},
     [(1, 1, 4, 4)], (1, 1, 3, 3)),
    ("conv", "Conv", {}, [(1, 1, 4, 4), (1, 1, 2, 2)], (1, 1, 3, 3)),
]


def nonfinite(rng, shape, specials=(np.nan, np.inf, -np.inf)):
    """Finite values with `specials` sprinkled in (each once)."""
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    picks = rng.permutation(flat.size)[:len(specials)]
    flat[picks] = specials
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(7)
    for name, op, attrs, shapes, out_shape in CASES:
        inputs, initializers, feeds = [], [], {}
        for i, shape in enumerate(shapes):
            if shape is None:  # ReduceSum's axes: a constant [1]
                initializers.append(helper.make_tensor(f"x{i}", onnx.TensorProto.INT64,
                                                       [1], [1]))
                continue
            inputs.append(helper.make_tensor_value_info(f"x{i}", F, shape))
            feeds[f"x{i}"] = (nonfinite(rng, shape, (np.inf, -np.inf, np.inf))
                              if op == "MaxPool" else nonfinite(rng, shape))
        node = helper.make_node(op, [f"x{i}" for i in range(len(shapes))], ["y"],
                                name=name, **attrs)
        graph = helper.make_graph([node], name, inputs,
                                  [helper.make_tensor_value_info("y", F, out_shape)],
                                  initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        path = os.path.join(args.out, f"{name}.onnx")
        onnx.save(model, path)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        (expected,) = session.run(None, feeds)
        for i, value in enumerate(feeds.values()):
            np.save(os.path.join(args.out, f"{name}.input_{i}.npy"), value)
        np.save(os.path.join(args.out, f"{name}.expected_0.npy"), expected)
        if op == "MaxPool":
            x = next(iter(feeds.values())).copy()
            x[0, 0, 0, 0] = np.nan
            np.save(os.path.join(args.out, f"{name}.nan_input_0.npy"), x)


if __name__ == "__main__":
    main()
