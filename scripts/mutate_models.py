"""Structural mutation testing of tessel-compile on hostile models.

For each seed model (default: test/robustness/seeds/*.onnx, a ResNet-18 and
the BERT-like encoder with their weights shrunk), writes --count mutants,
each with 1 to 3 random structural mutations of its ModelProto: nodes deleted
(or bypassed), duplicated or inserted (a random operator on earlier values),
op types and domains changed, inputs swapped or rewired (to later nodes'
outputs, i.e. cycles, to names that do not exist, to ""), node inputs and
outputs dropped, added or duplicated, tensors renamed, attributes dropped or
given wrong types and hostile values (0, negative, 2**62, empty or
wrong-length lists), graph input/output/value_info shapes and element types
changed, initializers removed or given inconsistent dims, types or data,
Constant tensors perturbed, opset and IR versions changed, graph inputs and
outputs duplicated. Byte flips of a model mostly land in its weights; these
mutations land in the graph.

Every mutant is compiled with `tessel-compile --compile-to=graph`, every
--full-every'th one (default 10) all the way to a .so, and classified:

    compiled     exit code 0
    diagnostic   a nonzero exit code and a line with error[E00NN], NN != 99
    internal     error[E0099]: Tessel's own fault, a bug
    crash        killed by a signal, a stack dump, or a failure that printed
                 no error[E....] diagnostic
    hang         the compile ran past --timeout

`internal`, `crash` and `hang` are failures: they are copied, with the
command and its stderr, to OUT/repros, and the script exits with 1. The
mutants are deterministic in --seed. Usage (from the repository root):

    python3 scripts/mutate_models.py --build build [--count 200] [--jobs 2]

Needs onnx and numpy, not torch (the seeds are committed; they are made by
scripts/robustness/export_seeds.py).
"""

import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper

from onnx_conformance import SANITIZER_RE  # this script's directory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUGE = 2 ** 62

# Real operators a node's op type is changed to: a spread of arities,
# attributes and shape rules, including the control-flow ones whose bodies
# are attributes.
REAL_OPS = [
    "Add", "Sub", "Mul", "Div", "Pow", "Relu", "Sigmoid", "Tanh", "Erf", "Sqrt",
    "Neg", "Not", "Identity", "Conv", "ConvTranspose", "MatMul", "Gemm",
    "BatchNormalization", "LayerNormalization", "InstanceNormalization",
    "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool",
    "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat",
    "Split", "Slice", "Gather", "GatherElements", "GatherND", "ScatterND",
    "Expand", "Tile", "Pad", "Resize", "Upsample", "Softmax", "LogSoftmax",
    "Hardmax", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceL2", "ArgMax",
    "TopK", "Where", "Equal", "Less", "Cast", "CastLike", "Shape", "Size",
    "ConstantOfShape", "Range", "Constant", "Einsum", "CumSum", "Clip",
    "Dropout", "LSTM", "GRU", "RNN", "If", "Loop", "Scan", "NonZero",
    "OneHot", "DepthToSpace", "SpaceToDepth", "Trilu", "GridSample",
    "MaxUnpool", "RoiAlign", "DFT", "STFT", "QuantizeLinear",
    "DequantizeLinear", "QLinearConv", "MatMulInteger", "SequenceConstruct",
    "SplitToSequence", "ConcatFromSequence", "SequenceAt", "Mod", "BitShift",
    "Det", "Compress", "Unique", "NonMaxSuppression", "Bernoulli",
    "RandomNormal", "EyeLike", "Col2Im", "CenterCropPad", "Gelu",
]
UNKNOWN_OPS = ["FooBar", "", "conv", "Conv2d", "MatMul\x00", "Add ", "ÄÖÜ"]
DOMAINS = ["com.microsoft", "ai.onnx.ml", "ai.onnx", "x.custom", "ai.onnx.preview.training"]
# Attributes added to nodes that do not have them: the names Tessel's
# importers read.
EXTRA_ATTRS = ["axis", "axes", "perm", "pads", "strides", "kernel_shape",
               "dilations", "group", "epsilon", "auto_pad", "ceil_mode",
               "keepdims", "alpha", "beta", "transA", "transB", "mode",
               "output_padding", "output_shape", "storage_order", "to",
               "split", "value", "num_outputs", "largest", "sorted", "k",
               "direction", "hidden_size", "approximate", "stash_type",
               "training_mode", "momentum", "spatial", "count_include_pad",
               "blocksize", "coordinate_transformation_mode", "exclusive",
               "reverse", "then_branch", "body"]
