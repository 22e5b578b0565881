"""tessel-compare: a per-layer accuracy report for two runs of one model.

    tessel-compare A.so REFERENCE [--input [NAME=]FILE ... | --inputs FILE.npz]
                   [--model MODEL.onnx] [--json OUT.json] [--plot OUT.svg]

``A.so`` is an artifact built with ``tessel-compile --debug-outputs``: it
returns every model node's output as ``debug:<node>``. ``REFERENCE`` is what
it is compared with, on the same inputs:

- another artifact of the same model (``B.so``, also with ``--debug-outputs``):
  two precisions, two targets, two versions of Tessel;
- the ONNX model itself (``MODEL.onnx``), run by onnxruntime with each node's
  output added to the graph's outputs;
- a ``.npz`` of reference tensors keyed by node name (``debug:<node>`` or
  ``<node>``) or output name, such as ``--save-reference`` writes.

For each node, in A's program order, it prints the ONNX node's name and op
type, the cosine similarity, the largest absolute error and the largest
relative error (``|a - r| / max(|r|, 0.1% of max |r|)``), and marks the first
node where the error jumps: where ``1 - cosine`` is at least ``--jump-floor``
and more than ``--jump-factor`` times the largest ``1 - cosine`` before it.
The model's own outputs follow. ``--json`` writes the same data, ``--plot``
an SVG of the cosine per node.

Exit status: 0 compared, 1 a model output's cosine is below ``--min-cosine``
(when given), 2 bad usage or a bad file, 3 a model failed to load or run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Optional

import numpy as np

DEBUG_PREFIX = "debug:"


class UsageError(Exception):
    pass


class RunError(Exception):
    pass


# --- what is compared -------------------------------------------------------

def node_of(output_name: str) -> tuple[str, int]:
    """``debug:<nodes>[:i]`` -> (nodes, i). ``<nodes>`` is one node's name,
    or several joined by ``+`` (an op that absorbed others, the last being
    the node whose output it is)."""
    name = output_name[len(DEBUG_PREFIX):]
    head, sep, tail = name.rpartition(":")
    if sep and tail.isdigit():
        return head, int(tail)
    return name, 0


def last_node(nodes: str, known) -> str:
    """The node whose output ``nodes`` (see node_of) is: the whole string
    when it is a node of the model (a name that contains '+'), else the part
    after the last '+'."""
    return nodes if nodes in known else nodes.rpartition("+")[2]


def onnx_nodes(model) -> dict[str, tuple[str, list[str]]]:
    """node name -> (op type, output names), named as tessel-compile names
    them: the node's name, else ``<OpType>#<index>``."""
    nodes = {}
    for index, node in enumerate(model.graph.node):
        name = node.name or f"{node.op_type}#{index}"
        nodes[name] = (node.op_type, list(node.output))
    return nodes


def metrics(actual: np.ndarray, reference: np.ndarray) -> dict:
    a = np.asarray(actual, np.float64).ravel()
    r = np.asarray(reference, np.float64).ravel()
    finite = bool(np.isfinite(a).all() and np.isfinite(r).all())
    na, nr = float(np.linalg.norm(a)), float(np.linalg.norm(r))
    if not finite:
        cosine = float("nan")
    elif na == 0.0 and nr == 0.0:
        cosine = 1.0
    elif na == 0.0 or nr == 0.0:
        cosine = 0.0
    else:
        cosine = float(np.dot(a, r) / (na * nr))
        cosine = max(-1.0, min(1.0, cosine))
    diff = np.abs(a - r)
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = np.abs(r)
    floor = 1e-3 * float(scale.max()) if scale.size else 0.0
    denominator = np.maximum(scale, floor if floor > 0.0 else 1e-30)
    max_rel = float((diff / denominator).max()) if diff.size else 0.0
    return {"cosine": cosine, "max_abs": max_abs, "max_rel": max_rel}


def error_of(cosine: float) -> float:
    """1 - cosine; a NaN cosine is the largest error there is."""
    return math.inf if math.isnan(cosine) else max(0.0, 1.0 - cosine)


