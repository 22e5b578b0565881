#!/usr/bin/env python3
"""Models whose sequences stay inside the graph, beyond what the ONNX suite's
test_sequence_model* cover: stacking, int64 elements, a one-element concat,
a scalar split with a smaller last chunk, keepdims = 0, negative positions,
and a split with an empty part. References come from onnxruntime.

Writes, into --out, for each case <name>: <name>.onnx, <name>.input_<i>.npy
and <name>.expected_<k>.npy (computed by onnxruntime, not by Tessel).

Usage: sequence_models.py --out DIR
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper


def const(name, values, dtype=np.int64):
    return helper.make_tensor(name, helper.np_dtype_to_tensor_dtype(
        np.dtype(dtype)), np.shape(values), np.asarray(values, dtype).ravel())


def stack_insert_erase():
    # [a, c] -> insert b at 0, a at 1 -> [b, a, a, c] -> erase -2 -> [b, a, c]
    # -> insert a at -1 -> [b, a, a, c]
    # stacked on a new axis 1; and element -3 (a) back out.
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "c"], ["s0"]),
        helper.make_node("SequenceInsert", ["s0", "b", "zero"], ["s1"]),
        helper.make_node("SequenceInsert", ["s1", "a", "one"], ["s2"]),
        helper.make_node("SequenceErase", ["s2", "m2"], ["s3"]),
        helper.make_node("SequenceInsert", ["s3", "a", "m1"], ["s4"]),
        helper.make_node("ConcatFromSequence", ["s4"], ["y"], axis=1,
                         new_axis=1),
        helper.make_node("SequenceAt", ["s4", "m3"], ["z"]),
    ]
    inputs = [("a", np.float32, (2, 3)), ("b", np.float32, (2, 3)),
              ("c", np.float32, (2, 3))]
    inits = [const("zero", 0), const("one", 1), const("m1", -1),
             const("m2", -2), const("m3", -3)]
    return nodes, inputs, inits, ["y", "z"]


def split_chunks_int64():
    # int64 elements; a scalar split of 2 over 5 rows: 2, 2, 1; concat back
    # along axis 1 after dropping the middle part, plus the length.
    nodes = [
        helper.make_node("SplitToSequence", ["x", "two"], ["s"], axis=0),
        helper.make_node("SequenceErase", ["s", "one"], ["t"]),
        helper.make_node("SequenceAt", ["t", "m1"], ["last"]),
        helper.make_node("SequenceLength", ["s"], ["n"]),
        helper.make_node("SequenceConstruct", ["last"], ["u"]),
        helper.make_node("ConcatFromSequence", ["u"], ["one_concat"],
                         axis=-1),
    ]
    inputs = [("x", np.int64, (5, 4))]
    inits = [const("two", 2), const("one", 1), const("m1", -1)]
    return nodes, inputs, inits, ["last", "n", "one_concat"]


def split_keepdims_and_sizes():
    # keepdims = 0 over axis -1, stacked back transposed; 1-D sizes with an
    # empty part, the empty part concatenated with the others.
    nodes = [
        helper.make_node("SplitToSequence", ["x"], ["cols"], axis=-1,
                         keepdims=0),
        helper.make_node("ConcatFromSequence", ["cols"], ["t"], axis=0,
                         new_axis=1),
        helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"],
                         axis=0),
        helper.make_node("SequenceAt", ["parts", "one"], ["empty"]),
        helper.make_node("ConcatFromSequence", ["parts"], ["back"], axis=0),
        helper.make_node("Relu", ["back"], ["r"]),
    ]
    inputs = [("x", np.float32, (3, 4))]
    inits = [const("sizes", [1, 0, 2]), const("one", 1)]
    return nodes, inputs, inits, ["t", "empty", "r"]


CASES = {
    "stack_insert_erase": stack_insert_erase,
    "split_chunks_int64": split_chunks_int64,
    "split_keepdims_and_sizes": split_keepdims_and_sizes,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name, build in CASES.items():
        nodes, inputs, inits, outputs = build()
        infos = [helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
            for n, t, s in inputs]
        outs = [helper.make_tensor_value_info(o, 0, None) for o in outputs]
        graph = helper.make_graph(nodes, name, infos, outs, initializer=inits)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        model = onnx.shape_inference.infer_shapes(model)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(model, path)
        arrays = []
        for n, t, s in inputs:
            a = rng.standard_normal(s) * 3
            arrays.append(a.astype(t))
        session = onnxruntime.InferenceSession(path)
        expected = session.run(None, {n: a for (n, _, _), a in
                                      zip(inputs, arrays)})
        for i, a in enumerate(arrays):
            np.save(os.path.join(args.out, f"{name}.input_{i}.npy"), a)
        for k, e in enumerate(expected):
            np.save(os.path.join(args.out, f"{name}.expected_{k}.npy"),
                    np.asarray(e))


if __name__ == "__main__":
    main()
