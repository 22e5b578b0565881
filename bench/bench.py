#!/usr/bin/env python3
"""Tessel side by side with onnxruntime, IREE and OpenBLAS, in one run.

    python3 bench/bench.py [--build build] [--work bench/work]
                           [--threads 1,2] [--warmup 50] [--iterations 200]

(bench/run.sh installs what this needs, builds Tessel and runs it.)

Steps, all recorded in bench/results.md and bench/results.json:
  1. exports the models with torch (bench/export_models.py, Debian's
     /usr/bin/python3), with torch's outputs as the reference;
  2. measures this CPU's FP32 FMA peak (bench/peak.c) per thread count,
     and how long one core takes to read each model's weights once, from
     the caches beyond its L2 (bench/stream.c): a floor for models whose
     time is that read (the MLP);
  3. compiles every model with tessel-compile, and with IREE
     (iree-import-onnx, then iree-compile for llvm-cpu, target CPU host);
  4. per thread count, in a fresh worker process: loads every system, checks
     its outputs against torch, then times them interleaved (each round runs
     every system once, in rotating order; with several threads, a block of
     calls each, after an untimed one) after the warm-up, each call
     timed alone; the same for a one-element Identity model (each API's
     per-call floor) and for the GEMMs (Tessel-compiled MatMul models
     against Debian's OpenBLAS cblas_sgemm).
A system that cannot compile or run a model is reported with its reason.
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["resnet18", "mobilenet_v2", "bert", "mlp"]
# `--zoo`: real architectures nobody tuned for (bench/zoo_models.py).
ZOO = ["resnet50", "resnext50_32x4d", "mobilenet_v3_small",
       "mobilenet_v3_large", "efficientnet_b1", "regnet_y_400mf",
       "densenet121", "googlenet", "squeezenet1_0", "shufflenet_v2_x0_5",
       "mnasnet0_5", "convnext_tiny", "vit_b_32", "encoder_d256",
       "encoder_d384", "lstm", "gru"]
DISPLAY = {"resnet18": "ResNet-18", "mobilenet_v2": "MobileNetV2",
           "bert": "BERT-like encoder", "mlp": "MLP 784-512-256-10",
           "encoder_d256": "encoder d256 (4 layers, seq 128)",
           "encoder_d384": "encoder d384 (4 layers, seq 128)",
           "lstm": "LSTM (2 layers, hidden 256, seq 100)",
           "gru": "GRU (2 layers, hidden 256, seq 100)"}
# Every zoo model must compile in under this many seconds.
ZOO_COMPILE_LIMIT_S = 30.0
SYSTEMS = ["tessel", "ort", "iree"]
RTOL, ATOL = 1e-4, 1e-5
# With several threads, each system runs this many blocks of consecutive
# calls per model (see worker()).
BLOCKS_PER_RUN = 8
# With several threads, each block starts after this pause: onnxruntime's
# pool threads go on spinning for 20-50 ms after its last run, on the cores
# the next system's threads need. Measured (BERT-like, 2 threads, Tessel's
# 25 calls right after 25 of onnxruntime's, 16 rounds): no pause p50 1.28-
# 1.39 ms, p95 4.9-5.3; 10 or 20 ms p50 0.83-0.85, p95 4.9; 50 ms p50
# 0.84-1.20, p95 1.21-1.31. Tessel's pool stops polling 200 us after its
# last task.
SETTLE_S = 0.1


def log(*args):
    print(*args, flush=True, file=sys.stderr)


def run(cmd, timeout=1800, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def last_line(text):
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


# --------------------------------------------------------------------------
# Machine, peak, compilation (parent process)
# --------------------------------------------------------------------------

def machine_record():
    cpu, flags = "unknown", []
    wanted = ["avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile"]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and cpu == "unknown":
                    cpu = value.strip()
                if key.strip() == "flags" and not flags:
                    present = set(value.split())
                    flags = [w for w in wanted if w in present]
    except OSError:
        pass
    with open("/proc/loadavg") as f:
        load = [float(x) for x in f.read().split()[:3]]
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    import importlib.metadata
    for dist in ("onnxruntime", "iree-base-runtime", "iree-base-compiler"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    torch = run(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"])
    versions["torch (export)"] = last_line(torch.stdout) or "unavailable"
    tessel = run([os.path.join(ARGS.build, "bin", "tessel-compile"),
                  "--version"])
    versions["tessel"] = last_line(tessel.stdout) or last_line(tessel.stderr)
    return {"cpu": cpu, "cores": os.cpu_count(), "flags": flags,
            "load_average_at_start": load, "kernel": platform.release(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "versions": versions}


def measure_peak(work, threads):
    exe = os.path.join(work, "peak")
    src = os.path.join(ROOT, "bench", "peak.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        out = run(["cc", "-O2", "-pthread", "-o", exe, src])
        if out.returncode:
            raise SystemExit(f"cannot build bench/peak.c: {out.stderr}")
    out = run([exe, str(threads), "5"])
    return json.loads(out.stdout)


def measure_weight_read(work, nbytes):
    """bench/stream.c: the p50 time one core takes to read `nbytes` with
    its L2 evicted before each read (best of 5 rounds)."""
    exe = os.path.join(work, "stream")
    src = os.path.join(ROOT, "bench", "stream.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        out = run(["cc", "-O3", "-march=native", "-mprefer-vector-width=512",
                   "-o", exe, src])
        if out.returncode:
            raise SystemExit(f"cannot build bench/stream.c: {out.stderr}")
    out = run([exe, str(nbytes), "5"])
    if out.returncode:
        raise SystemExit(f"bench/stream.c failed: {out.stderr}")
    return json.loads(out.stdout)


def display(name):
    return DISPLAY.get(name, name)


def export_models(work):
    """Exports once per set of models and sizes; again when the exporter
    changes."""
    models = os.path.join(work, "models")
    stamp = os.path.join(models, ".exported")
    script = os.path.join(ROOT, "bench", "export_models.py")
    scripts = [script, os.path.join(ROOT, "bench", "zoo_models.py")]
    wanted = " ".join(ARGS.models) + " / " + " ".join(map(str, ARGS.gemm_sizes))
    if (os.path.exists(stamp)
            and all(os.path.getmtime(stamp) >= os.path.getmtime(p) for p in scripts)
            and open(stamp).read() == wanted):
        return models
    log("exporting the models with torch (/usr/bin/python3)")
    out = run(["/usr/bin/python3", script, models,
               "--models", ",".join(ARGS.models),
               "--gemm-sizes", ",".join(str(n) for n in ARGS.gemm_sizes)])
    if out.returncode:
        raise SystemExit("export failed:\n" + out.stderr[-3000:])
    with open(stamp, "w") as f:
        f.write(wanted)
    return models


def compile_tessel(onnx_path, out_dir, name):
    so = os.path.join(out_dir, name + ".so")
    report = os.path.join(out_dir, name + ".report.json")
    cmd = [os.path.join(ARGS.build, "bin", "tessel-compile"), onnx_path,
           "-o", so, "--report", report]
    start = time.perf_counter()
    out = run(cmd)
    wall = time.perf_counter() - start
    if out.returncode:
        return {"ok": False, "reason": last_line(out.stderr), "seconds": wall}
    phases, weights_bytes = {}, None
    try:
        with open(report) as f:
            rep = json.load(f)
        phases = {p["name"]: round(p.get("seconds", 0), 2)
                  for p in rep.get("phases", [])}
        weights_bytes = rep.get("memory", {}).get("weights_bytes")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return {"ok": True, "path": so, "seconds": wall, "phases": phases,
            "weights_bytes": weights_bytes, "command": " ".join(cmd)}


def compile_iree(onnx_path, out_dir, name):
    mlir = os.path.join(out_dir, name + ".mlir")
    vmfb = os.path.join(out_dir, name + ".vmfb")
    importer = shutil.which("iree-import-onnx")
    compiler = shutil.which("iree-compile")
    if not importer or not compiler:
        return {"ok": False, "reason": "IREE is not installed "
                "(pip install iree-base-compiler iree-base-runtime)"}
    start = time.perf_counter()
    out = run([importer, onnx_path, "-o", mlir, "--opset-version", "17"])
    if out.returncode:
        return {"ok": False, "reason": "iree-import-onnx: " + last_line(out.stderr)}
    cmd = [compiler, mlir, "-o", vmfb,
           "--iree-hal-target-device=local",
           "--iree-hal-local-target-device-backends=llvm-cpu",
           "--iree-llvmcpu-target-cpu=host"]
    out = run(cmd)
    wall = time.perf_counter() - start
    if out.returncode:
        return {"ok": False, "reason": "iree-compile: " + last_line(out.stderr),
                "seconds": wall}
    return {"ok": True, "path": vmfb, "seconds": wall, "command": " ".join(cmd)}


# --------------------------------------------------------------------------
# Runners (worker process: one thread count)
# --------------------------------------------------------------------------

class TesselRunner:
    def __init__(self, path, threads):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        os.environ.setdefault("TESSEL_BUILD_DIR", ARGS.build)
        import tessel
        self.model = tessel.load(path)
        self.session = self.model.session(num_threads=threads)
        self.threads = self.session.num_threads

    def __call__(self, feeds):
        return list(self.session.run(feeds).values())


class OrtRunner:
    def __init__(self, path, threads):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.session = ort.InferenceSession(
            path, options, providers=["CPUExecutionProvider"])
        self.threads = threads

    def __call__(self, feeds):
        return self.session.run(None, feeds)


class IreeRunner:
    """IREE at 1 thread runs on `local-sync`, its single-threaded driver,
    on the calling thread. `local-task` with one worker hands each call to
    a worker thread and puts the caller to sleep until it ends: measured in
    this rotation, that cost IREE's MLP 0.18-0.22 ms against 0.073 in
    local-sync, and left the caller's core idle, which slowed the next
    system's call (Tessel's MLP, p50 of all its calls in the rotation:
    0.045-0.053 ms against 0.034; onnxruntime's 0.066-0.081 against
    0.046-0.048). At N > 1 threads: `local-task` with N workers."""

    def __init__(self, path, threads):
        import iree.runtime as rt
        self.rt = rt
        self.driver = "local-sync" if threads == 1 else "local-task"
        self.config = rt.Config(self.driver)
        self.context = rt.SystemContext(config=self.config)
        with open(path, "rb") as f:
            module = rt.VmModule.copy_buffer(self.context.instance, f.read())
        self.context.add_vm_module(module)
        # The entry is named after the ONNX graph; skip the async and init
        # variants IREE adds beside it.
        entries = [f for f in module.function_names
                   if not f.startswith("__") and not f.endswith("$async")]
        if len(entries) != 1:
            raise RuntimeError(f"cannot tell the entry among {module.function_names}")
        self.function = self.context.modules.module[entries[0]]
        self.threads = threads

    def __call__(self, feeds):
        results = self.function(*feeds.values())
        if not isinstance(results, (list, tuple)):
            results = [results]
        return [np.asarray(r.to_host()) if hasattr(r, "to_host") else np.asarray(r)
                for r in results]


class BlasGemm:
    """C = A @ B through Debian's OpenBLAS cblas_sgemm."""

    def __init__(self, threads):
        for name in ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
                     "libopenblas.so.0"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                self.lib = None
        if self.lib is None:
            raise RuntimeError("Debian's OpenBLAS (libopenblas0) is not installed")
        self.lib.openblas_set_num_threads(ctypes.c_int(threads))
        get_config = self.lib.openblas_get_config
        get_config.restype = ctypes.c_char_p
        self.config = get_config().decode()
        self.threads = threads
        p = ctypes.POINTER(ctypes.c_float)
        self.lib.cblas_sgemm.argtypes = [
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.c_int, ctypes.c_float, p, ctypes.c_int, p,
            ctypes.c_int, ctypes.c_float, p, ctypes.c_int]

    def __call__(self, feeds):
        a, b = feeds["A"], feeds["B"]
        n = a.shape[0]
        c = np.empty((n, n), np.float32)
        p = ctypes.POINTER(ctypes.c_float)
        # CblasRowMajor = 101, CblasNoTrans = 111
        self.lib.cblas_sgemm(101, 111, 111, n, n, n, 1.0,
                             a.ctypes.data_as(p), n, b.ctypes.data_as(p), n,
                             0.0, c.ctypes.data_as(p), n)
        return [c]


