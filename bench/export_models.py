"""Exports the benchmark's models to ONNX, with torch's outputs as reference.

Runs under Debian's /usr/bin/python3 (python3-torch 1.13, python3-torchvision,
python3-onnx): torch 1.13 exports up to opset 17. Writes, for each model NAME
into OUT_DIR:

    NAME.onnx                  batch 1, opset 17, random (seeded) weights
    NAME.inputs.npz            the inputs, by ONNX input name
    NAME.expected.npz          torch's outputs, by ONNX output name
    NAME.json                  {"flops": ..., "inputs": [...], "outputs": [...]}

plus identity.onnx (the per-call floor) and gemm_N.onnx (C = A @ B, both
inputs, for N in --gemm-sizes). Usage:

    /usr/bin/python3 bench/export_models.py OUT_DIR [--gemm-sizes 256,512,...]
                                           [--models ...] [--dynamic-batch]
                                           [--dynamic-seq [--seq-shapes BxS,...]]

--dynamic-seq exports the BERT-like encoder with a symbolic batch N and
sequence length S, and --seq-shapes writes torch's outputs for it at each
shape: bert.BxS.inputs.npz and bert.BxS.expected.npz.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
import torchvision
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_models import (ZOO, Encoder, count_flops,  # noqa: E402
                        fill_batchnorm_statistics)

OPSET = 17
# --dynamic-batch: every input's and output's first dimension is the
# symbolic N (torch.onnx.export's dynamic_axes).
DYNAMIC_BATCH = False
# --dynamic-seq: the BERT-like encoder's batch N and sequence length S.
DYNAMIC_SEQ = False


def BertLike(vocab=1000, seq=128, d_model=128, heads=4, layers=2):
    """Token + position embeddings, a 2-layer TransformerEncoder (d_model 128,
    4 heads, GELU), and a final LayerNorm: a BERT-like encoder (the zoo's
    Encoder at the benchmark's size)."""
    return Encoder(d_model, heads, layers, vocab=vocab, seq=seq)


def mlp():
    return torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))


