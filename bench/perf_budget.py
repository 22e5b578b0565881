"""The performance budget: CI's check that Tessel stays as fast, relative to
onnxruntime, as the committed baseline says (bench/budget.md).

For each model of bench/budget_models.py (the MLP, the BERT-like encoder,
MobileNetV2; written without torch), it compiles the model with the build's
tessel-compile for this CPU, then times Tessel (the Python package, one
thread) and onnxruntime (one intra-op thread) on the same inputs in this one
process, alternating, ROUNDS times, and takes each round's ratio of medians
(Tessel / onnxruntime): the budget's measure is the median of those ratios.
Interleaving keeps the machine's slow and fast phases out of the ratio.

The baseline (bench/budget-baseline.json) holds, per CPU kind (vendor,
family and model from /proc/cpuinfo), each model's ratio and a tolerance. A
ratio above baseline x (1 + tolerance) is a breach; a first breach is
measured again, with twice the rounds, and fails only if it breaches again.
A CPU kind with no baseline passes, saying so: measure and commit one with
--update on that machine.

    python3 bench/perf_budget.py [--build build] [--check | --update]
                                 [--rounds 7] [--compile-flag=--disable=...]
Exit status: 0 within budget (or no baseline), 1 a confirmed breach, 2 usage.
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TESSEL_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tessel  # noqa: E402
from budget_models import MODELS, write  # noqa: E402

BASELINE = os.path.join(HERE, "budget-baseline.json")


def cpu_kind():
    """("GenuineIntel-6-207", "Intel(R) Xeon(R) Processor"): the key the
    baseline is stored under, and the CPU's name."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    kind = "-".join(fields.get(k, "?") for k in ("vendor_id", "cpu family", "model"))
    return kind, fields.get("model name", "?")


def revision():
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def median_ms(run, iterations):
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def measure(models, rounds, target_ms=150.0):
    """{name: (ratio, tessel_ms, ort_ms)}: the median over rounds of each
    round's Tessel/onnxruntime ratio of medians."""
    results = {}
    for name, (so, onnx_path, feed) in models.items():
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        reference = ort.InferenceSession(onnx_path, options,
                                         providers=["CPUExecutionProvider"])
        with tessel.load(so) as model, model.session(num_threads=1) as session:
            run_tessel = lambda: session.run(feed)  # noqa: E731
            run_ort = lambda: reference.run(None, feed)  # noqa: E731
            for run in (run_tessel, run_ort):  # warm up; size the rounds
                for _ in range(3):
                    run()
            one = max(median_ms(run_ort, 5), median_ms(run_tessel, 5), 1e-3)
            iterations = max(5, min(2000, int(target_ms / one)))
            ratios, t_ms, o_ms = [], [], []
            for _ in range(rounds):
                t = median_ms(run_tessel, iterations)
                o = median_ms(run_ort, iterations)
                ratios.append(t / o)
                t_ms.append(t)
                o_ms.append(o)
        results[name] = (statistics.median(ratios), statistics.median(t_ms),
                         statistics.median(o_ms))
    return results


def compile_models(build, work, names, flags):
    compiler = os.path.join(build, "bin", "tessel-compile")
    models = {}
    for name in names:
        onnx_path, inputs = write(name, work)
        so = os.path.join(work, name + ".so")
        subprocess.run([compiler, onnx_path, "-o", so] + flags, check=True)
        models[name] = (so, onnx_path, dict(np.load(inputs)))
    return models


def table(results, baseline, tolerance):
    lines = ["| model | Tessel ms | onnxruntime ms | Tessel / onnxruntime | baseline | limit |",
             "|---|---|---|---|---|---|"]
    for name, (ratio, t, o) in results.items():
        base = baseline.get(name)
        limit = base * (1 + tolerance) if base else None
        lines.append(f"| {name} | {t:.3f} | {o:.3f} | {ratio:.3f} | "
                     f"{f'{base:.3f}' if base else '-'} | "
                     f"{f'{limit:.3f}' if limit else '-'}"
                     f"{' BREACH' if limit and ratio > limit else ''} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("TESSEL_BUILD_DIR",
                                                      os.path.join(ROOT, "build")))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="(default) compare with the baseline")
    mode.add_argument("--update", action="store_true",
                      help="measure and write this CPU kind's baseline")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--compile-flag", action="append", default=[],
                    help="an extra tessel-compile flag (e.g. --disable=fuse-attention "
                         "to see a breach)")
    args = ap.parse_args()
    os.environ["TESSEL_BUILD_DIR"] = args.build

    kind, cpu = cpu_kind()
    stored = json.load(open(BASELINE)) if os.path.exists(BASELINE) else {"cpus": {}}
    tolerance = stored.get("tolerance", 0.25)
    entry = stored["cpus"].get(kind)
    with tempfile.TemporaryDirectory() as work:
        models = compile_models(args.build, work, args.models, args.compile_flag)
        print(f"perf-budget: {cpu} ({kind}), 1 thread, {args.rounds} rounds, "
              f"revision {revision()}"
              + (f", compile flags {' '.join(args.compile_flag)}" if args.compile_flag else ""))
        results = measure(models, args.rounds)
        if args.update:
            stored["cpus"][kind] = {
                "cpu": cpu, "revision": revision(),
                "measured": datetime.date.today().isoformat(),
                "ratios": {name: round(r[0], 4) for name, r in results.items()}}
            stored.setdefault("tolerance", tolerance)
            with open(BASELINE, "w") as f:
                json.dump(stored, f, indent=2, sort_keys=True)
                f.write("\n")
            print(table(results, stored["cpus"][kind]["ratios"], tolerance))
            print(f"perf-budget: wrote the baseline for {kind} to {BASELINE}")
            return 0
        if not entry:
            print(table(results, {}, tolerance))
            print(f"perf-budget: PASS (no baseline for {kind}: nothing to compare; "
                  "run --update on this machine and commit bench/budget-baseline.json)")
            return 0
        base = entry["ratios"]
        print(table(results, base, tolerance))
        breached = [n for n, r in results.items() if n in base and r[0] > base[n] * (1 + tolerance)]
        if breached:
            print(f"perf-budget: {', '.join(breached)} over budget; measuring again "
                  f"with {2 * args.rounds} rounds")
            again = measure({n: models[n] for n in breached}, 2 * args.rounds)
            print(table(again, base, tolerance))
            breached = [n for n, r in again.items() if r[0] > base[n] * (1 + tolerance)]
        if breached:
            print(f"perf-budget: FAIL: {', '.join(breached)} slower against onnxruntime than "
                  f"the baseline allows (+{tolerance:.0%}; bench/budget.md)")
            return 1
        print(f"perf-budget: PASS (tolerance +{tolerance:.0%} over the {kind} baseline "
              f"of {entry['measured']}, revision {entry['revision']})")
        return 0


if __name__ == "__main__":
    sys.exit(main())
