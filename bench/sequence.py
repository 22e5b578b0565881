"""One artifact for every sequence length: a padded BERT-like encoder.

Exports the BERT-like encoder (2 layers, d_model 128, 4 heads) with a
symbolic batch N and sequence length S (bench/export_models.py
--dynamic-seq, under Debian's /usr/bin/python3 with torch, which also
writes torch's outputs at every measured shape) and compiles it once with
`tessel-compile --dim-range N=1..MAX_BATCH --dim-range S=1..MAX_SEQ`: code
for batch 1, 4 and 8 at lengths 8, 12, 16, 24, 32, 48, 64, 96 and 128 (the
compiler's default), a run padded to the next length built. Compiles it once per measured shape with --input-shape
(the static artifacts). Checks the dynamic artifact at every shape against
torch (rtol 1e-4, atol 1e-5 after scaling by the output's largest
magnitude). Then times, interleaved on 1 thread (p50 of --rounds calls
each): the dynamic artifact, the static one and onnxruntime on the one
dynamic model. Prints and writes bench/sequence-results.md:

    vs static = dynamic / static at the same shape (at a built length: the
                same code, so ~1.0; otherwise a padded run)
    vs ORT    = dynamic / onnxruntime at the same shape

Usage:
    python3 bench/sequence.py [--shapes 1x7,3x7,...] [--rounds 15]
                              [--work DIR] [--out FILE] [--reuse]
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
from batch import interleaved, matches, ort_session, run  # noqa: E402
from layers import cpu_name  # noqa: E402

SHAPES = "1x7,3x7,8x7,1x33,1x64,3x64,8x64,1x100,1x128,3x128,8x128"


def log(*args):
    print("sequence:", *args, file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--shapes", default=SHAPES,
                        help="BxS shapes measured")
    parser.add_argument("--max-batch", type=int, default=8)
    parser.add_argument("--max-seq", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", help="exported models (kept between runs)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the artifacts already in --work")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench",
                                                      "sequence-results.md"))
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TESSEL_BUILD_DIR", args.build)
    import tessel

    work = args.work or tempfile.mkdtemp(prefix="tessel-sequence-")
    os.makedirs(work, exist_ok=True)
    if not all(os.path.exists(os.path.join(work, f"bert.{s}.expected.npz"))
               for s in shapes):
        log("exporting bert with /usr/bin/python3 (torch)")
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"),
             work, "--models", "bert", "--gemm-sizes", "", "--dynamic-seq",
             "--seq-shapes", args.shapes])
    compiler = os.path.join(args.build, "bin", "tessel-compile")
    onnx_path = os.path.join(work, "bert.onnx")
    peer = ort_session(onnx_path)
    dyn_so = os.path.join(work, "bert_padded.so")
    flags = ["--dim-range", f"N=1..{args.max_batch}",
             "--dim-range", f"S=1..{args.max_seq}"]
    compile_s = None
    if not (args.reuse and os.path.exists(dyn_so)):
        log(f"compiling the padded encoder ({' '.join(flags)})")
        start = time.perf_counter()
        run([compiler, onnx_path, *flags, "-o", dyn_so])
        compile_s = time.perf_counter() - start
    dynamic = tessel.load(dyn_so).session(num_threads=1)
    rows = []
    for shape in shapes:
        inputs = dict(np.load(os.path.join(work, f"bert.{shape}.inputs.npz")))
        want = np.load(os.path.join(work, f"bert.{shape}.expected.npz"))
        want = want[list(want.keys())[0]]
        so = os.path.join(work, f"bert_static_{shape}.so")
        if not (args.reuse and os.path.exists(so)):
            log(f"compiling the static {shape}")
            run([compiler, onnx_path, "--input-shape",
                 f"input_ids={shape}", "-o", so])
        static = tessel.load(so).session(num_threads=1)
        got = list(dynamic.run(inputs).values())[0]
        ok = matches(got, want)
        p50 = interleaved({"dyn": lambda: dynamic.run(inputs),
                           "static": lambda: static.run(inputs),
                           "ort": lambda: peer.run(None, inputs)},
                          args.rounds)
        row = dict(shape=shape, ok_torch=ok, **p50,
                   vs_static=p50["dyn"] / p50["static"],
                   vs_ort=p50["dyn"] / p50["ort"])
        rows.append(row)
        print(f"bert {shape:6s} dynamic {p50['dyn']:8.3f} static "
              f"{p50['static']:8.3f} ORT {p50['ort']:8.3f}  vs static "
              f"{row['vs_static']:.3f} vs ORT {row['vs_ort']:.3f}  torch "
              f"{'ok' if ok else 'MISMATCH'}", flush=True)
    with open(args.out, "w") as f:
        f.write("# A padded sequence: one artifact against one per shape\n\n"
                f"Generated by `python3 bench/sequence.py --shapes "
                f"{args.shapes}` on {time.strftime('%Y-%m-%d')}, "
                f"{cpu_name()}; do not edit by hand. 1 thread, p50 of "
                f"{args.rounds} interleaved calls each, milliseconds. The "
                "BERT-like encoder exported by torch with a symbolic batch N "
                "and length S; the dynamic artifact (`"
                + " ".join(flags) + "`"
                + (f", compiled in {compile_s:.0f} s" if compile_s else "")
                + ") has code for batch 1, 4 and 8 at lengths 8, 12, 16, 24, "
                "32, 48, 64, 96 and 128 and runs any other length padded to "
                "the next one built; the static artifacts are compiled for each shape "
                "(`--input-shape`); onnxruntime runs the dynamic model. vs "
                "static = dynamic / static; vs ORT = dynamic / onnxruntime. "
                "Each output is checked against torch's (rtol 1e-4).\n\n"
                "| B x S | dynamic | static | ORT | vs static | vs ORT "
                "| matches torch |\n|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['shape']} | {r['dyn']:.3f} | {r['static']:.3f} | "
                    f"{r['ort']:.3f} | {r['vs_static']:.3f} | "
                    f"{r['vs_ort']:.3f} | {'yes' if r['ok_torch'] else 'NO'} "
                    "|\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=1)
    if not all(r["ok_torch"] for r in rows):
        raise SystemExit("sequence: the dynamic artifact does not match torch")


if __name__ == "__main__":
    main()
