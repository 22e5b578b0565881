"""half_reductions.py OUT_DIR

Writes a float16 model whose sums are long: ReduceSum and ReduceMean over a
256 x 256 plane, GlobalAveragePool, and a 3 x 3 AveragePool (count_include_pad
0), on values near 1/4. A running f16 sum rounds each added value to its own
step (0.5 from 512, 2 from 2048: 2048 + 1 is 2048 in f16), so even split
over 32 vector lanes a sum of 65536 of them drifts far off when accumulated
in f16; the reference here sums in float64 and rounds once to f16, which an
f32 sum matches within one f16 step. Writes
half_reductions.onnx, x.npy and expected_<name>.npy for each output.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main(out):
    rng = np.random.default_rng(11)
    x = (0.25 + rng.uniform(0.0, 1.0 / 64, (1, 4, 256, 256))).astype(np.float16)
    axes = helper.make_tensor("axes", TensorProto.INT64, [2], [2, 3])
    nodes = [
        helper.make_node("ReduceSum", ["x", "axes"], ["sum"], name="sum", keepdims=0),
        helper.make_node("ReduceMean", ["x"], ["mean"], name="mean", axes=[2, 3], keepdims=0),
        helper.make_node("GlobalAveragePool", ["x"], ["gap"], name="gap"),
        helper.make_node("AveragePool", ["x"], ["avg"], name="avg", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
    ]
    f16 = TensorProto.FLOAT16
    graph = helper.make_graph(
        nodes, "half_reductions", [helper.make_tensor_value_info("x", f16, [1, 4, 256, 256])],
        [helper.make_tensor_value_info("sum", f16, [1, 4]),
         helper.make_tensor_value_info("mean", f16, [1, 4]),
         helper.make_tensor_value_info("gap", f16, [1, 4, 1, 1]),
         helper.make_tensor_value_info("avg", f16, [1, 4, 256, 256])],
        [axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "half_reductions.onnx"))
    np.save(os.path.join(out, "x.npy"), x)
    w = x.astype(np.float64)
    total = w.sum(axis=(2, 3))
    # AveragePool 3x3, pads 1, count_include_pad 0: each window's mean over
    # the taps inside the input.
    padded = np.pad(w, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones_like(w), ((0, 0), (0, 0), (1, 1), (1, 1)))
    sums = sum(padded[:, :, i:i + 256, j:j + 256] for i in range(3) for j in range(3))
    counts = sum(ones[:, :, i:i + 256, j:j + 256] for i in range(3) for j in range(3))
    for name, value in (("sum", total), ("mean", total / 65536),
                        ("gap", (total / 65536).reshape(1, 4, 1, 1)), ("avg", sums / counts)):
        np.save(os.path.join(out, f"expected_{name}.npy"), value.astype(np.float16))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