def mark_jump(rows: list[dict], factor: float, floor: float) -> Optional[int]:
    """Index of the first compared row whose error jumps (see the module's
    doc), or None."""
    worst_before = 0.0
    for i, row in enumerate(rows):
        if row.get("cosine") is None:
            continue
        error = error_of(row["cosine"])
        if error >= floor and error > factor * worst_before:
            return i
        worst_before = max(worst_before, error)
    return None


# --- running the two sides --------------------------------------------------

def load_inputs(args, infos) -> dict[str, np.ndarray]:
    inputs: dict[str, np.ndarray] = {}
    if args.inputs:
        with np.load(args.inputs) as npz:
            for info in infos:
                if info.name not in npz:
                    raise UsageError(f"{args.inputs} has no array named '{info.name}' "
                                     f"(it has: {', '.join(npz.files)})")
                inputs[info.name] = npz[info.name]
    unnamed = 0
    for spec in args.input or []:
        name, sep, path = spec.partition("=")
        if not sep:
            path = spec
            if unnamed >= len(infos):
                raise UsageError(f"--input {spec}: the model has {len(infos)} inputs")
            name = infos[unnamed].name
            unnamed += 1
        value = np.load(path, allow_pickle=False)
        if not isinstance(value, np.ndarray):
            raise UsageError(f"--input {spec}: {path} is not one .npy array "
                             "(pass a .npz with --inputs)")
        inputs[name] = value
    rng = np.random.default_rng(args.seed)
    for info in infos:
        if info.name in inputs:
            value = inputs[info.name]
            if tuple(value.shape) != tuple(info.shape):
                raise UsageError(f"input '{info.name}' has shape {tuple(value.shape)}, "
                                 f"the model takes {tuple(info.shape)}")
            inputs[info.name] = np.ascontiguousarray(value, dtype=info.dtype)
            continue
        if not np.issubdtype(info.dtype, np.floating):
            raise UsageError(f"input '{info.name}' ({info.dtype}) needs a value: "
                             "pass --input or --inputs")
        inputs[info.name] = rng.standard_normal(info.shape).astype(info.dtype)
    return inputs


def run_artifact(path: str, inputs_for, threads: int):
    """Loads the artifact at ``path`` once, asks ``inputs_for(its input
    infos)`` for its inputs, and runs it: returns (inputs, output names,
    outputs)."""
    import tessel

    try:
        with tessel.load(path) as model, model.session(threads) as session:
            inputs = inputs_for(list(model.inputs))
            outputs = session.run({i.name: inputs[i.name] for i in model.inputs})
            return inputs, [o.name for o in model.outputs], outputs
    except tessel.TesselError as error:
        raise RunError(f"{path}: {error}") from error


def same_inputs(inputs, path: str):
    """``inputs_for`` for a second artifact: the first one's inputs, which
    must be all it takes."""
    def inputs_for(infos):
        missing = [i.name for i in infos if i.name not in inputs]
        if missing:
            raise UsageError(f"{path} takes inputs the first artifact does not: "
                             + ", ".join(missing))
        return inputs
    return inputs_for


