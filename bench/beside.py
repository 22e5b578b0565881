#!/usr/bin/env python3
"""Tessel artifacts timed beside onnxruntime and IREE, as bench/bench.py
times them: one process, 1 thread, every round calls each system once in
rotating order, each call timed alone through the Python APIs. For an A/B
of two builds of one model in the conditions bench.py measures (the other
systems' runs leave the caches cold: `tessel-bench` alone runs warm).

    python3 bench/beside.py MODEL A.so [B.so ...] [--rounds 100]

MODEL is a benchmark model (resnet18, mobilenet_v2, bert, mlp); needs
bench/run.sh's bench/work (the model, its inputs and IREE's compiled
module). Prints each system's p50 and its ratio to onnxruntime's.
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402 (the runners bench.py times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("artifacts", nargs="+")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "work"))
    args = parser.parse_args()
    bench.ARGS = args
    work = args.work
    inputs = bench.load_npz(os.path.join(work, args.model + ".inputs.npz"))
    runners = {"ort": bench.OrtRunner(os.path.join(work, args.model + ".onnx"), 1)}
    vmfb = os.path.join(work, "compiled", args.model + ".vmfb")
    if os.path.exists(vmfb):
        runners["iree"] = bench.IreeRunner(vmfb, 1)
    for path in args.artifacts:
        runners[path] = bench.TesselRunner(path, 1)
    names = list(runners)
    for name in names:
        for _ in range(args.warmup):
            runners[name](dict(inputs))
    times = {name: [] for name in names}
    for r in range(args.rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter_ns()
            runners[name](dict(inputs))
            times[name].append(time.perf_counter_ns() - start)
    ort = statistics.median(times["ort"])
    print(f"{args.model}: 1 thread, p50 of {args.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    for name in names:
        p50 = statistics.median(times[name])
        print(f"  {name}: p50 {p50 / 1e6:.3f} ms, / onnxruntime {p50 / ort:.3f}")


if __name__ == "__main__":
    main()
