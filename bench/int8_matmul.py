"""INT8 matrix products beside f32 and onnxruntime, in one run.

For each shape [M, K] x [K, N] (a run-time left-hand side, constant weights):
Tessel on MatMulInteger (int8 x int8 -> int32, and uint8 x int8), Tessel on
the f32 MatMul of the same shape, and onnxruntime on both. 1 thread, p50 of
each tool's timing loop, median over interleaved rounds; reports the ratios
and GOP/s (2*M*N*K), the integer ones against this CPU's VNNI peak measured
in every round beside them (bench/peak.c vnni: 12 chains of vpdpbusd; the
median of the rounds' shares). On a CPU with AMX-INT8 the integer products
run on AMX tiles where they are whole tiles: the run then also times
Tessel's VNNI build of each (--disable=amx-tiles) and reports against the
AMX peak measured alike (bench/peak.c amx). Checks
every Tessel result against onnxruntime's. Names the CPU and whether it has
AVX512-VNNI and AMX. Usage:

    python3 bench/int8_matmul.py [--shapes 1024x1024x1024,...] [--rounds 5]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ort_timing import cpu_flags, cpu_name, ort_p50, run, session, write_results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model(kind, m, k, n, rng):
    if kind == "f32":
        w = rng.standard_normal((k, n)).astype(np.float32)
        node = helper.make_node("MatMul", ["a", "w"], ["c"])
        a_type, c_type = TensorProto.FLOAT, TensorProto.FLOAT
        a = rng.standard_normal((m, k)).astype(np.float32)
    else:
        w = rng.integers(-128, 128, size=(k, n)).astype(np.int8)
        node = helper.make_node("MatMulInteger", ["a", "w"], ["c"])
        a_type = TensorProto.INT8 if kind == "s8s8" else TensorProto.UINT8
        c_type = TensorProto.INT32
        a = (rng.integers(-128, 128, size=(m, k)).astype(np.int8) if kind == "s8s8"
             else rng.integers(0, 256, size=(m, k)).astype(np.uint8))
    graph = helper.make_graph([node], kind, [helper.make_tensor_value_info("a", a_type, [m, k])],
                              [helper.make_tensor_value_info("c", c_type, [m, n])],
                              [numpy_helper.from_array(w, "w")])
    mod = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    mod.ir_version = 8
    return mod, a


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work-int8"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "int8-matmul-results.md"))
    ap.add_argument("--shapes",
                    default="1024x1024x1024,256x1024x1024,64x768x768,16x1024x4096")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    bin_dir = os.path.join(args.build, "bin")
    rng = np.random.default_rng(0)
    rows = []
    # The VNNI and AMX peaks (GOP/s, 1 thread, best of 5), where the CPU has
    # them: measured in every round beside the products, since this VM's
    # speed moves by up to 2x between minutes (fast and slow phases); a
    # product's share of the peak is taken round by round, then the median.
    exe = os.path.join(args.work, "peak")
    has_vnni = "avx512_vnni" in cpu_flags()
    has_amx = "amx_int8" in cpu_flags()
    if has_vnni or has_amx:
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "peak.c"),
                        "-lpthread"], check=True)

    def measure_peak(isa):
        return json.loads(run([exe, "1", "5", isa]))["best"]

    peaks = {"vnni": [], "amx": []}
    for shape in args.shapes.split(","):
        m, k, n = (int(x) for x in shape.split("x"))
        results = {}
        for kind in ("f32", "s8s8", "u8s8"):
            mod, a = model(kind, m, k, n, rng)
            base = os.path.join(args.work, f"{kind}_{shape}")
            onnx.save(mod, base + ".onnx")
            np.save(base + ".a.npy", a)
            run([os.path.join(bin_dir, "tessel-compile"), base + ".onnx", "-o", base + ".so"])
            sess = session(base + ".onnx")
            expected = sess.run(None, {"a": a})[0]
            np.save(base + ".c.npy", expected)
            tol = ["--rtol", "1e-4", "--atol", "1e-3"] if kind == "f32" else ["--rtol", "0", "--atol", "0"]
            check = run([os.path.join(bin_dir, "tessel-run"), base + ".so", "--input",
                         f"a={base}.a.npy", "--expected", f"c={base}.c.npy", *tol, "--quiet"])
            results[kind] = {"base": base, "a": a, "session": sess,
                             "check": check.strip().splitlines()[-1], "tessel": [], "ort": [],
                             "vnni": []}
            if has_amx and kind != "f32":
                run([os.path.join(bin_dir, "tessel-compile"), base + ".onnx", "-o",
                     base + ".vnni.so", "--disable=amx-tiles"])
        for _ in range(args.rounds):
            round_peak = {}
            if has_vnni:
                round_peak["vnni"] = measure_peak("vnni")
            if has_amx:
                round_peak["amx"] = measure_peak("amx")
            for isa, value in round_peak.items():
                peaks[isa].append(value)
            for kind, r in results.items():
                out = run([os.path.join(bin_dir, "tessel-bench"), r["base"] + ".so", "--input",
                           f"a={r['base']}.a.npy", "--warmup", "3", "--iterations",
                           str(args.iterations), "--threads", "1", "--json"])
                p50 = json.loads(out)["p50_ms"]
                r["tessel"].append(p50)
                for isa, value in round_peak.items():
                    r.setdefault("share_" + isa, []).append(
                        2.0 * m * n * k / p50 / 1e6 / value)
                r["ort"].append(ort_p50(r["session"], {"a": r["a"]}, args.iterations))
                if has_amx and kind != "f32":
                    out = run([os.path.join(bin_dir, "tessel-bench"), r["base"] + ".vnni.so",
                               "--input", f"a={r['base']}.a.npy", "--warmup", "3",
                               "--iterations", str(args.iterations), "--threads", "1", "--json"])
                    r["vnni"].append(json.loads(out)["p50_ms"])
        ops = 2.0 * m * n * k
        for kind, r in results.items():
            t, o = statistics.median(r["tessel"]), statistics.median(r["ort"])
            v = statistics.median(r["vnni"]) if r["vnni"] else None
            share = {isa: statistics.median(r["share_" + isa])
                     for isa in ("vnni", "amx") if r.get("share_" + isa)}
            rows.append((shape, kind, t, o, ops / t / 1e6, ops / o / 1e6, r["check"], v,
                         share))
            print(f"int8_matmul: {shape} {kind}: tessel {t:.3f} ms, onnxruntime {o:.3f} ms",
                  file=sys.stderr, flush=True)
    flags = cpu_flags()
    isa = ("AVX512-VNNI" if "avx512_vnni" in flags else "no AVX512-VNNI") + \
        (", AMX" if "amx_int8" in flags else "")
    lines = ["# INT8 matrix products: Tessel beside f32 and onnxruntime", "",
             f"`python3 bench/int8_matmul.py`, {cpu_name()} ({isa}), 1 thread, p50 of "
             f"{args.iterations} runs per round, median of {args.rounds} interleaved rounds; "
             f"load average {os.getloadavg()[0]:.2f} at the end. Weights constant; "
             "every Tessel result equals onnxruntime's (int exactly, f32 within rtol 1e-4).", "",
             ("Measured VNNI peak (bench/peak.c vnni, 1 thread, best of 5, once per round "
              "before the products): median "
              f"{statistics.median(peaks['vnni']):.1f} GOP/s (rounds: "
              f"{', '.join(f'{x:.0f}' for x in peaks['vnni'])})." if peaks["vnni"]
              else "No AVX512-VNNI: no integer peak.") +
             (" Measured AMX-INT8 peak (bench/peak.c amx, 4 accumulator tiles, the same way): "
              f"median {statistics.median(peaks['amx']):.1f} GOP/s (rounds: "
              f"{', '.join(f'{x:.0f}' for x in peaks['amx'])}); "
              "the integer rows run on AMX tiles, and 'Tessel VNNI ms' is the same product "
              "built with --disable=amx-tiles." if has_amx else ""),
             "'% of peak' is the median over rounds of the product's rate over the peak "
             "measured in the same round.", "",
             "| M x K x N | kind | Tessel ms | onnxruntime ms | Tessel / onnxruntime | Tessel GOP/s "
             "| onnxruntime GOP/s | Tessel % of VNNI peak | Tessel f32 / Tessel int8 |" +
             (" Tessel VNNI ms | Tessel % of AMX peak |" if has_amx else ""),
             "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if has_amx else "")]
    f32 = {r[0]: r[2] for r in rows if r[1] == "f32"}
    for shape, kind, t, o, tg, og, _, v, shares in rows:
        speedup = "-" if kind == "f32" else f"{f32[shape] / t:.2f}"
        share = ("-" if kind == "f32" or "vnni" not in shares
                 else f"{100 * shares['vnni']:.0f}%")
        line = (f"| {shape} | {kind} | {t:.3f} | {o:.3f} | {t / o:.2f} | {tg:.1f} | "
                f"{og:.1f} | {share} | {speedup} |")
        if has_amx:
            line += (" - | - |" if v is None or "amx" not in shares
                     else f" {v:.3f} | {100 * shares['amx']:.0f}% |")
        lines.append(line)
    lines += ["", "Checks:", ""] + [f"- {r[0]} {r[1]}: `{r[6]}`" for r in rows]
    write_results(args.out, lines)


if __name__ == "__main__":
    main()
