"""Does batching pay? Per-sample time at batch B against batch 1.

Exports ResNet-18, MobileNetV2, the BERT-like encoder and the MLP with a
symbolic batch (bench/export_models.py --dynamic-batch, under Debian's
/usr/bin/python3 with torch), compiles each with tessel-compile for batch 1
and for each --batches size (--input-shape), checks every batched
artifact's output against onnxruntime's on the same inputs (rtol 1e-4,
atol 1e-5 after scaling by the output's largest magnitude), and times,
interleaved on 1 thread (p50 of --rounds calls each): Tessel at batch 1
and B, Tessel at B without tessel-sample-loops (--disable=sample-loops: each
layer on the whole batch), and onnxruntime at 1 and B on the one dynamic
model. Prints and writes bench/batch-results.md:

    per sample  = time at B / B / time at batch 1 (< 1: batching pays)
    vs ORT      = Tessel / onnxruntime at the same batch
    loop gain   = Tessel at B / Tessel at B without the sample loops

Usage:
    python3 bench/batch.py [--batches 8] [--models resnet18,mobilenet_v2,bert,mlp]
                           [--rounds 15] [--work DIR] [--out FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from layers import cpu_name  # noqa: E402

MODELS = ("resnet18", "mobilenet_v2", "bert", "mlp")


def log(*args):
    print("batch:", *args, file=sys.stderr, flush=True)


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"batch: {' '.join(cmd)} failed ({out.returncode}):\n"
                         f"{out.stderr.strip()}")
    return out.stdout


def export(work, models):
    missing = [m for m in models
               if not os.path.exists(os.path.join(work, m + ".onnx"))]
    if missing:
        log("exporting", ",".join(missing), "with /usr/bin/python3 (torch)")
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"),
             work, "--models", ",".join(missing), "--gemm-sizes", "",
             "--dynamic-batch"])


def ort_session(onnx_path):
    """onnxruntime on 1 thread, the CPU provider."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(onnx_path, options,
                                providers=["CPUExecutionProvider"])


def parse_models(text, tool):
    """--models: names among MODELS, comma-separated."""
    models = text.split(",")
    unknown = set(models) - set(MODELS)
    if unknown:
        raise SystemExit(f"{tool}: unknown model(s) {sorted(unknown)}; "
                         f"known: {','.join(MODELS)}")
    return models


def matches(got, want):
    """rtol 1e-4, atol 1e-5 after scaling by the output's largest magnitude."""
    scale = max(1.0, float(np.max(np.abs(want))))
    return bool(np.allclose(got, want, rtol=1e-4, atol=1e-5 * scale))


def interleaved(calls, rounds):
    """p50 milliseconds of each call after 3 warm-up calls, the calls taking
    turns (each round starting one later)."""
    for call in calls.values():
        for _ in range(3):
            call()
    times = {key: [] for key in calls}
    keys = list(calls)
    for r in range(rounds):
        for i in range(len(keys)):
            key = keys[(i + r) % len(keys)]
            start = time.perf_counter()
            calls[key]()
            times[key].append(time.perf_counter() - start)
    return {k: float(np.median(v)) * 1e3 for k, v in times.items()}


def sample_inputs(work, name, batch, rng):
    """The exported batch-1 inputs, with batch - 1 more random samples
    (token ids drawn like the exported ones)."""
    inputs = dict(np.load(os.path.join(work, name + ".inputs.npz")))
    batched = {}
    for key, first in inputs.items():
        rows = [first]
        for _ in range(batch - 1):
            if np.issubdtype(first.dtype, np.integer):
                rows.append(rng.integers(0, int(first.max()) + 1,
                                         first.shape).astype(first.dtype))
            else:
                rows.append(rng.standard_normal(first.shape).astype(first.dtype))
        batched[key] = np.concatenate(rows, axis=0)
    return batched