class Normalized(torch.nn.Module):
    """ImageNet input normalisation, (x - mean) / std per channel, in front
    of a network: exported as Sub and Div by [1, 3, 1, 1] constants."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.register_buffer(
            "mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer(
            "std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        return self.net((x - self.mean) / self.std)


def bert_flops(seq=128, d=128, layers=2, ff=512, heads=4):
    per_layer = (2 * seq * d * 3 * d        # q, k, v projections
                 + 2 * seq * seq * d * 2    # scores and context
                 + 2 * seq * d * d          # output projection
                 + 2 * seq * d * ff * 2)    # feed-forward
    return layers * per_layer


def prune_channels(model, fraction):
    """Structured pruning: zeroes the `fraction` of each Conv2d's output
    channels with the smallest L1 norm, and the following BatchNorm2d's
    scale and shift for them, so those channels are exactly 0 after the
    BatchNorm (as channel-pruning tools leave a network)."""
    modules = list(model.modules())
    pruned = 0
    for i, conv in enumerate(modules):
        if not isinstance(conv, torch.nn.Conv2d):
            continue
        bn = next(m for m in modules[i + 1:] if isinstance(m, torch.nn.BatchNorm2d))
        with torch.no_grad():
            norms = conv.weight.abs().sum(dim=(1, 2, 3))
            drop = torch.argsort(norms)[: int(fraction * conv.out_channels)]
            conv.weight[drop] = 0
            if conv.bias is not None:
                conv.bias[drop] = 0
            bn.weight[drop] = 0
            bn.bias[drop] = 0
        pruned += len(drop)
    return pruned


def export(model, example, name, out_dir, input_names, output_names, flops,
           enable_grad=False):
    model.eval()
    with torch.no_grad():
        expected = model(*example)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    path = os.path.join(out_dir, name + ".onnx")
    # torch 1.13's TransformerEncoder takes a fused fast path under no_grad
    # that has no ONNX export; exporting with gradients enabled avoids it.
    ctx = torch.enable_grad() if enable_grad else torch.no_grad()
    with ctx:
        dynamic = ({n: {0: "N"} for n in input_names + output_names}
                   if DYNAMIC_BATCH else None)
        if DYNAMIC_SEQ and name == "bert":
            dynamic = {n: {0: "N", 1: "S"} for n in input_names + output_names}
        torch.onnx.export(model, example, path, opset_version=OPSET,
                          input_names=input_names, output_names=output_names,
                          do_constant_folding=True, dynamic_axes=dynamic)
    onnx.checker.check_model(onnx.load(path))
    np.savez(os.path.join(out_dir, name + ".inputs.npz"),
             **{n: t.detach().numpy() for n, t in zip(input_names, example)})
    np.savez(os.path.join(out_dir, name + ".expected.npz"),
             **{n: t.detach().numpy() for n, t in zip(output_names, expected)})
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump({"flops": flops, "inputs": input_names,
                   "outputs": output_names}, f)
    print(f"exported {name}: {flops / 1e9:.3f} GFLOP", flush=True)


def write_identity(out_dir):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])],
                              "identity", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out_dir, "identity.onnx"))


def write_gemm(out_dir, n):
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, [n, n])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, [n, n])
    c = helper.make_tensor_value_info("C", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["C"])],
                              f"gemm_{n}", [a, b], [c])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out_dir, f"gemm_{n}.onnx"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--gemm-sizes", default="256,512,1024,2048")
    parser.add_argument("--models", default="resnet18,mobilenet_v2,bert,mlp",
                        help="also: resnet18_pruned (30%% of every conv's "
                             "output channels zeroed, for the sparsity run), "
                             "resnet18_normalized (an ImageNet input "
                             "normaliser, Sub and Div, in front of ResNet-18), "
                             "and the zoo's models (bench/zoo_models.py)")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export each model's batch as the symbolic N "
                             "(bench/batch.py compiles it per batch size)")
    parser.add_argument("--dynamic-seq", action="store_true",
                        help="export the BERT-like encoder with a symbolic "
                             "batch N and sequence length S (bench/sequence.py)")
    parser.add_argument("--seq-shapes", default="",
                        help="with --dynamic-seq: BxS,... shapes at which to "
                             "write torch's outputs for the encoder")
    args = parser.parse_args()
    global DYNAMIC_BATCH, DYNAMIC_SEQ
    DYNAMIC_BATCH = args.dynamic_batch
    DYNAMIC_SEQ = args.dynamic_seq
    os.makedirs(args.out_dir, exist_ok=True)
    wanted = args.models.split(",")
    torch.manual_seed(0)
    torch.set_num_threads(1)

    for name, ctor in (("resnet18", torchvision.models.resnet18),
                       ("mobilenet_v2", torchvision.models.mobilenet_v2)):
        if name not in wanted:
            continue
        model = ctor(pretrained=False)
        fill_batchnorm_statistics(model, (4, 3, 224, 224))
        x = torch.randn(1, 3, 224, 224)
        export(model, (x,), name, args.out_dir, ["input"], ["logits"],
               count_flops(model, (x,)))
    if "resnet18_normalized" in wanted:
        torch.manual_seed(0)
        model = Normalized(torchvision.models.resnet18(pretrained=False))
        fill_batchnorm_statistics(model, (4, 3, 224, 224))
        x = torch.rand(1, 3, 224, 224)
        export(model, (x,), "resnet18_normalized", args.out_dir, ["input"],
               ["logits"], count_flops(model, (x,)))
    if "resnet18_pruned" in wanted:
        torch.manual_seed(0)
        model = torchvision.models.resnet18(pretrained=False)
        fill_batchnorm_statistics(model, (4, 3, 224, 224))
        pruned = prune_channels(model, 0.3)
        x = torch.randn(1, 3, 224, 224)
        export(model, (x,), "resnet18_pruned", args.out_dir, ["input"], ["logits"],
               count_flops(model, (x,)))
        print(f"resnet18_pruned: {pruned} conv output channels zeroed", flush=True)
    if "bert" in wanted:
        model = BertLike()
        ids = torch.randint(0, 1000, (1, 128), dtype=torch.int64)
        export(model, (ids,), "bert", args.out_dir, ["input_ids"], ["hidden"],
               bert_flops(), enable_grad=True)
        for shape in filter(None, args.seq_shapes.split(",")):
            batch, seq = (int(v) for v in shape.split("x"))
            ids = torch.randint(0, 1000, (batch, seq), dtype=torch.int64)
            with torch.no_grad():
                hidden = model(ids)
            np.savez(os.path.join(args.out_dir, f"bert.{shape}.inputs.npz"),
                     input_ids=ids.numpy())
            np.savez(os.path.join(args.out_dir, f"bert.{shape}.expected.npz"),
                     hidden=hidden.numpy())
    if "mlp" in wanted:
        model = mlp()
        x = torch.randn(1, 1, 28, 28)
        export(model, (x,), "mlp", args.out_dir, ["image"], ["logits"],
               count_flops(model, (x,)))
    for name in wanted:
        if name not in ZOO:
            continue
        torch.manual_seed(0)
        model, example, inputs, outputs, grad = ZOO[name]()
        export(model, example, name, args.out_dir, inputs, outputs,
               count_flops(model, example, grad), enable_grad=grad)
    write_identity(args.out_dir)
    for n in (int(s) for s in args.gemm_sizes.split(",") if s):
        write_gemm(args.out_dir, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
