"""A/B runs of the graph optimisations: every model compiled with all of them
(A), with the ones named by --disable switched off (B), and with all of them
and channels-last activations (N, `--layout=nhwc`), in one run.

Exports the models with torch (bench/export_models.py under /usr/bin/python3;
`resnet18_pruned` is ResNet-18 with 30% of every conv's output channels
zeroed, as structured pruning leaves it), compiles each twice with
tessel-compile, checks both artifacts against torch (rtol 1e-4, atol 1e-5),
and times them interleaved with tessel-bench (1 thread, p50 of each round,
the median over rounds). Writes bench/ab-results.md and .json with the
kernel counts (tessel-compile --report), the channels removed, the layout
conversions left (N), the p50s, B/A and N/A. Usage:

    python3 bench/ab.py [--models resnet18,resnet18_pruned,...]
                        [--disable fold-batchnorm,drop-zero-channels,fuse-elementwise,...]
                        [--baseline-build DIR]
                        [--list-switches]
                        [--cold]

With --baseline-build, B is instead every model compiled by another build's
tessel-compile with the same flags as A (old head against new head: a
refactoring must leave every ratio within noise); both are checked and timed
with this build's tessel-run and tessel-bench.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def switches(build):
    """The names `tessel-compile --disable=help` lists: the compiler's one
    list of optimisation switches (lib/Pipelines/Pipelines.cpp)."""
    out = subprocess.run([os.path.join(build, "bin", "tessel-compile"), "--disable=help"],
                         capture_output=True, text=True, check=True).stdout
    return [line.split(":", 1)[0].strip() for line in out.splitlines() if ":" in line]


def log(*args):
    print("ab:", *args, file=sys.stderr, flush=True)


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"ab: {' '.join(cmd)} failed ({out.returncode}):\n"
                         f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return out.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "work-ab"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "ab-results.md"))
    parser.add_argument("--models", default="resnet18,resnet18_pruned,mobilenet_v2,bert,mlp")
    parser.add_argument("--disable", default=None,
                        help="comma-separated switches to turn off in B (default: every "
                             "switch tessel-compile --disable=help lists)")
    parser.add_argument("--baseline-build", default=None,
                        help="B = this other build's tessel-compile, all optimisations on")
    parser.add_argument("--list-switches", action="store_true",
                        help="print the switches B turns off by default, one a line, and exit")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--cold", action="store_true",
                        help="time every run with cold caches (tessel-bench --cold: "
                             "weights and activations start in memory, as inside a "
                             "process that runs other models in between)")
    args = parser.parse_args()
    if args.disable is None:
        args.disable = ",".join(switches(args.build))
    if args.list_switches:
        print("\n".join(args.disable.split(",")))
        return
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")
    bin_dir = os.path.join(args.build, "bin")

    missing = [m for m in models if not os.path.exists(os.path.join(args.work, m + ".onnx"))]
    if missing:
        if subprocess.run(["/usr/bin/python3", "-c", "import numpy, torch, onnx"],
                          capture_output=True).returncode:
            raise SystemExit("ab: exporting the models needs Debian's torch for /usr/bin/python3: "
                             "apt-get install python3-torch python3-torchvision python3-onnx "
                             "(bench/run.sh installs them)")
        log("exporting", ",".join(missing))
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"), args.work,
             "--models", ",".join(missing), "--gemm-sizes", ""])

    rows = []
    for name in models:
        meta = json.load(open(os.path.join(args.work, name + ".json")))
        inputs = np.load(os.path.join(args.work, name + ".inputs.npz"))
        expected = np.load(os.path.join(args.work, name + ".expected.npz"))
        in_flags, exp_flags = [], []
        for n in meta["inputs"]:
            path = os.path.join(args.work, f"{name}.in.{n}.npy")
            np.save(path, inputs[n])
            in_flags += ["--input", f"{n}={path}"]
        for n in meta["outputs"]:
            path = os.path.join(args.work, f"{name}.exp.{n}.npy")
            np.save(path, expected[n])
            exp_flags.append(f"{n}={path}")
        variants = {}
        b_extra = [] if args.baseline_build else [f"--disable={args.disable}"]
        for label, extra in (("A", []), ("B", b_extra), ("N", ["--layout=nhwc"])):
            so = os.path.join(args.work, f"{name}.{label}.so")
            report = os.path.join(args.work, f"{name}.{label}.json")
            log(f"{name}: compiling {label}")
            compiler_dir = (os.path.join(args.baseline_build, "bin")
                            if label == "B" and args.baseline_build else bin_dir)
            run([os.path.join(compiler_dir, "tessel-compile"),
                 os.path.join(args.work, name + ".onnx"), "-o", so, "--report", report, *extra])
            rep = json.load(open(report))
            check = run([os.path.join(bin_dir, "tessel-run"), so, *in_flags, "--expected",
                         *exp_flags, "--rtol", "1e-4", "--atol", "1e-5", "--quiet"])
            graph = rep.get("graph", {})
            variants[label] = {"so": so, "kernels": len(rep["kernels"]),
                               "dropped": graph.get("dropped_channels", 0),
                               "layout": graph.get("layout_conversions"),
                               "check": check.strip().splitlines()[-1], "p50": []}
        for _ in range(args.rounds):
            for label in ("A", "B", "N"):
                out = run([os.path.join(bin_dir, "tessel-bench"), variants[label]["so"],
                           "--warmup", "3", "--iterations", str(args.iterations),
                           "--threads", "1", "--json", *in_flags,
                           *(["--cold"] if args.cold else [])])
                variants[label]["p50"].append(json.loads(out)["p50_ms"])
        for label in ("A", "B", "N"):
            variants[label]["p50_ms"] = statistics.median(variants[label]["p50"])
        a, b, n = variants["A"], variants["B"], variants["N"]
        rows.append({"model": name, "A": a, "B": b, "N": n,
                     "ratio": b["p50_ms"] / a["p50_ms"],
                     "layout_ratio": n["p50_ms"] / a["p50_ms"]})
        log(f"{name}: A {a['p50_ms']:.2f} ms ({a['kernels']} kernels), "
            f"B {b['p50_ms']:.2f} ms ({b['kernels']} kernels), "
            f"N {n['p50_ms']:.2f} ms ({n['kernels']} kernels)")

    if args.baseline_build:
        title = "# A/B: this build against a baseline build"
        b_text = (f"B = the same, compiled by `{args.baseline_build}`'s tessel-compile "
                  f"(`--baseline-build`)")
    else:
        title = "# A/B: graph optimisations on and off, and the layout"
        b_text = f"B = `--disable={args.disable}`"
    lines = [title, "",
             f"`python3 bench/ab.py`: A = all on, {b_text}, "
             "N = all on with `--layout=nhwc`; 1 thread, "
             + ("caches cold before every run (`--cold`), " if args.cold else "")
             + f"p50 per round of {args.iterations} runs, median of {args.rounds} interleaved "
             f"rounds; load average {os.getloadavg()[0]:.2f} at the end. Both artifacts of "
             "every model match torch within rtol 1e-4, atol 1e-5.", "",
             "| model | A p50 ms | B p50 ms | B / A | N p50 ms | N / A | kernels A | kernels B "
             "| kernels N | layout conversions N (edges, inside) | channels removed (A) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        conv = r["N"]["layout"] or {}
        lines.append(f"| {r['model']} | {r['A']['p50_ms']:.2f} | {r['B']['p50_ms']:.2f} | "
                     f"{r['ratio']:.3f} | {r['N']['p50_ms']:.2f} | {r['layout_ratio']:.3f} | "
                     f"{r['A']['kernels']} | {r['B']['kernels']} | {r['N']['kernels']} | "
                     f"{conv.get('edges', '-')}, {conv.get('inside', '-')} | "
                     f"{r['A']['dropped']} |")
    lines += ["", "Checks (A, B, then N):", ""]
    for r in rows:
        lines.append(f"- {r['model']}: `{r['A']['check']}`; `{r['B']['check']}`; "
                     f"`{r['N']['check']}`")
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(rows, f, indent=2)
    print(text)


if __name__ == "__main__":
    main()