ELEM_TYPES = [TensorProto.STRING, TensorProto.COMPLEX64, TensorProto.COMPLEX128,
              TensorProto.BFLOAT16, TensorProto.UNDEFINED, TensorProto.FLOAT16,
              TensorProto.DOUBLE, TensorProto.INT8, TensorProto.UINT64,
              TensorProto.BOOL, TensorProto.INT32, TensorProto.INT64,
              TensorProto.FLOAT, 17, 21, 23, 99, -1]
HOSTILE_INTS = [0, -1, -3, 1, 2, 7, HUGE, -HUGE, 2 ** 31, 2 ** 63 - 1, -2 ** 63]


# ---------------------------------------------------------------------------
# Helpers.

def node_label(graph, i):
    """`<OpType><index>`: short, and unique at the time of the mutation."""
    return "%s%d" % (graph.node[i].op_type, i)


def all_names(graph):
    names = [v.name for v in graph.input]
    names += [t.name for t in graph.initializer]
    for node in graph.node:
        names += [o for o in node.output if o]
    return names


def pick_node(graph, rng, pred=None):
    indices = [i for i, n in enumerate(graph.node) if pred is None or pred(n)]
    return rng.choice(indices) if indices else None


def perturb_tensor(tensor, rng):
    """Mutates a TensorProto (an initializer or a Constant's value); returns a
    description."""
    choice = rng.choice(["dims", "dims", "dtype", "truncate", "extend",
                         "values", "values", "external", "typed-data",
                         "no-data", "rank", "convert", "convert"])
    if choice == "dims":
        if not tensor.dims:
            tensor.dims.append(rng.choice([0, 2, HUGE]))
            return "dims+"
        d = rng.randrange(len(tensor.dims))
        tensor.dims[d] = rng.choice([0, -1, tensor.dims[d] * 2 + 1, HUGE, 1])
        return "dims[%d]=%d" % (d, tensor.dims[d])
    if choice == "rank":
        if tensor.dims and rng.random() < 0.5:
            del tensor.dims[-1]
            return "rank-"
        tensor.dims.append(1)
        return "rank+"
    if choice == "dtype":
        tensor.data_type = rng.choice(ELEM_TYPES)
        return "dtype=%d" % tensor.data_type
    if choice == "truncate":
        if not tensor.raw_data:
            return perturb_tensor(tensor, rng)
        n = len(tensor.raw_data)
        tensor.raw_data = tensor.raw_data[:rng.choice([0, 1, n // 2, n - 1])]
        return "raw-truncated"
    if choice == "extend":
        tensor.raw_data = tensor.raw_data + b"\x01\x02\x03"
        return "raw-extended"
    if choice == "values":
        # Hostile values in integer tensors (Reshape shapes, Slice bounds,
        # Gather indices...) or NaN/inf in float ones.
        try:
            array = onnx.numpy_helper.to_array(tensor).copy()
        except Exception:
            return perturb_tensor(tensor, rng)
        if array.size == 0:
            return perturb_tensor(tensor, rng)
        flat = array.reshape(-1)
        k = rng.randrange(flat.size)
        if np.issubdtype(flat.dtype, np.integer):
            value = rng.choice([0, -1, -2, HUGE, -HUGE, 2 ** 31 - 1, 12345])
            info = np.iinfo(flat.dtype)
            flat[k] = min(max(value, info.min), info.max)
        elif np.issubdtype(flat.dtype, np.floating):
            flat[k] = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1e30])
        else:
            return perturb_tensor(tensor, rng)
        new = onnx.numpy_helper.from_array(flat.reshape(array.shape), tensor.name)
        tensor.CopyFrom(new)
        return "value[%d]=%s" % (k, flat[k])
    if choice == "convert":
        # The same values, well formed, in another element type: Gather
        # indices of floats, a Reshape shape of int8...
        try:
            array = onnx.numpy_helper.to_array(tensor)
        except Exception:
            return perturb_tensor(tensor, rng)
        dtype = rng.choice([np.float32, np.float64, np.float16, np.int8,
                            np.int32, np.uint8, np.uint64, np.bool_])
        tensor.CopyFrom(onnx.numpy_helper.from_array(array.astype(dtype), tensor.name))
        return "convert=%s" % np.dtype(dtype).name
    if choice == "external":
        tensor.data_location = TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", "../../../etc/passwd"
        return "external"
    if choice == "typed-data":
        tensor.ClearField("raw_data")
        tensor.int64_data.extend([1, 2, 3])
        tensor.float_data.extend([1.0])
        return "typed-data-mismatch"
    tensor.ClearField("raw_data")
    tensor.ClearField("float_data")
    tensor.ClearField("int64_data")
    tensor.ClearField("int32_data")
    return "no-data"


def set_dim(dim, rng):
    choice = rng.choice(["zero", "neg", "huge", "symbolic", "clear", "one"])
    if choice == "zero":
        dim.dim_value = 0
    elif choice == "neg":
        dim.dim_value = -1
    elif choice == "huge":
        dim.dim_value = HUGE
    elif choice == "symbolic":
        dim.dim_param = "N"
    elif choice == "clear":
        dim.Clear()
    else:
        dim.dim_value = 1
    return choice


def perturb_value_info(info, rng):
    t = info.type
    choice = rng.choice(["dim", "dim", "rank+", "rank-", "no-shape", "elem",
                         "elem", "not-tensor"])
    if not t.HasField("tensor_type"):
        choice = "elem"
    tensor = t.tensor_type
    if choice == "dim" and tensor.shape.dim:
        d = rng.randrange(len(tensor.shape.dim))
        return "dim%d=%s" % (d, set_dim(tensor.shape.dim[d], rng))
    if choice == "rank+":
        tensor.shape.dim.add().dim_value = rng.choice([1, 3])
        return "rank+"
    if choice == "rank-" and tensor.shape.dim:
        del tensor.shape.dim[rng.randrange(len(tensor.shape.dim))]
        return "rank-"
    if choice == "no-shape":
        tensor.ClearField("shape")
        return "no-shape"
    if choice == "not-tensor":
        elem = tensor.elem_type
        t.ClearField("tensor_type")
        kind = rng.choice(["sequence", "optional", "map", "none"])
        if kind == "sequence":
            t.sequence_type.elem_type.tensor_type.elem_type = elem
        elif kind == "optional":
            t.optional_type.elem_type.tensor_type.elem_type = elem
        elif kind == "map":
            t.map_type.key_type = TensorProto.INT64
            t.map_type.value_type.tensor_type.elem_type = elem
        return "type=" + kind
    tensor.elem_type = rng.choice(ELEM_TYPES)
    return "elem=%d" % tensor.elem_type


def hostile_attribute(name, rng):
    """A new attribute `name` of a random type and hostile value."""
    kind = rng.choice(["int", "ints", "float", "string", "tensor", "graph"])
    if kind == "int":
        return helper.make_attribute(name, rng.choice(HOSTILE_INTS))
    if kind == "ints":
        n = rng.choice([0, 1, 2, 3, 4, 8])
        attr = AttributeProto(name=name, type=AttributeProto.INTS)
        attr.ints.extend(rng.choice(HOSTILE_INTS) for _ in range(n))
        return attr
    if kind == "float":
        return helper.make_attribute(name, rng.choice([0.0, -1.0, 1e38, float("nan")]))
    if kind == "string":
        return helper.make_attribute(name, rng.choice(["", "BOGUS", "SAME_UPPER", "VALID", "NOTSET", "tanh"]))
    if kind == "tensor":
        return helper.make_attribute(name, helper.make_tensor(
            "t", TensorProto.INT64, [2], [rng.choice(HOSTILE_INTS), -1]))
    # An empty subgraph, or one with a dangling output.
    g = helper.make_graph([], "body", [], [helper.make_tensor_value_info(
        "nowhere", TensorProto.FLOAT, [1])])
    return helper.make_attribute(name, g)


def perturb_attribute(attr, rng):
    """Mutates attr in place (or replaces its type); returns a description."""
    choice = rng.choice(["value", "value", "value", "type", "empty", "length"])
    if choice == "type":
        new = hostile_attribute(attr.name, rng)
        if new.type == attr.type:
            new = helper.make_attribute(attr.name, rng.choice([1.5, "x", [1, 2]]))
        attr.CopyFrom(new)
        return "type=%s" % AttributeProto.AttributeType.Name(attr.type)
    if attr.type == AttributeProto.INT:
        attr.i = rng.choice(HOSTILE_INTS)
        return "i=%d" % attr.i
    if attr.type == AttributeProto.INTS:
        if choice == "empty" or not attr.ints:
            del attr.ints[:]
            return "ints=[]"
        if choice == "length":
            if rng.random() < 0.5:
                attr.ints.append(rng.choice([0, 1, HUGE]))
                return "ints+"
            del attr.ints[-1]
            return "ints-"
        k = rng.randrange(len(attr.ints))
        attr.ints[k] = rng.choice(HOSTILE_INTS)
        return "ints[%d]=%d" % (k, attr.ints[k])
    if attr.type == AttributeProto.FLOAT:
        attr.f = rng.choice([0.0, -1.0, float("nan"), float("inf"), 1e38, -0.0])
        return "f=%s" % attr.f
    if attr.type == AttributeProto.FLOATS:
        if choice == "empty" or not attr.floats:
            del attr.floats[:]
            return "floats=[]"
        attr.floats.append(float("nan"))
        return "floats+nan"
    if attr.type == AttributeProto.STRING:
        attr.s = rng.choice([b"", b"BOGUS", b"SAME_UPPER", b"SAME_LOWER", b"VALID", b"\xff\xfe"])
        return "s=%r" % attr.s
    if attr.type == AttributeProto.TENSOR:
        return "tensor:" + perturb_tensor(attr.t, rng)
    if attr.type == AttributeProto.GRAPH:
        attr.g.ClearField("node")
        return "graph-emptied"
    attr.ClearField("type")
    return "type-cleared"


# ---------------------------------------------------------------------------
# The mutations: each takes (model, rng) and returns a short description, or
# None when it does not apply to this model.

def m_delete_node(model, rng):
    """Deletes a node; "bypass" also feeds its consumers (and the graph
    outputs it made) with its first input, which keeps the graph well
    formed, so the mismatch surfaces in shapes and types."""
    g = model.graph
    i = pick_node(g, rng)
    if i is None:
        return None
    label = node_label(g, i)
    node = g.node[i]
    source = next((n for n in node.input if n), None)
    bypass = source is not None and rng.random() < 0.6
    if bypass:
        gone = set(o for o in node.output if o)
        for n in g.node:
            for j, name in enumerate(n.input):
                if name in gone:
                    n.input[j] = source
        for v in g.output:
            if v.name in gone:
                v.name = source
    del g.node[i]
    return label + (":bypass" if bypass else "")


def m_insert_node(model, rng):
    """Inserts a node of a random real operator, its inputs taken from values
    defined before it, with 0 to 2 hostile attributes, and feeds its output
    to a later node in place of one of that node's inputs."""
    g = model.graph
    if not g.node:
        return None
    i = rng.randrange(len(g.node))
    earlier = [v.name for v in g.input] + [t.name for t in g.initializer]
    earlier += [o for n in g.node[:i] for o in n.output if o]
    if not earlier:
        return None
    op = rng.choice(REAL_OPS)
    inputs = [rng.choice(earlier) for _ in range(rng.choice([1, 1, 2, 2, 3]))]
    name = "inserted_%d" % i
    node = helper.make_node(op, inputs, [name], name=name)
    for _ in range(rng.choice([0, 0, 1, 2])):
        node.attribute.append(hostile_attribute(rng.choice(EXTRA_ATTRS), rng))
    g.node.insert(i, node)
    consumers = [(k, j) for k in range(i + 1, len(g.node))
                 for j in range(len(g.node[k].input)) if g.node[k].input[j]]
    if consumers:
        k, j = rng.choice(consumers)
        g.node[k].input[j] = name
    return "%s@%d(%d inputs, %d attributes)" % (op, i, len(inputs), len(node.attribute))


def m_swap_inputs(model, rng):
    g = model.graph
    i = pick_node(g, rng, lambda n: len(n.input) > 1)
    if i is None:
        return None
    node = g.node[i]
    names = list(node.input)
    rng.shuffle(names)
    if names == list(node.input):
        names.reverse()
    del node.input[:]
    node.input.extend(names)
    return node_label(g, i)


def m_duplicate_node(model, rng):
    g = model.graph
    i = pick_node(g, rng)
    if i is None:
        return None
    label = node_label(g, i)
    copy = onnx.NodeProto()
    copy.CopyFrom(g.node[i])
    how = rng.choice(["same-outputs", "renamed-outputs", "at-start"])
    if how == "renamed-outputs":
        for k in range(len(copy.output)):
            copy.output[k] = copy.output[k] + "_dup"
    position = 0 if how == "at-start" else i + 1
    g.node.insert(position, copy)
    return "%s:%s" % (label, how)


def m_op_type(model, rng):
    g = model.graph
    i = pick_node(g, rng)
    if i is None:
        return None
    node = g.node[i]
    label = node_label(g, i)
    r = rng.random()
    if r < 0.7:
        node.op_type = rng.choice(REAL_OPS)
    elif r < 0.85:
        node.op_type = rng.choice(UNKNOWN_OPS)
    else:
        node.domain = rng.choice(DOMAINS)
        return "%s:domain=%s" % (label, node.domain)
    return "%s:%s" % (label, node.op_type)


def m_rewire(model, rng):
    g = model.graph
    i = pick_node(g, rng, lambda n: len(n.input) > 0)
    if i is None:
        return None
    node = g.node[i]
    j = rng.randrange(len(node.input))
    later = [o for n in g.node[i:] for o in n.output if o]
    earlier = [v.name for v in g.input] + [t.name for t in g.initializer]
    earlier += [o for n in g.node[:i] for o in n.output if o]
    how = rng.choice(["later", "later", "self", "missing", "empty", "earlier",
                      "earlier", "earlier", "earlier"])
    if how == "later" and later:
        node.input[j] = rng.choice(later)
    elif how == "self" and node.output:
        node.input[j] = node.output[0]
    elif how == "missing":
        node.input[j] = "no_such_tensor"
    elif how == "empty":
        node.input[j] = ""
    elif earlier:
        how = "earlier"
        node.input[j] = rng.choice(earlier)
    else:
        return None
    return "%s.in%d:%s" % (node_label(g, i), j, how)


def m_node_inputs(model, rng):
    g = model.graph
    i = pick_node(g, rng)
    if i is None:
        return None
    node = g.node[i]
    how = rng.choice(["drop", "add", "add-empty", "dup"])
    if how == "drop" and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif how == "add":
        node.input.append(rng.choice(all_names(g)))
    elif how == "add-empty":
        node.input.append("")
    elif node.input:
        how = "dup"
        node.input.append(node.input[rng.randrange(len(node.input))])
    else:
        return None
    return "%s:%s" % (node_label(g, i), how)


def m_node_outputs(model, rng):
    g = model.graph
    i = pick_node(g, rng)
    if i is None:
        return None
    node = g.node[i]
    how = rng.choice(["drop", "add", "dup", "empty"])
    if how == "drop" and node.output:
        del node.output[rng.randrange(len(node.output))]
    elif how == "add":
        node.output.append("extra_%d" % i)
    elif how == "empty" and node.output:
        node.output[rng.randrange(len(node.output))] = ""
    elif node.output:
        how = "dup"
        node.output.append(node.output[0])
    else:
        return None
    return "%s:%s" % (node_label(g, i), how)


def m_rename(model, rng):
    g = model.graph
    how = rng.choice(["node-output", "node-output-everywhere",
                      "node-output-everywhere", "graph-input", "graph-output",
                      "to-duplicate", "initializer"])
    names = all_names(g)
    new = "renamed"
    if how == "to-duplicate":
        new = rng.choice(names)
        how = rng.choice(["node-output", "graph-input", "graph-output", "initializer"]) + "->dup"
    if how.startswith("node-output"):
        i = pick_node(g, rng, lambda n: len(n.output) > 0)
        if i is None:
            return None
        node = g.node[i]
        k = rng.randrange(len(node.output))
        old = node.output[k]
        node.output[k] = new
        if how == "node-output-everywhere":
            for n in g.node:
                for j, name in enumerate(n.input):
                    if name == old:
                        n.input[j] = new
            for v in g.output:
                if v.name == old:
                    v.name = new
        return "%s.out%d:%s" % (node_label(g, i), k, how)
    if how.startswith("graph-input") and g.input:
        rng.choice(g.input).name = new
    elif how.startswith("graph-output") and g.output:
        rng.choice(g.output).name = new
    elif g.initializer:
        rng.choice(g.initializer).name = new
    else:
        return None
    return how


def m_attribute(model, rng):
    g = model.graph
    i = pick_node(g, rng, lambda n: len(n.attribute) > 0)
    how = rng.choice(["drop", "perturb", "perturb", "perturb", "add", "duplicate"])
    if i is None or how == "add":
        i = pick_node(g, rng)
        if i is None:
            return None
        node = g.node[i]
        name = rng.choice(EXTRA_ATTRS)
        node.attribute.append(hostile_attribute(name, rng))
        return "%s:add-%s" % (node_label(g, i), name)
    node = g.node[i]
    k = rng.randrange(len(node.attribute))
    attr = node.attribute[k]
    label = "%s.%s" % (node_label(g, i), attr.name)
    if how == "drop":
        del node.attribute[k]
        return label + ":drop"
    if how == "duplicate":
        copy = node.attribute.add()
        copy.CopyFrom(attr)
        return label + ":duplicate"
    return label + ":" + perturb_attribute(attr, rng)


def m_value_info(model, rng):
    g = model.graph
    where = rng.choice(["input", "input", "output", "value_info"])
    if where == "value_info":
        if not g.value_info or rng.random() < 0.5:
            # Declare a type for some intermediate value.
            outputs = [o for n in g.node for o in n.output if o]
            if not outputs:
                return None
            info = g.value_info.add()
            info.name = rng.choice(outputs)
            info.type.tensor_type.elem_type = TensorProto.FLOAT
            info.type.tensor_type.shape.dim.add().dim_value = 7
            return "value_info-added:" + perturb_value_info(info, rng)
        info = rng.choice(g.value_info)
    else:
        infos = g.input if where == "input" else g.output
        if not infos:
            return None
        info = rng.choice(infos)
    return "%s:%s" % (where, perturb_value_info(info, rng))


def m_initializer(model, rng):
    g = model.graph
    if not g.initializer:
        return None
    k = rng.randrange(len(g.initializer))
    name = g.initializer[k].name
    if rng.random() < 0.25:
        del g.initializer[k]
        return name + ":removed"
    return "%s:%s" % (name, perturb_tensor(g.initializer[k], rng))


def m_constant(model, rng):
    g = model.graph
    i = pick_node(g, rng, lambda n: n.op_type == "Constant" and n.attribute)
    if i is None:
        return m_initializer(model, rng)
    attr = g.node[i].attribute[0]
    if attr.type != AttributeProto.TENSOR:
        return "%s:%s" % (node_label(g, i), perturb_attribute(attr, rng))
    return "%s:%s" % (node_label(g, i), perturb_tensor(attr.t, rng))


def m_opset(model, rng):
    how = rng.choice(["opset", "opset", "ir", "no-opset", "two-default", "domain-opset"])
    if how == "opset":
        v = rng.choice([0, 1, 6, 7, 9, 11, 13, 99, -1])
        for o in model.opset_import:
            if o.domain in ("", "ai.onnx"):
                o.version = v
        return "opset=%d" % v
    if how == "ir":
        model.ir_version = rng.choice([0, 1, 3, 7, 9, 10, 11, 99, -1])
        return "ir=%d" % model.ir_version
    if how == "no-opset":
        del model.opset_import[:]
        return "no-opset"
    if how == "two-default":
        model.opset_import.add().version = rng.choice([1, 99])
        return "two-default-opsets"
    entry = model.opset_import.add()
    entry.domain, entry.version = "com.microsoft", 1
    return "extra-domain"


def m_graph_io(model, rng):
    g = model.graph
    how = rng.choice(["dup-input", "dup-output", "input-from-initializer",
                      "drop-output", "drop-input", "output-of-input",
                      "no-outputs", "output-intermediate"])
    if how == "dup-input" and g.input:
        g.input.add().CopyFrom(rng.choice(g.input))
    elif how == "dup-output" and g.output:
        g.output.add().CopyFrom(rng.choice(g.output))
    elif how == "input-from-initializer" and g.initializer:
        init = rng.choice(g.initializer)
        info = helper.make_tensor_value_info(init.name, init.data_type, list(init.dims))
        g.input.append(info)
    elif how == "drop-output" and g.output:
        del g.output[rng.randrange(len(g.output))]
    elif how == "drop-input" and g.input:
        del g.input[rng.randrange(len(g.input))]
    elif how == "output-of-input" and g.input:
        g.output.add().CopyFrom(rng.choice(g.input))
    elif how == "no-outputs":
        del g.output[:]
    else:
        outputs = [o for n in g.node for o in n.output if o]
        if not outputs:
            return None
        how = "output-intermediate"
        info = g.output.add()
        info.name = rng.choice(outputs)
        info.type.tensor_type.elem_type = TensorProto.FLOAT
    return how


MUTATIONS = collections.OrderedDict([
    ("del-node", (m_delete_node, 3)),
    ("dup-node", (m_duplicate_node, 2)),
    ("insert-node", (m_insert_node, 4)),
    ("swap-inputs", (m_swap_inputs, 2)),
    ("op-type", (m_op_type, 4)),
    ("rewire", (m_rewire, 4)),
    ("node-inputs", (m_node_inputs, 3)),
    ("node-outputs", (m_node_outputs, 2)),
    ("rename", (m_rename, 3)),
    ("attribute", (m_attribute, 6)),
    ("value-info", (m_value_info, 3)),
    ("initializer", (m_initializer, 3)),
    ("constant", (m_constant, 3)),
    ("opset", (m_opset, 1)),
    ("graph-io", (m_graph_io, 2)),
])


def make_mutant(seed_model, rng):
    """A mutated copy of seed_model and the list of (kind, description)."""
    model = onnx.ModelProto()
    model.CopyFrom(seed_model)
    applied = []
    kinds = list(MUTATIONS)
    weights = [MUTATIONS[k][1] for k in kinds]
    want = rng.randint(1, 3)
    for _ in range(20):
        if len(applied) == want:
            break
        kind = rng.choices(kinds, weights)[0]
        description = MUTATIONS[kind][0](model, rng)
        if description is not None:
            applied.append((kind, description))
    # Half the mutants declare IR version 10: Tessel runs libonnx's checker
    # only for IR <= 8 and opset <= 17, so those reach the importer's own
    # checks (which must hold without the checker).
    if rng.random() < 0.5 and not any(k == "opset" for k, _ in applied):
        model.ir_version = 10
        applied.append(("ir10", ""))
    return model, applied


# ---------------------------------------------------------------------------
# Running tessel-compile.

DIAGNOSTIC = re.compile(r"error\[E(\d{4})\]")


def classify(rc, stderr, timed_out):
    if timed_out:
        return "hang", None
    codes = DIAGNOSTIC.findall(stderr)
    code = codes[0] if codes else None
    # A sanitizer's report (a sanitized tessel-compile) is a crash whatever
    # the exit code, as in the conformance runner.
    if SANITIZER_RE.search(stderr):
        return "crash", code
    if rc == 0:
        return "compiled", None
    if rc < 0 or rc >= 128 or "Stack dump" in stderr or "PLEASE submit" in stderr:
        return "crash", code
    if not codes:
        return "crash", None  # a failure without a diagnostic
    if "0099" in codes:
        return "internal", "0099"
    return "diagnostic", code


def limit_memory(megabytes):
    def apply():
        import resource
        if megabytes > 0:  # 0: no limit (AddressSanitizer reserves terabytes)
            limit = megabytes * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.nice(10)
    return apply


def compile_one(job):
    command, timeout, memory_mb = job["command"], job["timeout"], job["memory_mb"]
    start = time.monotonic()
    try:
        proc = subprocess.run(command, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout,
                              preexec_fn=limit_memory(memory_mb))
        rc, stderr, timed_out = proc.returncode, proc.stderr, False
    except subprocess.TimeoutExpired as e:
        rc, stderr, timed_out = None, e.stderr or b"", True
    stderr = stderr.decode("utf-8", "replace")
    outcome, code = classify(rc, stderr, timed_out)
    if job.get("so"):
        try:
            os.remove(job["so"])
        except OSError:
            pass
    return dict(job, rc=rc, stderr=stderr, outcome=outcome, code=code,
                seconds=time.monotonic() - start)


def describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return "signal %d" % -rc
    return "rc %d" % rc


def safe(text, limit=60):
    text = re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text)
    return text[:limit]


