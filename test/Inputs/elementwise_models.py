#!/usr/bin/env python3
"""Single-op models for elementwise ops the ONNX suite installed here lacks
(Gelu from opset 20, Mish) or covers thinly, with onnxruntime references.

Writes, into --out, for each case <name>: <name>.onnx, <name>.input_<i>.npy
and <name>.expected_0.npy (computed by onnxruntime, not by Tessel).

Usage: elementwise_models.py --out DIR
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import helper

CASES = [
    # name, op, attributes, opset, input dtypes and shapes
    ("gelu", "Gelu", {}, 20, [(np.float32, (3, 5))]),
    ("gelu_tanh", "Gelu", {"approximate": "tanh"}, 20, [(np.float32, (3, 5))]),
    ("mish", "Mish", {}, 18, [(np.float32, (3, 5))]),
    ("celu", "Celu", {"alpha": 0.5}, 17, [(np.float32, (3, 5))]),
    ("hardswish", "HardSwish", {}, 17, [(np.float32, (3, 5))]),
    ("erf_f16", "Erf", {}, 17, [(np.float16, (3, 5))]),
    ("where_bcast", "Where", {}, 17,
     [(np.bool_, (3, 1)), (np.float32, (5,)), (np.float32, (3, 5))]),
    ("min_uint32", "Min", {}, 17, [(np.uint32, (3, 5)), (np.uint32, (5,))]),
    ("cast_u8_f32", "Cast", {"to": onnx.TensorProto.FLOAT}, 17,
     [(np.uint8, (3, 5))]),
    ("cast_f32_u16", "Cast", {"to": onnx.TensorProto.UINT16}, 17,
     [(np.float32, (3, 5))]),
]


def sample(rng, dtype, shape):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.unsignedinteger):
        info = np.iinfo(dtype)
        return rng.integers(0, min(info.max, 60000), shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, op, attrs, opset, inputs in CASES:
        names = [f"x{i}" for i in range(len(inputs))]
        infos = [helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
            for n, (t, s) in zip(names, inputs)]
        arrays = [sample(rng, t, s) for t, s in inputs]
        if op == "Cast" and np.issubdtype(inputs[0][0], np.floating):
            arrays[0] = np.abs(arrays[0]) * 1000  # in range of the target
        out = helper.make_tensor_value_info("y", 0, None)
        node = helper.make_node(op, names, ["y"], name=name, **attrs)
        graph = helper.make_graph([node], name, infos, [out])
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 9
        model = onnx.shape_inference.infer_shapes(model)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(model, path)
        session = onnxruntime.InferenceSession(path)
        expected = session.run(None, dict(zip(names, arrays)))[0]
        for i, a in enumerate(arrays):
            np.save(os.path.join(args.out, f"{name}.input_{i}.npy"), a)
        np.save(os.path.join(args.out, f"{name}.expected_0.npy"), expected)


if __name__ == "__main__":
    main()
