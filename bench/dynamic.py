"""One artifact for every batch: a --dim-range build against static ones.

Exports ResNet-18, MobileNetV2, the BERT-like encoder and the MLP with a
symbolic batch (bench/export_models.py --dynamic-batch, under Debian's
/usr/bin/python3 with torch) and compiles each once with
`tessel-compile --dim-range N=1..MAX` (code for batch 1 and --specialize,
default 4 and 8), and once per measured batch size with --input-shape
(the static artifacts). Checks the dynamic artifact at every size: row 0
(the exported sample) against torch's output, every row against
onnxruntime's (rtol 1e-4, atol 1e-5 after scaling by the output's largest
magnitude). Then times, interleaved on 1 thread (p50 of --rounds calls
each): the dynamic artifact, the static artifact and onnxruntime on the
one dynamic model, at each size. Prints and writes bench/dynamic-results.md:

    vs static = dynamic / static at the same batch (the specialised sizes:
                the same code, so ~1.0; the others run in chunks)
    vs ORT    = dynamic / onnxruntime at the same batch

Usage:
    python3 bench/dynamic.py [--batches 1,3,8,13] [--max 16] [--specialize 8]
                             [--models resnet18,mobilenet_v2,bert,mlp]
                             [--rounds 15] [--work DIR] [--out FILE] [--reuse]
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from batch import (MODELS, export, interleaved, matches,  # noqa: E402
                   ort_session, parse_models, run, sample_inputs, shape_flags)
from layers import cpu_name  # noqa: E402


def log(*args):
    print("dynamic:", *args, file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--batches", default="1,3,8,13")
    parser.add_argument("--max", type=int, default=16,
                        help="the dynamic batch's range is 1..MAX")
    parser.add_argument("--specialize", default="",
                        help="--specialize sizes besides 1 (default: the "
                             "compiler's, 4 and 8 up to MAX)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", help="exported models (kept between runs)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the artifacts already in --work (after a "
                             "change to the runtime only)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench",
                                                      "dynamic-results.md"))
    args = parser.parse_args()
    models = parse_models(args.models, "dynamic")
    batches = [int(b) for b in args.batches.split(",")]
    if max(batches) > args.max:
        raise SystemExit("dynamic: a --batches size is past --max")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TESSEL_BUILD_DIR", args.build)
    import tessel

    work = args.work or tempfile.mkdtemp(prefix="tessel-dynamic-")
    os.makedirs(work, exist_ok=True)
    export(work, models)
    compiler = os.path.join(args.build, "bin", "tessel-compile")
    rng = np.random.default_rng(0)
    rows = []
    for name in models:
        onnx_path = os.path.join(work, name + ".onnx")
        peer = ort_session(onnx_path)
        expected = np.load(os.path.join(work, name + ".expected.npz"))
        torch_out = expected[list(expected.keys())[0]]
        feeds = sample_inputs(work, name, max(batches), rng)
        dyn_so = os.path.join(work, f"{name}_dynamic.so")
        flags = ["--dim-range", f"N=1..{args.max}"]
        if args.specialize:
            flags += ["--specialize", "N=" + args.specialize]
        log(f"{name}: compiling the dynamic batch ({' '.join(flags)})")
        dyn_seconds = None  # reused: not compiled here
        if not (args.reuse and os.path.exists(dyn_so)):
            start = time.perf_counter()
            run([compiler, onnx_path, *flags, "-o", dyn_so])
            dyn_seconds = time.perf_counter() - start
        dynamic = tessel.load(dyn_so).session(num_threads=1)
        for batch in batches:
            inputs = {k: v[:batch].copy() for k, v in feeds.items()}
            so = os.path.join(work, f"{name}_static_b{batch}.so")
            log(f"{name}: compiling the static batch {batch}")
            if not (args.reuse and os.path.exists(so)):
                run([compiler, onnx_path, *shape_flags(inputs), "-o", so])
            static = tessel.load(so).session(num_threads=1)
            got = list(dynamic.run(inputs).values())[0]
            want = peer.run(None, inputs)[0]
            ok_ort = matches(got, want)
            ok_torch = matches(got[:1], torch_out)
            p50 = interleaved({"dyn": lambda: dynamic.run(inputs),
                               "static": lambda: static.run(inputs),
                               "ort": lambda: peer.run(None, inputs)},
                              args.rounds)
            row = dict(model=name, batch=batch, ok_ort=ok_ort,
                       ok_torch=ok_torch, compile_s=dyn_seconds, **p50,
                       vs_static=p50["dyn"] / p50["static"],
                       vs_ort=p50["dyn"] / p50["ort"])
            rows.append(row)
            print(f"{name:13s} B={batch:<3d} dynamic {p50['dyn']:8.3f} static "
                  f"{p50['static']:8.3f} ORT {p50['ort']:8.3f}  vs static "
                  f"{row['vs_static']:.3f} vs ORT {row['vs_ort']:.3f}  "
                  f"torch {'ok' if ok_torch else 'MISMATCH'} ORT "
                  f"{'ok' if ok_ort else 'MISMATCH'}", flush=True)
    sizes = "1, " + (args.specialize or
                     ", ".join(str(s) for s in (4, 8) if s <= args.max))
    with open(args.out, "w") as f:
        f.write("# A dynamic batch: one artifact against one per batch size\n\n"
                f"Generated by `python3 bench/dynamic.py --batches "
                f"{args.batches} --max {args.max}"
                + (f" --specialize {args.specialize}" if args.specialize
                   else "") +
                f"` on {time.strftime('%Y-%m-%d')}, {cpu_name()}; do not edit "
                f"by hand. 1 thread, p50 of {args.rounds} interleaved calls "
                "each, milliseconds. Models exported by torch with a symbolic "
                f"batch N. The dynamic artifact (`--dim-range N=1..{args.max}`) "
                f"has code for batch {sizes} and runs any other batch in "
                "chunks of the largest that fits; the static artifacts are "
                "compiled for each batch (`--input-shape`); onnxruntime runs "
                "the dynamic model. vs static = dynamic / static; vs ORT = "
                "dynamic / onnxruntime. Row 0 of the dynamic artifact's "
                "output is checked against torch, every row against "
                "onnxruntime (rtol 1e-4).\n\n"
                "| model | B | dynamic | static | ORT | vs static | vs ORT "
                "| matches torch | matches ORT |\n"
                "|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['model']} | {r['batch']} | {r['dyn']:.3f} | "
                    f"{r['static']:.3f} | {r['ort']:.3f} | "
                    f"{r['vs_static']:.3f} | {r['vs_ort']:.3f} | "
                    f"{'yes' if r['ok_torch'] else 'NO'} | "
                    f"{'yes' if r['ok_ort'] else 'NO'} |\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=1)
    if not all(r["ok_ort"] and r["ok_torch"] for r in rows):
        raise SystemExit("dynamic: the dynamic artifact does not match")


if __name__ == "__main__":
    main()