OUTCOMES = ["compiled", "diagnostic", "internal", "crash", "hang"]
FAILURES = {"internal", "crash", "hang"}


def table(title, rows):
    lines = ["%-20s %6s " % (title, "total") + " ".join("%10s" % o for o in OUTCOMES)]
    for name, counts in rows:
        lines.append("%-20s %6d " % (name, sum(counts.values())) +
                     " ".join("%10d" % counts.get(o, 0) for o in OUTCOMES))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build",
                        help="build directory with bin/tessel-compile (default: build)")
    parser.add_argument("--compiler", help="tessel-compile to run (overrides --build)")
    parser.add_argument("--seeds", nargs="*",
                        help="seed models (default: test/robustness/seeds/*.onnx)")
    parser.add_argument("--count", type=int, default=200, help="mutants per seed")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    parser.add_argument("--out", help="directory for mutants and repros "
                        "(default: BUILD/mutants)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel compiles")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per compile")
    parser.add_argument("--full-every", type=int, default=10,
                        help="compile every Nth mutant to a .so (0: none)")
    parser.add_argument("--memory-mb", type=int, default=4096,
                        help="address-space limit of a compile, in MiB (0: none, "
                        "for a sanitized build)")
    parser.add_argument("--generate-only", action="store_true",
                        help="write the mutants, compile nothing")
    parser.add_argument("--keep", action="store_true",
                        help="keep every mutant, not only the failures' repros")
    parser.add_argument("--json", help="write every result to this JSON file")
    args = parser.parse_args()

    compiler = args.compiler or os.path.join(args.build, "bin", "tessel-compile")
    if not args.generate_only and not os.access(compiler, os.X_OK):
        sys.exit("mutate_models.py: no tessel-compile at %s (--build DIR)" % compiler)
    seeds = args.seeds or sorted(
        os.path.join(ROOT, "test", "robustness", "seeds", f)
        for f in os.listdir(os.path.join(ROOT, "test", "robustness", "seeds"))
        if f.endswith(".onnx"))
    out = os.path.abspath(args.out or os.path.join(args.build, "mutants"))
    mutants_dir, repro_dir = os.path.join(out, "mutants"), os.path.join(out, "repros")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(mutants_dir)
    os.makedirs(repro_dir)

    start = time.monotonic()
    jobs = []
    for seed_path in seeds:
        seed_name = os.path.splitext(os.path.basename(seed_path))[0]
        seed_model = onnx.load(seed_path)
        for index in range(args.count):
            rng = random.Random("%d:%s:%d" % (args.seed, seed_name, index))
            model, applied = make_mutant(seed_model, rng)
            name = "%s-%03d-%s" % (seed_name, index, "+".join(
                safe(kind + ("-" + desc if desc else ""), 48) for kind, desc in applied))
            path = os.path.join(mutants_dir, name + ".onnx")
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
            full = args.full_every and index % args.full_every == 0
            command = [compiler, path]
            so = None
            if full:
                so = os.path.join(mutants_dir, name + ".so")
                command += ["-o", so]
            else:
                command += ["--compile-to=graph", "-o", os.devnull]
            jobs.append(dict(seed=seed_name, index=index, path=path, name=name,
                             mutations=applied, command=command, so=so,
                             full=bool(full), timeout=args.timeout,
                             memory_mb=args.memory_mb))
    print("mutate_models.py: %d mutants of %d seeds in %s (%.1f s)" %
          (len(jobs), len(seeds), mutants_dir, time.monotonic() - start), flush=True)
    if args.generate_only:
        return 0

    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for result in pool.map(compile_one, jobs):
            results.append(result)
            if result["outcome"] in FAILURES:
                print("  %s %s: %s" % (result["outcome"].upper(), result["name"],
                                       describe_rc(result["rc"])), flush=True)
    wall = time.monotonic() - start

    # Repros of every failure: the model, the command, its stderr.
    failures = [r for r in results if r["outcome"] in FAILURES]
    for r in failures:
        base = os.path.join(repro_dir, r["name"])
        shutil.copy(r["path"], base + ".onnx")
        with open(base + ".txt", "w") as f:
            f.write("mutations: %s\n" % r["mutations"])
            f.write("command: %s\n" % " ".join(r["command"]))
            f.write("result: %s (%s)\n\n%s" % (r["outcome"], describe_rc(r["rc"]), r["stderr"]))
    if not args.keep:
        shutil.rmtree(mutants_dir, ignore_errors=True)

    by_seed = collections.OrderedDict()
    by_kind = collections.OrderedDict((k, collections.Counter()) for k in list(MUTATIONS) + ["ir10"])
    by_phase = collections.OrderedDict([("graph", collections.Counter()),
                                        ("full (.so)", collections.Counter())])
    codes = collections.Counter()
    for r in results:
        by_seed.setdefault(r["seed"], collections.Counter())[r["outcome"]] += 1
        for kind in set(k for k, _ in r["mutations"]):
            by_kind[kind][r["outcome"]] += 1
        by_phase["full (.so)" if r["full"] else "graph"][r["outcome"]] += 1
        if r["code"]:
            codes["E" + r["code"]] += 1
    total = collections.Counter(r["outcome"] for r in results)
    print()
    print(table("seed", list(by_seed.items()) + [("all", total)]))
    print()
    print(table("compiled to", list(by_phase.items())))
    print()
    print(table("mutation kind", [(k, c) for k, c in by_kind.items() if c]))
    print()
    print("diagnostics by code: " + ", ".join("%s %d" % kv for kv in sorted(codes.items())))
    print("wall time: %.1f s for %d mutants (--jobs %d)" % (wall, len(results), args.jobs))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: r[k] for k in ("name", "seed", "index", "mutations", "full",
                                          "rc", "outcome", "code", "seconds", "stderr")}
                       for r in results], f, indent=1)
    if failures:
        print("%d failures (internal, crash, hang); repros in %s" % (len(failures), repro_dir))
        return 1
    print("no crash, hang or internal error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