def run_onnxruntime(model, wanted: list[str], inputs, threads: int) -> dict:
    """Runs ``model`` (an onnx ModelProto) with the value names ``wanted`` as
    extra graph outputs; returns {value name: array}."""
    import onnx
    import onnxruntime as ort

    graph_outputs = {o.name for o in model.graph.output}
    extended = onnx.ModelProto()
    extended.CopyFrom(model)
    for name in wanted:
        if name not in graph_outputs:
            extended.graph.output.append(onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(threads, 1) if threads else 0
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(extended.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        fed = {i.name: inputs[i.name] for i in session.get_inputs() if i.name in inputs}
        values = session.run(names, fed)
    except Exception as error:  # onnxruntime raises its own exception types
        raise RunError(f"onnxruntime: {error}") from error
    return dict(zip(names, values))


# --- the report --------------------------------------------------------------

def op_type_of(nodes: str, op_types: dict) -> Optional[str]:
    if not op_types:
        return None
    if nodes in op_types:
        return op_types[nodes]
    return "+".join(op_types.get(n, "?") for n in nodes.split("+"))


def build_rows(names_a, outputs_a, lookup, op_types) -> list[dict]:
    """One row per output of A: its debug outputs in program order, then its
    model outputs. ``lookup(output name)`` gives the reference or None."""
    debug = [n for n in names_a if n.startswith(DEBUG_PREFIX)]
    model = [n for n in names_a if not n.startswith(DEBUG_PREFIX)]
    rows = []
    for name in debug + model:
        is_node = name.startswith(DEBUG_PREFIX)
        node, index = node_of(name) if is_node else (name, 0)
        actual = outputs_a[name]
        row = {"output": name, "node": node if is_node else None,
               "result": index,
               "op_type": op_type_of(node, op_types) if is_node else None,
               "kind": "node" if is_node else "model output",
               "shape": list(actual.shape), "cosine": None}
        reference = lookup(name)
        if reference is None:
            row["note"] = "not in the reference"
        elif tuple(np.shape(reference)) != tuple(actual.shape):
            row["note"] = f"reference shape {list(np.shape(reference))}"
        elif not (np.issubdtype(actual.dtype, np.number)
                  and np.issubdtype(np.asarray(reference).dtype, np.number)):
            row["note"] = "not numeric"
        else:
            row.update(metrics(actual, reference))
        rows.append(row)
    return rows


def format_table(rows: list[dict], jump: Optional[int], out) -> None:
    labels = [(r["node"] or r["output"]) + (f":{r['result']}" if r["result"] else "")
              for r in rows]
    width = max([len(label) for label in labels] + [4])
    types = [r["op_type"] or ("output" if r["kind"] == "model output" else "") for r in rows]
    type_width = max([len(t) for t in types] + [7])
    print(f"{'#':>4}  {'node':<{width}}  {'op type':<{type_width}}  {'cosine':>12}  "
          f"{'max abs':>10}  {'max rel':>10}", file=out)
    for i, (row, label, op_type) in enumerate(zip(rows, labels, types)):
        if row["cosine"] is None:
            values = f"{row.get('note', ''):>36}"
        else:
            values = (f"{row['cosine']:12.8f}  {row['max_abs']:10.3e}  "
                      f"{row['max_rel']:10.3e}")
        marker = "  <- first jump" if i == jump else ""
        print(f"{i:>4}  {label:<{width}}  {op_type:<{type_width}}  {values}{marker}",
              file=out)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="tessel-compare",
        description="Per-layer accuracy report: an artifact built with "
        "--debug-outputs against another artifact, the ONNX model (run by "
        "onnxruntime) or a .npz of reference tensors.")
    parser.add_argument("artifact", help="A.so, built with tessel-compile --debug-outputs")
    parser.add_argument("reference", help="B.so, MODEL.onnx or REFERENCE.npz")
    parser.add_argument("--input", action="append", metavar="[NAME=]FILE",
                        help="an input tensor (.npy); repeat for each input")
    parser.add_argument("--inputs", metavar="FILE.npz",
                        help="the inputs, one array per input name")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random normal inputs given to float "
                        "inputs without a value (default 0)")
    parser.add_argument("--model", metavar="MODEL.onnx",
                        help="the ONNX model, for the nodes' op types (implied "
                        "when REFERENCE is the model)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per run (default 1)")
    parser.add_argument("--json", metavar="OUT.json", help="write the report as JSON")
    parser.add_argument("--plot", metavar="OUT.svg", help="write an SVG of the cosine per node")
    parser.add_argument("--save-reference", metavar="OUT.npz",
                        help="with MODEL.onnx: save onnxruntime's tensors, keyed "
                        "by A's output names, to compare with again later")
    parser.add_argument("--jump-factor", type=float, default=10.0,
                        help="a jump: 1 - cosine more than this many times the "
                        "largest before it (default 10)")
    parser.add_argument("--jump-floor", type=float, default=1e-5,
                        help="... and at least this (default 1e-5)")
    parser.add_argument("--min-cosine", type=float,
                        help="exit 1 when a model output's cosine is below this")
    return parser.parse_args(argv)


