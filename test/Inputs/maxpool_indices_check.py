"""Compiles MaxPool models with the Indices output and checks both outputs
against onnx's reference evaluator (batch and channels > 1, pads, strides,
dilations, ceil_mode, both storage orders). Usage: maxpool_indices_check.py
BINDIR WORKDIR; prints one OK line per case, exits 1 on a difference."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

CASES = [
    (0, dict(dilations=[2, 1], pads=[1, 0, 1, 1])),
    (1, dict(ceil_mode=1, strides=[2, 2])),
    (0, dict(strides=[1, 2], pads=[1, 1, 1, 1])),
    (1, dict(dilations=[1, 2], strides=[2, 1])),
]


def model(node, x, y=None, i=None):
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None if y is None else y.shape),
            helper.make_tensor_value_info("i", TensorProto.INT64, None if i is None else i.shape)]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, x.shape)], outs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    m.ir_version = 8
    return m


def main():
    bindir, work = sys.argv[1], sys.argv[2]
    failed = False
    for n, (order, attrs) in enumerate(CASES):
        node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 3],
                                storage_order=order, **attrs)
        x = np.random.RandomState(n).randn(2, 3, 7, 6).astype(np.float32)
        y, i = ReferenceEvaluator(model(node, x)).run(None, {"x": x})
        base = os.path.join(work, f"case{n}")
        onnx.save(model(node, x, y, i), base + ".onnx")
        np.save(base + ".x.npy", x)
        np.save(base + ".y.npy", y)
        np.save(base + ".i.npy", i)
        subprocess.run([os.path.join(bindir, "tessel-compile"), base + ".onnx", "-o",
                        base + ".so"], check=True)
        run = subprocess.run([os.path.join(bindir, "tessel-run"), base + ".so", "--quiet",
                              "--atol", "0", "--rtol", "0", "--input", base + ".x.npy",
                              "--expected", base + ".y.npy", base + ".i.npy"])
        print(f"case {n} storage_order={order} {attrs}: {'OK' if run.returncode == 0 else 'DIFFERS'}")
        failed |= run.returncode != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
