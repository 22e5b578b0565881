"""Mixed precision by accuracy budget: FP32, INT8, FP16 and their budgeted builds in one run.

For each model (default: MobileNetV2; bench/qdq.py exports it into
bench/work-qdq/ with its 16 calibration inputs), it compiles:

    Tessel FP32; Tessel INT8 (`--quantize=int8`, minmax); Tessel INT8 with
    `--accuracy-budget=cosine:C` for each budget C, the search running on the
    calibration inputs; and for each of --precisions (default fp16), Tessel
    with `--precision=P`, and with `--accuracy-budget=cosine:C` for each of
    --precision-budgets (`--accuracy-data`: the same calibration inputs);

then, on 32 held-out inputs (seed 2, as bench/qdq.py draws them; the search
never saw them), the outputs' cosine against Tessel FP32 (min and mean over
the inputs), whether the budget holds on every one, the products kept in
FP32, and each build's p50 latency (`tessel-bench`, 1 thread). Writes
bench/budget-results.md, naming the CPU and its 8-bit ISA. Usage:

    python3 bench/budget.py [--models mobilenet_v2 resnet18] [--budgets 0.99 0.999 ...]
                            [--precisions fp16 bf16] [--precision-budgets 0.999 ...]
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tessel  # noqa: E402

from ort_timing import cosine, cpu_name, isa_label, run, write_results  # noqa: E402
from qdq import samples  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def p50(bench, so, iterations):
    out = json.loads(run([bench, so, "--threads", "1", "--iterations", str(iterations),
                          "--warmup", "20", "--json"]))
    return out["p50_ms"]


def outputs(so, feeds):
    with tessel.load(so) as model, model.session(1) as session:
        names = [o.name for o in model.outputs]
        return [np.concatenate([session.run(feed)[n].ravel() for n in names]) for feed in feeds]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["mobilenet_v2"])
    parser.add_argument("--budgets", nargs="+", default=["0.99", "0.999", "0.9999", "0.99999"])
    parser.add_argument("--precisions", nargs="*", default=["fp16"])
    parser.add_argument("--precision-budgets", nargs="+", default=["0.999", "0.9999999"])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    compile_ = os.path.join(bin_dir, "tessel-compile")
    bench = os.path.join(bin_dir, "tessel-bench")
    work = os.path.join(ROOT, "bench", "work-qdq")
    lines = ["# Mixed precision by accuracy budget", "",
             f"`python3 bench/budget.py`, {cpu_name()} ({isa_label()}), 1 thread. The search runs on "
             "each model's 16 calibration inputs; the figures below are on 32 held-out inputs it never "
             "saw (seed 2), against Tessel FP32. Latency: `tessel-bench` p50, all builds in this run.", ""]
    for name in args.models:
        base = os.path.join(work, name)
        if not os.path.exists(base + ".calibration.npz"):
            raise SystemExit(f"budget: {base}.calibration.npz is missing: run bench/qdq.py first")
        reference = dict(np.load(base + ".inputs.npz"))
        held_out = samples(reference, 32, seed=2)
        calibration = ["--quantize=int8", "--calibration-data=" + base + ".calibration.npz"]
        builds = [("Tessel FP32", [], None), ("Tessel INT8", calibration, None)]
        builds += [(f"Tessel INT8, --accuracy-budget=cosine:{c}", calibration +
                    [f"--accuracy-budget=cosine:{c}"], float(c)) for c in args.budgets]
        for precision in args.precisions:
            flags = [f"--precision={precision}"]
            builds.append((f"Tessel {precision.upper()}", flags, None))
            builds += [(f"Tessel {precision.upper()}, --accuracy-budget=cosine:{c}",
                        flags + [f"--accuracy-budget=cosine:{c}",
                                 "--accuracy-data=" + base + ".calibration.npz"], float(c))
                       for c in args.precision_budgets]
        results = []
        fp32 = None
        for label, flags, budget in builds:
            so = os.path.join(work, f"{name}.budget{len(results)}.so")
            report = so + ".json"
            run([compile_, base + ".onnx", "-o", so, "--report=" + report, *flags])
            kept = []
            if budget is not None:
                section = json.load(open(report))["accuracy_budget"]
                kept = [k["nodes"][-1] for k in section["kept_fp32"]]
            values = outputs(so, held_out)
            if fp32 is None:
                fp32 = values
            cosines = [cosine(a, b) for a, b in zip(values, fp32)]
            results.append((label, budget, kept, min(cosines), float(np.mean(cosines)),
                            p50(bench, so, args.iterations)))
        lines += [f"## {name}", "",
                  "| build | min cosine (32 held-out) | mean cosine | budget holds | kept in FP32 "
                  "| p50 ms | vs Tessel FP32 |", "|---|---|---|---|---|---|---|"]
        base_ms = results[0][5]
        for label, budget, kept, low, mean, ms in results:
            holds = "" if budget is None else ("yes" if low >= budget else "**no**")
            kept_text = "" if budget is None else (f"{len(kept)}: " + ", ".join(f"`{k}`" for k in kept)
                                                    if kept else "none")
            lines.append(f"| {label} | {low:.7f} | {mean:.7f} | {holds} | {kept_text} | {ms:.3f} "
                         f"| {ms / base_ms:.2f}x |")
        lines.append("")
    write_results(os.path.join(ROOT, "bench", "budget-results.md"), lines)


if __name__ == "__main__":
    main()
