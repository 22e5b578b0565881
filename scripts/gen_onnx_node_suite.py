#!/usr/bin/env python3
"""Writes the ONNX node test suite of the installed `onnx` Python package.

The onnx wheels on PyPI ship the test generators (onnx/backend/test/case/node)
but not the node suite's data (onnx/backend/test/data/node is absent from the
wheel). This script runs the generators, as onnx's own
`backend-test-tools generate-data` does in a source checkout, and writes
<out>/node/<test>/{model.onnx,test_data_set_N/{input,output}_K.pb} in the
layout scripts/onnx_conformance.py reads, plus <out>/VERSION holding the onnx
version. NumPy's global random state is seeded, so a rerun writes the same data.

A rerun with an up-to-date <out>/VERSION does nothing (use --force to rewrite).
"""
import argparse
import os
import shutil
import sys


def write_value(path, value, value_info):
    from onnx import TensorProto, numpy_helper

    kind = value_info.type.WhichOneof("value")
    if kind == "map_type":
        proto = numpy_helper.from_dict(value, value_info.name)
    elif kind == "sequence_type":
        proto = numpy_helper.from_list(value, value_info.name)
    elif kind == "optional_type":
        proto = numpy_helper.from_optional(value, value_info.name)
    elif isinstance(value, TensorProto):
        proto = value
    else:
        proto = numpy_helper.from_array(value, value_info.name)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def generate(out):
    import numpy as np
    import onnx
    import onnx.backend.test.case.node as node_test

    np.random.seed(0)
    cases = node_test.collect_testcases()
    root = os.path.join(out, "node")
    if os.path.exists(root):
        shutil.rmtree(root)
    for case in cases:
        test_dir = os.path.join(root, case.name)
        os.makedirs(test_dir)
        with open(os.path.join(test_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        graph = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(test_dir, f"test_data_set_{i}")
            os.makedirs(ds)
            for j, value in enumerate(inputs):
                write_value(os.path.join(ds, f"input_{j}.pb"), value, graph.input[j])
            for j, value in enumerate(outputs):
                write_value(os.path.join(ds, f"output_{j}.pb"), value, graph.output[j])
    with open(os.path.join(out, "VERSION"), "w", encoding="utf-8") as f:
        f.write(onnx.__version__ + "\n")
    return len(cases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory to write <out>/node into")
    ap.add_argument("--force", action="store_true", help="rewrite even when up to date")
    args = ap.parse_args()
    try:
        import onnx
    except ImportError:
        sys.exit("gen_onnx_node_suite: the onnx Python package is not installed")
    stamp = os.path.join(args.out, "VERSION")
    if not args.force and os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as f:
            if f.read().strip() == onnx.__version__:
                print(f"gen_onnx_node_suite: {args.out} holds onnx {onnx.__version__}'s node suite")
                return 0
    n = generate(args.out)
    print(f"gen_onnx_node_suite: wrote {n} node tests of onnx {onnx.__version__} to {args.out}/node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
