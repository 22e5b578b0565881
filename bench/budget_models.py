"""The performance budget's models, written with onnx.helper and seeded
random weights (no torch, so that the CI stage installs nothing heavy):

    mlp           784-512-256-10, Gemm + Relu (batch 1)
    bert_like     token and position embeddings, 2 encoder layers (d_model
                  128, 4 heads, FFN 512 with GELU in the Erf form, LayerNorm
                  after each residual), sequence 128: the layout torch 1.13
                  exports for the BERT-like encoder of bench/export_models.py
    mobilenet_v2  torchvision's MobileNetV2 (1.0, 224x224) with each
                  BatchNorm folded into its convolution and ReLU6 as Clip,
                  as torch exports it in eval mode

Each writes NAME.onnx and NAME.inputs.npz (seeded inputs by input name).

    python3 bench/budget_models.py OUT_DIR [--models mlp bert_like mobilenet_v2]
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    """Nodes and initializers, with fresh names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix, array, dtype=np.float32):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype), name))
        return name

    def op(self, op_type, inputs, prefix=None, **attrs):
        name = self.name(prefix or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="bench/budget_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def mlp(seed):
    g = Graph(seed)
    x = g.op("Flatten", ["input"], axis=1)
    sizes = [784, 512, 256, 10]
    for i in range(3):
        w = g.const("w", g.rng.standard_normal((sizes[i + 1], sizes[i])) / np.sqrt(sizes[i]))
        b = g.const("b", g.rng.standard_normal(sizes[i + 1]) * 0.05)
        x = g.op("Gemm", [x, w, b], "fc", transB=1)
        if i < 2:
            x = g.op("Relu", [x])
    g.nodes[-1].output[0] = "logits"
    inputs = {"input": g.rng.random((1, 1, 28, 28), dtype=np.float32)}
    return g.model("mlp", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                         [1, 1, 28, 28])],
                   [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])]), inputs


def bert_like(seed, vocab=1000, seq=128, d=128, heads=4, layers=2, ff=512):
    g = Graph(seed)
    head = d // heads
    emb = g.const("tok_emb", g.rng.standard_normal((vocab, d)) * 0.1)
    pos = g.const("pos_emb", g.rng.standard_normal((seq, d)) * 0.1)
    x = g.op("Add", [g.op("Gather", [emb, "input_ids"], axis=0), pos], "embed")

    def layer_norm(x):
        gamma = g.const("ln_gamma", 1 + 0.1 * g.rng.standard_normal(d))
        beta = g.const("ln_beta", 0.1 * g.rng.standard_normal(d))
        return g.op("LayerNormalization", [x, gamma, beta], "ln", axis=-1, epsilon=1e-5)

    shape3 = g.const("shape_3d", [seq, heads, head], np.int64)
    shape2 = g.const("shape_2d", [seq, d], np.int64)
    axis = g.const("axis", [1], np.int64)
    for _ in range(layers):
        w_qkv = g.const("w_qkv", g.rng.standard_normal((d, 3 * d)) / np.sqrt(d))
        b_qkv = g.const("b_qkv", g.rng.standard_normal(3 * d) * 0.05)
        qkv = g.op("Add", [g.op("MatMul", [x, w_qkv], "qkv_proj"), b_qkv], "qkv_bias")
        parts = {}
        for i, (part, perm) in enumerate((("q", [1, 0, 2]), ("k", [1, 2, 0]),
                                           ("v", [1, 0, 2]))):
            start = g.const(f"{part}_start", [i * d], np.int64)
            end = g.const(f"{part}_end", [(i + 1) * d], np.int64)
            flat = g.op("Slice", [qkv, start, end, axis], f"{part}_slice")
            parts[part] = g.op("Transpose", [g.op("Reshape", [flat, shape3])],
                               f"{part}_heads", perm=perm)
        scores = g.op("MatMul", [parts["q"], parts["k"]], "scores")
        scaled = g.op("Div", [scores, g.const("scale", np.sqrt(head))], "scale")
        probs = g.op("Softmax", [scaled], "softmax", axis=-1)
        context = g.op("MatMul", [probs, parts["v"]], "context")
        merged = g.op("Reshape", [g.op("Transpose", [context], perm=[1, 0, 2]), shape2])
        w_out = g.const("w_out", g.rng.standard_normal((d, d)) / np.sqrt(d))
        b_out = g.const("b_out", g.rng.standard_normal(d) * 0.05)
        attn = g.op("Add", [g.op("MatMul", [merged, w_out], "out_proj"), b_out])
        x = layer_norm(g.op("Add", [x, attn], "residual"))
        w1 = g.const("w1", g.rng.standard_normal((d, ff)) / np.sqrt(d))
        b1 = g.const("b1", g.rng.standard_normal(ff) * 0.05)
        a1 = g.op("Add", [g.op("MatMul", [x, w1], "ffn1"), b1])
        erf = g.op("Erf", [g.op("Div", [a1, g.const("sqrt2", np.sqrt(2.0))])])
        gelu = g.op("Mul", [g.op("Mul", [a1, g.op("Add", [erf, g.const("one", 1.0)])]),
                            g.const("half", 0.5)], "gelu")
        w2 = g.const("w2", g.rng.standard_normal((ff, d)) / np.sqrt(ff))
        b2 = g.const("b2", g.rng.standard_normal(d) * 0.05)
        a2 = g.op("Add", [g.op("MatMul", [gelu, w2], "ffn2"), b2])
        x = layer_norm(g.op("Add", [x, a2], "residual"))
    g.nodes[-1].output[0] = "hidden"
    inputs = {"input_ids": g.rng.integers(0, vocab, seq).astype(np.int64)}
    return g.model("bert_like",
                   [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [seq])],
                   [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [seq, d])]), inputs


