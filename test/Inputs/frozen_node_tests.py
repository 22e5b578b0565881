#!/usr/bin/env python3
"""ONNX backend node tests whose shape-giving inputs are frozen into
initializers.

Some node tests feed operands that decide the output shape (Resize's scales,
sizes and roi, Upsample's scales) as graph inputs, which an ahead-of-time
compiler with static shapes must refuse. This script copies such a test's
model with those inputs turned into initializers holding the test's own
data, so that the suite's expected outputs (computed by ONNX, not by Tessel)
still check the numerics.

Writes, into --out, for each test <name>: <name>.onnx, <name>.input_0.pb (the
remaining input) and <name>.expected_0.pb.

Usage: frozen_node_tests.py --suite DIR --out DIR TEST...
"""
import argparse
import os
import shutil

import onnx


def freeze(suite, name, out):
    path = os.path.join(suite, name)
    model = onnx.load(os.path.join(path, "model.onnx"))
    data = os.path.join(path, "test_data_set_0")
    graph = model.graph
    inputs = list(graph.input)
    # The first input is the data; the rest give the shape.
    for i, value in enumerate(inputs[1:], start=1):
        tensor = onnx.load_tensor(os.path.join(data, f"input_{i}.pb"))
        tensor.name = value.name
        graph.initializer.append(tensor)
        graph.input.remove(value)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    shutil.copy(os.path.join(data, "input_0.pb"),
                os.path.join(out, name + ".input_0.pb"))
    shutil.copy(os.path.join(data, "output_0.pb"),
                os.path.join(out, name + ".expected_0.pb"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("tests", nargs="+")
    args = parser.parse_args()
    for name in args.tests:
        freeze(args.suite, name, args.out)


if __name__ == "__main__":
    main()