def compare(args, out=sys.stdout) -> int:
    reference_path = args.reference
    is_onnx = reference_path.endswith(".onnx")
    model_path = args.model or (reference_path if is_onnx else None)
    model = None
    op_types: dict[str, str] = {}
    if model_path:
        import onnx

        try:
            model = onnx.load(model_path)
        except Exception as error:
            raise UsageError(f"cannot read {model_path}: {error}") from error
        op_types = {name: op for name, (op, _) in onnx_nodes(model).items()}

    inputs, names_a, outputs_a = run_artifact(
        args.artifact, lambda infos: load_inputs(args, infos), args.threads)
    if not any(n.startswith(DEBUG_PREFIX) for n in names_a):
        print(f"tessel-compare: warning: {args.artifact} has no debug outputs "
              "(compile it with --debug-outputs): only the model's outputs are "
              "compared", file=sys.stderr)

    if is_onnx:
        nodes = onnx_nodes(model)
        value_of = {}
        for name in names_a:
            if name.startswith(DEBUG_PREFIX):
                node, index = node_of(name)
                outs = nodes.get(last_node(node, nodes), (None, []))[1]
                if index < len(outs) and outs[index]:
                    value_of[name] = outs[index]
            else:
                value_of[name] = name
        values = run_onnxruntime(model, sorted(set(value_of.values())), inputs,
                                 args.threads)
        reference = {name: values.get(value) for name, value in value_of.items()}
        if args.save_reference:
            np.savez(args.save_reference,
                     **{k: v for k, v in reference.items() if v is not None})
    elif reference_path.endswith(".npz"):
        with np.load(reference_path) as npz:
            stored = {k: npz[k] for k in npz.files}
        reference = {}
        for name in names_a:
            plain = (last_node(node_of(name)[0], stored)
                     if name.startswith(DEBUG_PREFIX) else name)
            reference[name] = stored.get(name, stored.get(plain))
    else:
        _, _, outputs_b = run_artifact(reference_path,
                                       same_inputs(inputs, reference_path), args.threads)
        reference = dict(outputs_b)

    rows = build_rows(names_a, outputs_a, reference.get, op_types)
    node_rows = [r for r in rows if r["kind"] == "node"]
    jump = mark_jump(node_rows, args.jump_factor, args.jump_floor)
    jump_index = rows.index(node_rows[jump]) if jump is not None else None

    print(f"tessel-compare: {args.artifact} against {reference_path}", file=out)
    format_table(rows, jump_index, out)
    compared = [r for r in node_rows if r["cosine"] is not None]
    if jump_index is not None:
        row = rows[jump_index]
        before = [error_of(r["cosine"]) for r in node_rows[:jump] if r["cosine"] is not None]
        print(f"first jump: node '{row['node']}'"
              + (f" ({row['op_type']})" if row["op_type"] else "")
              + f", #{jump_index}: cosine {row['cosine']:.8f}, 1 - cosine "
              f"{error_of(row['cosine']):.3g} after at most {max(before, default=0.0):.3g}",
              file=out)
    elif compared:
        print("first jump: none", file=out)
    if compared:
        worst = max(compared, key=lambda r: error_of(r["cosine"]))
        print(f"lowest cosine: node '{worst['node']}', {worst['cosine']:.8f}", file=out)
    missing = [r for r in rows if r["cosine"] is None]
    if missing:
        print(f"not compared: {len(missing)} of {len(rows)} "
              f"({', '.join(r['output'] for r in missing[:5])}"
              + (", ..." if len(missing) > 5 else "") + ")", file=out)

    report = {"artifact": args.artifact, "reference": reference_path,
              "jump_factor": args.jump_factor, "jump_floor": args.jump_floor,
              "first_jump": rows[jump_index]["node"] if jump_index is not None else None,
              "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, allow_nan=True) + "\n")
    if args.plot:
        from ._compare_plot import cosine_svg

        title = f"{Path(args.artifact).name} against {Path(reference_path).name}"
        Path(args.plot).write_text(cosine_svg(rows, jump_index, title))

    if args.min_cosine is not None:
        low = [r for r in rows if r["kind"] == "model output"
               and (r["cosine"] is None or not r["cosine"] >= args.min_cosine)]
        if low:
            print(f"tessel-compare: model outputs below cosine {args.min_cosine}: "
                  + ", ".join(r["output"] for r in low), file=out)
            return 1
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return compare(args)
    except UsageError as error:
        print(f"tessel-compare: error: {error}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"tessel-compare: error: {error}", file=sys.stderr)
        return 2
    except RunError as error:
        print(f"tessel-compare: error: {error}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