def mobilenet_v2(seed):
    g = Graph(seed)
    zero, six = g.const("relu6_min", 0.0), g.const("relu6_max", 6.0)

    def conv(x, cin, cout, k, stride, groups=1, relu6=True):
        scale = np.sqrt(2.0 / (cin // groups * k * k))
        w = g.const("w", g.rng.standard_normal((cout, cin // groups, k, k)) * scale)
        b = g.const("b", g.rng.standard_normal(cout) * 0.05)
        y = g.op("Conv", [x, w, b], "conv", kernel_shape=[k, k], strides=[stride, stride],
                 pads=[k // 2] * 4, group=groups)
        return g.op("Clip", [y, zero, six], "relu6") if relu6 else y

    x = conv("input", 3, 32, 3, 2)
    cin = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x if t == 1 else conv(x, cin, hidden, 1, 1)
            y = conv(y, hidden, hidden, 3, stride, groups=hidden)
            y = conv(y, hidden, c, 1, 1, relu6=False)
            x = g.op("Add", [x, y], "residual") if stride == 1 and cin == c else y
            cin = c
    x = conv(x, cin, 1280, 1, 1)
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x], "avgpool")], axis=1)
    w = g.const("fc_w", g.rng.standard_normal((1000, 1280)) / np.sqrt(1280))
    b = g.const("fc_b", g.rng.standard_normal(1000) * 0.01)
    g.op("Gemm", [x, w, b], "classifier", transB=1)
    g.nodes[-1].output[0] = "logits"
    inputs = {"input": g.rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
    return g.model("mobilenet_v2",
                   [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
                   [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])]), inputs


MODELS = {"mlp": mlp, "bert_like": bert_like, "mobilenet_v2": mobilenet_v2}


def write(name, out_dir, seed=0):
    """Writes OUT_DIR/NAME.onnx and NAME.inputs.npz; returns both paths."""
    model, inputs = MODELS[name](seed)
    path = os.path.join(out_dir, name + ".onnx")
    onnx.save(model, path)
    np.savez(os.path.join(out_dir, name + ".inputs.npz"), **inputs)
    return path, os.path.join(out_dir, name + ".inputs.npz")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models:
        print(*write(name, args.out))


if __name__ == "__main__":
    main()
