"""The runtime's serving benchmark: streams and the batching scheduler.

Exports MobileNetV2 (bench/export_models.py, under /usr/bin/python3 with
Debian's torch), compiles it once for every batch of 1 to 8 (tessel-compile
--dim-range N=1..8 --specialize N=4,8: one artifact with code for batch 1,
4 and 8), checks that at batch 1, 4 and 8 every row matches torch's batch-1
output, then measures with tools/tessel-bench-serve:

  * streams: runs per second of 1 stream against 2 streams on the runtime's
    pool, each run with 1-thread kernels (the goal on 2 quiet cores: >= 1.6x);
  * scheduler: requests per second and p50 / p99 request latency at max
    batch 1, 4 and 8, under closed-loop concurrent clients, with one batch at
    a time on all cores and with two concurrent batches of 1-thread kernels;
  * latency target: a bursty open-loop load (--rate requests a second in
    bursts of --burst) through fixed windows and through --target-p99-us.

Writes bench/serve-results.md and bench/serve-results.json. A reported
figure with the load average, not a pass/fail test. Usage:

    python3 bench/serve.py [--build build] [--clients 16] [--requests 400]
                           [--repeats 3]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCHES = (1, 4, 8)


def log(*args):
    print("serve:", *args, file=sys.stderr, flush=True)


def run(cmd, **kwargs):
    out = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if out.returncode:
        raise SystemExit(f"serve: {' '.join(cmd)} failed ({out.returncode}):\n"
                         f"{out.stderr.strip()}")
    return out.stdout


def export(work):
    onnx_path = os.path.join(work, "mobilenet_v2.onnx")
    if not os.path.exists(onnx_path):
        log("exporting MobileNetV2 with /usr/bin/python3 (torch)")
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"),
             work, "--models", "mobilenet_v2", "--gemm-sizes", "256"])
    with open(os.path.join(work, "mobilenet_v2.json")) as f:
        meta = json.load(f)
    return onnx_path, meta["inputs"][0], meta["outputs"][0]


def compile_dynamic(build, onnx_path, input_name, work):
    so = os.path.join(work, "mobilenet_v2_dynamic.so")
    log(f"compiling the batches 1..{max(BATCHES)}")
    run([os.path.join(build, "bin", "tessel-compile"), onnx_path,
         "--input-shape", f"{input_name}=?x3x224x224",
         "--dim-range", f"N=1..{max(BATCHES)}",
         "--specialize", "N=" + ",".join(map(str, BATCHES)), "-o", so])
    return so


def check_rows(build, artifact, work, input_name, output_name):
    """At each batch, each row of the artifact's output matches torch's
    output of the same sample run alone (the samples differ per row)."""
    sample = np.load(os.path.join(work, "mobilenet_v2.inputs.npz"))[input_name]
    expected = np.load(os.path.join(work, "mobilenet_v2.expected.npz"))[output_name]
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for batch in BATCHES:
            so = artifact
            # Row 0 is torch's sample; the others are noise, so a mix-up of
            # rows would show.
            rows = [sample] + [rng.standard_normal(sample.shape, dtype=np.float32)
                               for _ in range(batch - 1)]
            rows.reverse()  # the sample last: batch rows are not all row 0
            inputs = os.path.join(tmp, f"in{batch}.npy")
            np.save(inputs, np.concatenate(rows, axis=0))
            outdir = os.path.join(tmp, f"out{batch}")
            run([os.path.join(build, "bin", "tessel-run"), so, "--input",
                 f"{input_name}={inputs}", "--output-dir", outdir, "--quiet"])
            got = np.load(os.path.join(outdir, output_name + ".npy"))[batch - 1]
            if not np.allclose(got, expected[0], rtol=1e-4, atol=1e-5):
                raise SystemExit(f"serve: batch {batch}: the last row differs "
                                 f"from torch by {np.abs(got - expected[0]).max()}")
            log(f"batch {batch}: the sample's row matches torch (rtol 1e-4)")


def serve(build, *args):
    return json.loads(run([os.path.join(build, "bin", "tessel-bench-serve"),
                           *args, "--json"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "work-serve"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "serve-results.md"))
    parser.add_argument("--runs", type=int, default=60,
                        help="timed runs per streams measurement")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--window-us", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each scheduler configuration")
    parser.add_argument("--target-p99-us", type=int, default=150_000,
                        help="the latency target of the open-loop section")
    parser.add_argument("--rate", type=int, default=120,
                        help="open-loop requests a second")
    parser.add_argument("--burst", type=int, default=3,
                        help="open-loop requests per burst")
    parser.add_argument("--open-requests", type=int, default=1000)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    onnx_path, input_name, output_name = export(args.work)
    artifact = compile_dynamic(args.build, onnx_path, input_name, args.work)
    check_rows(args.build, artifact, args.work, input_name, output_name)

    record = {"model": "mobilenet_v2", "load_average_start": os.getloadavg()[0],
              "streams": [], "scheduler": []}
    for streams in (1, 2):
        log(f"streams: {streams}")
        record["streams"].append(serve(args.build, "streams", artifact,
                                       "--streams", str(streams), "--threads", "1",
                                       "--runs", str(args.runs), "--warmup", "3"))
    # Two ways to use the 2 cores: one batch at a time with kernels on all
    # cores, or two concurrent batches with 1-thread kernels.
    # The configurations take turns, --repeats times (other tenants of the
    # machine's memory make one run's figure shift by tens of percent); each
    # row is the run of median throughput.
    configs = [(concurrent, threads, max_batch)
               for concurrent, threads in ((1, 0), (2, 1))
               for max_batch in BATCHES]
    runs = {config: [] for config in configs}
    for repeat in range(args.repeats):
        for concurrent, threads, max_batch in configs:
            log(f"scheduler ({repeat + 1}/{args.repeats}): max batch "
                f"{max_batch}, {concurrent} concurrent batch(es), kernel "
                f"threads {threads or 'all'}")
            result = serve(
                args.build, "scheduler", artifact, "--max-batch", str(max_batch),
                "--clients", str(args.clients), "--requests", str(args.requests),
                "--window-us", str(args.window_us), "--threads", str(threads),
                "--concurrent-batches", str(concurrent))
            result["concurrent_batches"] = concurrent
            runs[(concurrent, threads, max_batch)].append(result)
    for config in configs:
        ordered = sorted(runs[config], key=lambda r: r["requests_per_s"])
        median = dict(ordered[len(ordered) // 2])
        median["requests_per_s_runs"] = [r["requests_per_s"]
                                         for r in runs[config]]
        record["scheduler"].append(median)
    # Open loop, bursty: fixed windows against the latency target.
    record["open_loop"] = []
    for flags in (["--window-us", "-1"], ["--window-us", "5000"],
                  ["--window-us", "30000"], ["--window-us", "100000"],
                  ["--target-p99-us", str(args.target_p99_us)]):
        log("open loop:", " ".join(flags))
        record["open_loop"].append(serve(
            args.build, "scheduler", artifact, "--rate", str(args.rate),
            "--burst", str(args.burst), "--requests", str(args.open_requests),
            "--threads", "1", "--concurrent-batches", "2", *flags))
    record["load_average_end"] = os.getloadavg()[0]

    one, two = record["streams"]
    ratio = two["runs_per_s"] / one["runs_per_s"]
    lines = [
        "# Serving benchmark: streams and the batching scheduler", "",
        f"MobileNetV2 (batch 1, 224x224), `python3 bench/serve.py`; load average "
        f"{record['load_average_start']:.2f} at start, "
        f"{record['load_average_end']:.2f} at the end; "
        f"{os.cpu_count()} cores.", "",
        "## Streams (1-thread kernels)", "",
        "| streams | runs/s | vs 1 stream |", "|---|---|---|",
    ]
    for r in record["streams"]:
        lines.append(f"| {r['streams']} | {r['runs_per_s']:.2f} | "
                     f"{r['runs_per_s'] / one['runs_per_s']:.2f}x |")
    lines += ["", f"2 streams give {ratio:.2f}x the throughput of 1 "
              "(goal on 2 quiet cores: >= 1.6x).", "",
              "## Scheduler", "",
              f"{args.clients} closed-loop clients, window {args.window_us} us; "
              "one MobileNetV2 artifact for every batch of 1 to "
              f"{max(BATCHES)} (code for batch "
              f"{', '.join(map(str, BATCHES))}): a batch of n requests is "
              "one run of n samples. Kernel threads 0 means all cores. The "
              f"configurations took turns, {args.repeats} runs each; each row "
              "is the run of median throughput, all runs' requests/s beside "
              "it.", "",
              "| max batch | concurrent batches | kernel threads | requests/s "
              "| p50 ms | p99 ms | mean batch | runs' requests/s |",
              "|---|---|---|---|---|---|---|---|"]
    for r in record["scheduler"]:
        lines.append(f"| {r['max_batch']} "
                     f"| {r['concurrent_batches']} | {r['threads']} "
                     f"| {r['requests_per_s']:.2f} | {r['p50_ms']:.1f} | "
                     f"{r['p99_ms']:.1f} | {r['mean_batch']:.2f} | "
                     f"{', '.join(f'{x:.0f}' for x in r['requests_per_s_runs'])} |")
    lines += ["", "## Latency target under a bursty open-loop load", "",
              f"{args.rate} requests a second arrive in bursts of {args.burst} "
              "(the bursts' starts exponentially spaced) whether or not earlier "
              "ones have completed, each timed from its arrival to its "
              "completion; the artifact of batches 1 to 8, max batch 8, 2 "
              "concurrent batches of 1-thread kernels. Fixed windows (-1: "
              "none) against `target_p99_us` (the scheduler sets its own "
              "window from its measured run times and arrival rate).", "",
              "| window us | target p99 us | requests/s | p50 ms | p99 ms | mean batch "
              "| past the target |",
              "|---|---|---|---|---|---|---|"]
    for r in record["open_loop"]:
        target = r["target_p99_us"]
        lines.append(f"| {'(set by the target)' if target else r['window_us']} "
                     f"| {target or '-'} | {r['requests_per_s']:.2f} "
                     f"| {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
                     f"| {r['mean_batch']:.2f} "
                     f"| {r['target_misses'] if target else '-'} |")
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(record, f, indent=2)
    print(text)


if __name__ == "__main__":
    main()