def compare(outputs, expected):
    """Max abs error and whether all outputs are within RTOL/ATOL."""
    max_err, ok = 0.0, True
    if len(outputs) != len(expected):
        return float("inf"), False
    for got, want in zip(outputs, expected):
        got = np.asarray(got)
        if got.shape != want.shape:
            return float("inf"), False
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        max_err = max(max_err, float(err.max()) if err.size else 0.0)
        ok = ok and bool(np.all(err <= ATOL + RTOL * np.abs(want)))
    return max_err, ok


def percentiles(samples):
    a = np.asarray(samples)
    return {"n": int(a.size), "min_ms": float(a.min()),
            "mean_ms": float(a.mean()),
            "p50_ms": float(np.percentile(a, 50)),
            "p95_ms": float(np.percentile(a, 95)),
            "p99_ms": float(np.percentile(a, 99))}


def time_interleaved(runners, feeds, warmup, iterations, budget_s, block=1):
    """Runs every runner `block` times in a row per round, rotating the
    order; each call is timed alone. With blocks (several threads), each
    block starts after a pause of SETTLE_S and one untimed call: the peer
    that ran before may leave its threads spinning on the cores for a while
    (onnxruntime's do, after every run), and a sleeping pool's first call
    pays for waking its threads. A runner
    whose timed calls pass `budget_s` in total stops early (its sample
    count is reported); warm-up stops at a quarter of the budget."""
    names = list(runners)
    warm = {name: 0.0 for name in names}
    for _ in range(warmup):
        # A slow system warms up for at most a quarter of the budget.
        for name in [n for n in names if warm[n] < budget_s / 4]:
            start = time.perf_counter()
            runners[name](feeds[name])
            warm[name] += time.perf_counter() - start
    samples = {name: [] for name in names}
    spent = {name: 0.0 for name in names}
    block = max(1, block)
    for i in range((iterations + block - 1) // block):
        order = names[i % len(names):] + names[:i % len(names)]
        active = [n for n in order if spent[n] < budget_s]
        if not active:
            break
        for name in active:
            if block > 1:
                time.sleep(SETTLE_S)
                runners[name](feeds[name])
            for _ in range(min(block, iterations - len(samples[name]))):
                start = time.perf_counter_ns()
                runners[name](feeds[name])
                elapsed = (time.perf_counter_ns() - start) / 1e6
                samples[name].append(elapsed)
                spent[name] += elapsed / 1e3
    return {name: percentiles(s) for name, s in samples.items()}


def load_npz(path):
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def worker(threads):
    """Times everything at one thread count; prints one JSON object."""
    compiled = json.load(open(os.path.join(ARGS.work, "compiled.json")))
    models_dir = os.path.join(ARGS.work, "models")
    result = {"threads": threads, "models": {}, "floor": {}, "gemm": {}}
    # One thread: one call per system per round. Several: blocks of calls
    # (BLOCKS_PER_RUN per system), so that one system's spinning threads do
    # not run on the cores during the next one's call.
    block = 1 if threads == 1 else max(1, ARGS.iterations // BLOCKS_PER_RUN)
    result["block"] = block
    classes = {"tessel": TesselRunner, "ort": OrtRunner, "iree": IreeRunner}

    def load_runners(name, artifacts):
        runners, notes = {}, {}
        for system in SYSTEMS:
            art = artifacts[system]
            if not art["ok"]:
                notes[system] = {"ok": False, "reason": art["reason"]}
                continue
            try:
                runners[system] = classes[system](art["path"], threads)
            except Exception as e:  # noqa: BLE001 (a peer's failure is data)
                notes[system] = {"ok": False, "reason": f"load: {e}"[:300]}
        return runners, notes

    # Per-call floor: a one-element Identity.
    runners, notes = load_runners("identity", compiled["identity"])
    x = {"x": np.ones((1,), np.float32)}
    timing = time_interleaved(runners, {n: x for n in runners},
                              ARGS.warmup, ARGS.iterations, ARGS.budget, block)
    result["floor"] = {**notes, **{n: {"ok": True, **t} for n, t in timing.items()}}

    for name in ARGS.models:
        meta = json.load(open(os.path.join(models_dir, name + ".json")))
        inputs = load_npz(os.path.join(models_dir, name + ".inputs.npz"))
        expected = load_npz(os.path.join(models_dir, name + ".expected.npz"))
        expected = [expected[o] for o in meta["outputs"]]
        runners, notes = load_runners(name, compiled[name])
        entry = dict(notes)
        for system, runner in list(runners.items()):
            try:
                err, ok = compare(runner(dict(inputs)), expected)
                entry[system] = {"ok": True, "max_abs_err": err,
                                 "within_tolerance": ok,
                                 "threads": runner.threads}
                if hasattr(runner, "driver"):
                    entry[system]["driver"] = runner.driver
            except Exception as e:  # noqa: BLE001
                entry[system] = {"ok": False, "reason": f"run: {e}"[:300]}
                del runners[system]
        log(f"[{threads} thread(s)] timing {name}: {', '.join(runners)}")
        timing = time_interleaved(runners, {n: inputs for n in runners},
                                  ARGS.warmup, ARGS.iterations, ARGS.budget,
                                  block)
        for system, t in timing.items():
            entry[system].update(t)
        result["models"][name] = {"flops": meta["flops"], "systems": entry}

    rng = np.random.default_rng(0)
    try:
        blas = BlasGemm(threads)
        result["openblas_config"] = blas.config
    except Exception as e:  # noqa: BLE001
        blas, result["openblas_config"] = None, f"unavailable: {e}"
    for n in ARGS.gemm_sizes:
        feeds = {"A": rng.standard_normal((n, n), dtype=np.float32),
                 "B": rng.standard_normal((n, n), dtype=np.float32)}
        reference = feeds["A"].astype(np.float64) @ feeds["B"].astype(np.float64)
        runners, entry = {}, {}
        art = compiled[f"gemm_{n}"]["tessel"]
        if art["ok"]:
            runners["tessel"] = TesselRunner(art["path"], threads)
        else:
            entry["tessel"] = {"ok": False, "reason": art["reason"]}
        if blas:
            runners["openblas"] = blas
        else:
            entry["openblas"] = {"ok": False, "reason": result["openblas_config"]}
        for system, runner in runners.items():
            got = runner(feeds)[0]
            rel = float(np.abs(got - reference).max() / np.abs(reference).max())
            entry[system] = {"ok": True, "max_rel_err": rel}
        log(f"[{threads} thread(s)] timing gemm {n}")
        warmup = max(1, min(ARGS.warmup, 10))
        timing = time_interleaved(runners, {k: feeds for k in runners}, warmup,
                                  min(ARGS.iterations, 50), ARGS.budget / 2,
                                  max(1, block // 4))
        for system, t in timing.items():
            entry[system].update(t)
            entry[system]["gflops"] = 2.0 * n ** 3 / (t["p50_ms"] * 1e6)
        result["gemm"][str(n)] = entry
    print(json.dumps(result))


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def weight_read_section(record):
    """The weight-read floor against the 1-thread timings: no system runs a
    model faster than one read of its weights (each is used at least once),
    plus its per-call floor."""
    reads = record.get("weight_read", {})
    res = record["runs"].get("1")
    if not reads or not res:
        return []
    floor = res["floor"].get("tessel", {})
    call_ms = floor.get("p50_ms", 0.0) if floor.get("ok") else 0.0
    lines = ["## Weight-read floor (1 thread)", "",
             "No system runs a model faster than reading each of its weights "
             "once. `bench/stream.c` times one core reading as many bytes as "
             "Tessel's weights (its compile report's `weights_bytes`), each "
             "read after an untimed 8 MiB read that evicts the L2, as the "
             "other systems' calls do in the rotation (p50 of 200 reads, best "
             "of 5 rounds; buffers larger than the L3 come from memory). "
             "Floor = that read + Tessel's per-call floor "
             f"({fmt(call_ms, 4)} ms); the last column is the lowest "
             "Tessel/ORT that floor allows at onnxruntime's p50 of this run. "
             "At batch 1 the MLP does one multiply-add per weight: the read is "
             "nearly all of its work.", "",
             "| model | weights MB | read p50 ms | GB/s | floor ms | Tessel p50 ms | "
             "Tessel / floor | ORT p50 ms | lowest Tessel/ORT |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in record["models"]:
        r = reads.get(name)
        model = res["models"].get(name)
        if not r or not model:
            continue
        read_ms = r["best_us"] / 1e3
        total = read_ms + call_ms
        t = model["systems"].get("tessel", {}).get("p50_ms")
        o = model["systems"].get("ort", {}).get("p50_ms")
        lines.append(
            f"| {display(name)} | {r['bytes'] / 1e6:.2f} | {fmt(read_ms, 4)} | "
            f"{r['gbytes_per_s']:.1f} | {fmt(total, 4)} | "
            f"{fmt(t, 3) if t else 'n/a'} | {fmt(t / total) if t else 'n/a'} | "
            f"{fmt(o, 3) if o else 'n/a'} | {fmt(total / o) if o else 'n/a'} |")
    return lines + [""]


def write_report(record, out_md, out_json):
    with open(out_json, "w") as f:
        json.dump(record, f, indent=1)
    m = record["machine"]
    lines = [
        ("# Model zoo: Tessel vs onnxruntime and IREE" if record.get("zoo")
         else "# Benchmark: Tessel vs onnxruntime, IREE and OpenBLAS"),
        "",
        f"Generated by `bench/run.sh{' --zoo' if record.get('zoo') else ''}` "
        f"(`bench/bench.py`) on {m['date']}; do not "
        f"edit by hand. Raw data: `bench/{os.path.basename(out_json)}`.",
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} logical CPUs; codegen flags: "
        f"{' '.join(m['flags'])}; kernel {m['kernel']}",
        f"- Load average at start: {' '.join(str(x) for x in m['load_average_at_start'])}",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
        "- Measured FP32 FMA peak (bench/peak.c, best of 5): " + ", ".join(
            f"{t} thread(s): {p['best']:.1f} GFLOP/s ({p['isa']})"
            for t, p in record["peak"].items()),
        "",
        "## Method",
        "",
        f"Each system runs the same ONNX file (opset 17, batch 1). Per thread count, "
        f"a fresh process loads all systems, checks every output against torch's "
        f"(rtol {RTOL:g}, atol {ATOL:g}), then runs {record['warmup']} warm-up "
        f"calls each and up to {record['iterations']} timed rounds, every round "
        "calling each system once in rotating order, each call timed alone "
        "(Python `perf_counter_ns` around the API call, outputs returned as "
        "NumPy arrays). With more than one thread, a round instead calls each "
        f"system for 1/{BLOCKS_PER_RUN} of its timed calls in a row, after a "
        f"{SETTLE_S:g} s pause and one untimed call: onnxruntime's pool keeps "
        "its threads spinning for 20-50 ms after each run, on the cores the "
        "next system's threads need (measured on this 2-core machine: "
        "Tessel's MobileNetV2 at 2 threads 5.2-5.6 ms in blocks, 12.8 ms "
        "interleaved call by call with onnxruntime; onnxruntime 4.3-4.8 and "
        "8.5 ms; Tessel's BERT-like encoder right after a block of "
        "onnxruntime's: p95 4.9-5.3 ms with no pause, 1.2-1.3 with 50 ms). "
        "A slow system stops early when its "
        "timed calls pass "
        f"{record['budget_s']:g} s, and its warm-up at a quarter of that (the "
        "`n` column says how many timed calls ran). "
        "onnxruntime: CPU provider, ORT_ENABLE_ALL, intra-op threads = N, inter-op 1. "
        "IREE: `iree-import-onnx`, `iree-compile` for llvm-cpu with "
        "`--iree-llvmcpu-target-cpu=host`; at 1 thread the `local-sync` driver "
        "(single-threaded, on the calling thread), at N > 1 the `local-task` "
        "driver with `--task_topology_max_group_count=N`. Tessel: `tessel-compile` defaults "
        "(host CPU), a session with N threads. Ratios are p50 over p50: below 1 "
        "means Tessel is faster.",
        "",
    ]
    for threads, res in record["runs"].items():
        peak = record["peak"][threads]["best"]
        lines += [f"## {threads} thread(s)", "",
                  "| model | system | n | p50 ms | p95 ms | p99 ms | GFLOP/s | % peak | max abs err vs torch | ok |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        ratio_rows, ratios = [], []
        for name in record["models"]:
            model = res["models"].get(name)
            if not model:
                continue
            for system in SYSTEMS:
                s = model["systems"].get(system, {"ok": False, "reason": "not run"})
                if not s.get("ok") or "p50_ms" not in s:
                    lines.append(f"| {display(name)} | {system} | - | - | - | - | - | - | - | "
                                 f"cannot run: {s.get('reason', '?').replace('|', '/')} |")
                    continue
                gflops = model["flops"] / (s["p50_ms"] * 1e6)
                lines.append(
                    f"| {display(name)} | {system} | {s['n']} | {fmt(s['p50_ms'], 3)} | "
                    f"{fmt(s['p95_ms'], 3)} | {fmt(s['p99_ms'], 3)} | {gflops:.1f} | "
                    f"{100 * gflops / peak:.1f} | {s['max_abs_err']:.2e} | "
                    f"{'yes' if s['within_tolerance'] else 'NO'} |")
            sy = model["systems"]
            t = sy.get("tessel", {}).get("p50_ms")
            o = sy.get("ort", {}).get("p50_ms")
            i = sy.get("iree", {}).get("p50_ms")
            if t and o:
                ratios.append((t / o, name))
            ratio_rows.append(
                f"| {display(name)} | {fmt(t / o) if t and o else 'n/a'} | "
                f"{fmt(t / i) if t and i else 'n/a'} |")
        lines += ["", "Ratios (p50, Tessel / peer; < 1: Tessel faster):", "",
                  "| model | Tessel/ORT | Tessel/IREE |", "|---|---|---|"]
        lines += ratio_rows
        if ratios:
            geomean = float(np.exp(np.mean([np.log(r) for r, _ in ratios])))
            worst = max(ratios)
            lines += ["", f"Tessel/ORT over the {len(ratios)} models that both "
                      f"run: geometric mean {geomean:.3f}, highest {worst[0]:.3f} "
                      f"({display(worst[1])}), {sum(r > 1 for r, _ in ratios)} "
                      "above 1.00."]
        floor = res["floor"]
        lines += ["", "Per-call floor (one-element Identity, p50 ms): " + ", ".join(
            f"{sys_} {fmt(floor[sys_]['p50_ms'], 4)}" if floor.get(sys_, {}).get("ok")
            else f"{sys_} cannot run" for sys_ in SYSTEMS), ""]
        # No GEMM sweep with --zoo.
        if res["gemm"]:
            lines += [f"GEMM, f32, C = A @ B (OpenBLAS: `{res.get('openblas_config', '?')}`):", "",
                      "| n | Tessel p50 ms | Tessel GFLOP/s | % peak | OpenBLAS p50 ms | OpenBLAS GFLOP/s | % peak | Tessel/OpenBLAS | Tessel rel err |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for n, g in res["gemm"].items():
                t, b = g.get("tessel", {}), g.get("openblas", {})
                row = [n]
                for s in (t, b):
                    if s.get("ok") and "p50_ms" in s:
                        row += [fmt(s["p50_ms"], 3), fmt(s["gflops"], 1),
                                fmt(100 * s["gflops"] / peak, 1)]
                    else:
                        row += ["cannot run: " + s.get("reason", "?"), "-", "-"]
                ratio = (fmt(t["p50_ms"] / b["p50_ms"]) if "p50_ms" in t and "p50_ms" in b
                         else "n/a")
                row += [ratio, f"{t['max_rel_err']:.1e}" if "max_rel_err" in t else "-"]
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    lines += weight_read_section(record)
    lines += ["## Compilation", ""]
    if record.get("zoo"):
        slow = [n for n, c in record["compiled"].items()
                if c["tessel"].get("seconds", 0) > ZOO_COMPILE_LIMIT_S]
        lines += [f"Compiled in over {ZOO_COMPILE_LIMIT_S:g} s: "
                  f"{', '.join(slow) or 'none'}.", ""]
    lines += ["| model | Tessel s | Tessel phases (s) | IREE s |", "|---|---|---|---|"]
    for name, c in record["compiled"].items():
        t, i = c["tessel"], c["iree"]
        phases = ", ".join(f"{k} {v}" for k, v in t.get("phases", {}).items())
        lines.append(
            f"| {name} | {fmt(t.get('seconds'), 1) if t['ok'] else 'failed: ' + t['reason']} | "
            f"{phases or '-'} | {fmt(i.get('seconds'), 1) if i['ok'] else i['reason']} |")
    lines.append("")
    with open(out_md, "w") as f:
        f.write("\n".join(lines))


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zoo", action="store_true",
                        help="the model zoo (bench/zoo_models.py) instead of "
                             "the four benchmark models, no GEMMs; defaults "
                             "to --work bench/work-zoo --out "
                             "bench/zoo-results.md")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work")
    parser.add_argument("--out")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds of timed calls per system and model "
                             "after which that system stops early (default 120)")
    parser.add_argument("--models")
    parser.add_argument("--gemm-sizes")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ARGS = parser.parse_args()
    zoo = ARGS.zoo
    ARGS.work = ARGS.work or os.path.join(ROOT, "bench", "work-zoo" if zoo else "work")
    ARGS.out = ARGS.out or os.path.join(ROOT, "bench", "zoo-results.md" if zoo else "results.md")
    if ARGS.models is None:
        ARGS.models = ",".join(ZOO if zoo else MODELS)
    if ARGS.gemm_sizes is None:
        ARGS.gemm_sizes = "" if zoo else "256,512,1024,2048"
    ARGS.build = os.path.abspath(ARGS.build)
    ARGS.work = os.path.abspath(ARGS.work)
    ARGS.models = [m for m in ARGS.models.split(",") if m]
    ARGS.gemm_sizes = [int(n) for n in ARGS.gemm_sizes.split(",") if n]
    unknown = set(ARGS.models) - set(MODELS) - set(ZOO)
    if unknown:
        parser.error(f"unknown models: {', '.join(sorted(unknown))}")

    if ARGS.worker:
        # IREE reads its thread count from flags, before any device exists.
        try:
            import iree.runtime as rt
            rt.flags.parse_flags(f"--task_topology_max_group_count={ARGS.worker}")
        except Exception:  # noqa: BLE001 (IREE missing: reported per model)
            pass
        worker(ARGS.worker)
        return 0

    os.makedirs(ARGS.work, exist_ok=True)
    record = {"machine": machine_record(), "warmup": ARGS.warmup,
              "iterations": ARGS.iterations, "budget_s": ARGS.budget,
              "models": ARGS.models, "zoo": zoo, "peak": {}, "weight_read": {},
              "runs": {}, "compiled": {}}
    models_dir = export_models(ARGS.work)
    out_dir = os.path.join(ARGS.work, "compiled")
    os.makedirs(out_dir, exist_ok=True)
    names = ["identity"] + ARGS.models + [f"gemm_{n}" for n in ARGS.gemm_sizes]
    for name in names:
        onnx_path = os.path.join(models_dir, name + ".onnx")
        log(f"compiling {name}")
        entry = {"tessel": compile_tessel(onnx_path, out_dir, name),
                 "ort": {"ok": True, "path": onnx_path}}
        entry["iree"] = (compile_iree(onnx_path, out_dir, name)
                         if not name.startswith("gemm_")
                         else {"ok": False, "reason": "not compiled (GEMMs compare with OpenBLAS)"})
        record["compiled"][name] = entry
    with open(os.path.join(ARGS.work, "compiled.json"), "w") as f:
        json.dump(record["compiled"], f, indent=1)
    for name in ARGS.models:
        nbytes = record["compiled"][name]["tessel"].get("weights_bytes")
        if nbytes:
            log(f"timing a read of {name}'s weights ({nbytes} bytes)")
            record["weight_read"][name] = measure_weight_read(ARGS.work, nbytes)

    for threads in [int(t) for t in ARGS.threads.split(",") if t]:
        record["peak"][str(threads)] = measure_peak(ARGS.work, threads)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(threads),
               "--build", ARGS.build, "--work", ARGS.work,
               "--warmup", str(ARGS.warmup), "--iterations", str(ARGS.iterations),
               "--budget", str(ARGS.budget), "--models", ",".join(ARGS.models),
               "--gemm-sizes", ",".join(str(n) for n in ARGS.gemm_sizes)]
        log(f"running with {threads} thread(s)")
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if out.returncode:
            raise SystemExit(f"worker for {threads} thread(s) failed")
        record["runs"][str(threads)] = json.loads(out.stdout)
    out_json = os.path.splitext(ARGS.out)[0] + ".json"
    write_report(record, ARGS.out, out_json)
    log(f"wrote {ARGS.out} and {out_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
