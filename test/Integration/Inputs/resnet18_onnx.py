"""Writes ResNet-18 (torchvision's architecture, batch 1, 224x224, opset 17)
with seeded random weights, as torch 1.13 exports it in eval mode: each
BatchNorm folded into its convolution's weights and bias. Needs only numpy
and onnx, so the tests that compile a real-sized network run without torch.

    python3 resnet18_onnx.py OUT.onnx [--seed N]
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(seed):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    count = [0]

    def fresh(prefix):
        count[0] += 1
        return f"{prefix}_{count[0]}"

    def const(name, array):
        inits.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv(x, cin, cout, k, stride, relu):
        name = fresh("conv")
        scale = np.sqrt(2.0 / (cin * k * k))
        w = const(name + ".weight", rng.standard_normal((cout, cin, k, k)) * scale)
        b = const(name + ".bias", rng.standard_normal(cout) * 0.05)
        y = name + "_out"
        nodes.append(helper.make_node(
            "Conv", [x, w, b], [y], name=name, kernel_shape=[k, k],
            strides=[stride, stride], pads=[k // 2] * 4))
        if not relu:
            return y
        r = fresh("relu")
        nodes.append(helper.make_node("Relu", [y], [r], name=r))
        return r

    def block(x, cin, cout, stride):
        y = conv(x, cin, cout, 3, stride, True)
        y = conv(y, cout, cout, 3, 1, False)
        shortcut = x if stride == 1 and cin == cout else conv(x, cin, cout, 1, stride, False)
        s = fresh("add")
        nodes.append(helper.make_node("Add", [y, shortcut], [s], name=s))
        r = fresh("relu")
        nodes.append(helper.make_node("Relu", [s], [r], name=r))
        return r

    x = conv("input", 3, 64, 7, 2, True)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="maxpool",
                                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = "pool", 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        x = block(x, cin, cout, stride)
        x = block(x, cout, cout, 1)
        cin = cout
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="avgpool"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    w = const("fc.weight", rng.standard_normal((1000, 512)) * np.sqrt(1.0 / 512))
    b = const("fc.bias", rng.standard_normal(1000) * 0.01)
    nodes.append(helper.make_node("Gemm", ["flat", w, b], ["output"], name="fc", transB=1))
    graph = helper.make_graph(
        nodes, "resnet18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="resnet18_onnx.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    onnx.save(build(args.seed), args.out)


if __name__ == "__main__":
    main()
