"""Writes a copy of an ONNX model with one weight element corrupted.

    corrupt_weight.py MODEL.onnx NODE OUT.onnx

NODE's second input (a Conv's or MatMul's weights, a Gemm's B) must be an
initializer; its largest-magnitude element is multiplied by -20, as a bad
export or a flipped bit in a stored weight would."""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(model_path, node_name, out_path):
    model = onnx.load(model_path)
    node = next((n for n in model.graph.node if n.name == node_name), None)
    if node is None or len(node.input) < 2:
        sys.exit(f"no node '{node_name}' with weights in {model_path}")
    for i, init in enumerate(model.graph.initializer):
        if init.name == node.input[1]:
            weights = numpy_helper.to_array(init).copy()
            flat = weights.reshape(-1)
            k = int(np.argmax(np.abs(flat)))
            flat[k] *= -20.0
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(weights, init.name))
            onnx.save(model, out_path)
            return
    sys.exit(f"node '{node_name}''s weights '{node.input[1]}' are not an initializer")


if __name__ == "__main__":
    main(*sys.argv[1:])