def shape_flags(inputs):
    flags = []
    for key, value in inputs.items():
        flags += ["--input-shape", key + "=" + "x".join(map(str, value.shape))]
    return flags


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--batches", default="8")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", help="exported models (kept between runs)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench",
                                                      "batch-results.md"))
    args = parser.parse_args()
    models = parse_models(args.models, "batch")
    batches = [int(b) for b in args.batches.split(",")]
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TESSEL_BUILD_DIR", args.build)
    import tessel

    work = args.work or tempfile.mkdtemp(prefix="tessel-batch-")
    os.makedirs(work, exist_ok=True)
    export(work, models)
    compiler = os.path.join(args.build, "bin", "tessel-compile")
    rng = np.random.default_rng(0)
    rows = []
    for name in models:
        onnx_path = os.path.join(work, name + ".onnx")
        peer = ort_session(onnx_path)
        largest = max(batches)
        feeds = sample_inputs(work, name, largest, rng)
        single = {k: v[:1].copy() for k, v in feeds.items()}
        so1 = os.path.join(work, f"{name}_b1.so")
        run([compiler, onnx_path, *shape_flags(single), "-o", so1])
        one = tessel.load(so1).session(num_threads=1)
        for batch in batches:
            inputs = {k: v[:batch].copy() for k, v in feeds.items()}
            so = os.path.join(work, f"{name}_b{batch}.so")
            flat = os.path.join(work, f"{name}_b{batch}_layers.so")
            log(f"{name}: compiling batch {batch}")
            run([compiler, onnx_path, *shape_flags(inputs), "-o", so])
            run([compiler, onnx_path, *shape_flags(inputs), "-o", flat,
                 "--disable=sample-loops"])
            mine = tessel.load(so).session(num_threads=1)
            layers = tessel.load(flat).session(num_threads=1)
            got = list(mine.run(inputs).values())[0]
            want = peer.run(None, inputs)[0]
            ok = matches(got, want)
            p50 = interleaved({"t1": lambda: one.run(single),
                               "tB": lambda: mine.run(inputs),
                               "tL": lambda: layers.run(inputs),
                               "o1": lambda: peer.run(None, single),
                               "oB": lambda: peer.run(None, inputs)},
                              args.rounds)
            row = dict(model=name, batch=batch, ok=ok, **p50,
                       tessel_per_sample=p50["tB"] / batch / p50["t1"],
                       ort_per_sample=p50["oB"] / batch / p50["o1"],
                       vs_ort_1=p50["t1"] / p50["o1"],
                       vs_ort_b=p50["tB"] / p50["oB"],
                       loop_gain=p50["tB"] / p50["tL"])
            rows.append(row)
            print(f"{name:13s} B={batch:<3d} Tessel b1 {p50['t1']:8.3f} bB "
                  f"{p50['tB']:8.3f} (layers {p50['tL']:8.3f})  ORT b1 "
                  f"{p50['o1']:8.3f} bB {p50['oB']:8.3f}  per sample: Tessel "
                  f"{row['tessel_per_sample']:.3f} ORT {row['ort_per_sample']:.3f}"
                  f"  vs ORT: b1 {row['vs_ort_1']:.3f} bB {row['vs_ort_b']:.3f}"
                  f"  loop gain {row['loop_gain']:.3f}  "
                  f"{'ok' if ok else 'MISMATCH'}", flush=True)
    with open(args.out, "w") as f:
        f.write("# Batching: per-sample time at batch B against batch 1\n\n"
                f"Generated by `python3 bench/batch.py --batches {args.batches}`"
                f" on {time.strftime('%Y-%m-%d')}, {cpu_name()}; do not edit "
                f"by hand. 1 thread, p50 of {args.rounds} interleaved calls "
                "each, milliseconds. Models exported by torch with a symbolic "
                "batch; Tessel compiles one artifact per batch size "
                "(--input-shape), onnxruntime runs the dynamic model. "
                "per sample = time at B / B / time at 1 (< 1: batching "
                "pays); vs ORT = Tessel / onnxruntime at the same batch; "
                "loop gain = Tessel at B / Tessel at B with "
                "--disable=sample-loops (each layer on the whole batch).\n\n"
                "| model | B | Tessel 1 | Tessel B | Tessel B, no sample loops "
                "| ORT 1 | ORT B | per sample Tessel | per sample ORT "
                "| vs ORT at 1 | vs ORT at B | loop gain | matches ORT |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['model']} | {r['batch']} | {r['t1']:.3f} | "
                    f"{r['tB']:.3f} | {r['tL']:.3f} | {r['o1']:.3f} | "
                    f"{r['oB']:.3f} | {r['tessel_per_sample']:.3f} | "
                    f"{r['ort_per_sample']:.3f} | {r['vs_ort_1']:.3f} | "
                    f"{r['vs_ort_b']:.3f} | {r['loop_gain']:.3f} | "
                    f"{'yes' if r['ok'] else 'NO'} |\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=1)
    if not all(r["ok"] for r in rows):
        raise SystemExit("batch: a batched artifact does not match onnxruntime")


if __name__ == "__main__":
    main()
