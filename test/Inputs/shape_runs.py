#!/usr/bin/env python3
"""Writes inputs and onnxruntime's outputs for a model with symbolic
dimensions at several shapes: for each SPEC (the symbols' values, e.g.
N=2,S=5, joined as 2x5 in the file names) and each graph input and output
NAME, OUT/NAME_<values>.npy. Inputs are seeded standard normal floats.

Usage: shape_runs.py MODEL.onnx OUT N=2,S=5 [N=1,S=1 ...]
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main(model_path, out, specs):
    graph = onnx.load(model_path).graph
    session = ort.InferenceSession(model_path,
                                   providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for spec in specs:
        values = dict((k, int(v)) for k, v in
                      (item.split("=") for item in spec.split(",")))
        tag = "x".join(str(v) for v in values.values())
        feeds = {}
        for value in graph.input:
            dims = [values[d.dim_param] if d.dim_param else d.dim_value
                    for d in value.type.tensor_type.shape.dim]
            feeds[value.name] = rng.standard_normal(dims).astype(np.float32)
        for name, array in feeds.items():
            np.save(os.path.join(out, f"{name}_{tag}.npy"), array)
        for value, array in zip(graph.output, session.run(None, feeds)):
            np.save(os.path.join(out, f"{value.name}_{tag}.npy"), array)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
