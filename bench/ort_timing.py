"""What the INT8 benches share: the CPU's name, flags and 8-bit ISA, running
a tool, onnxruntime sessions timed on 1 thread, the cosine of two outputs,
and writing a results file (bench/int8_matmul.py, bench/qdq.py,
bench/digits.py)."""

import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def run(cmd):
    """`cmd`'s stdout; exits naming the calling bench when it fails."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        who = os.path.splitext(os.path.basename(sys.argv[0]))[0]
        raise SystemExit(f"{who}: {' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    return out.stdout


def session(path, optimize=True):
    """An onnxruntime CPU session on 1 thread; with `optimize` false, its
    graph optimizations off: the model's ops run as written (a QDQ model's
    DequantizeLinear, float op and QuantizeLinear, not fused integer
    kernels)."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    if not optimize:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def ort_p50(sess, feed, iterations):
    """The median milliseconds of `iterations` runs, after 3 untimed ones."""
    for _ in range(3):
        sess.run(None, feed)
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        sess.run(None, feed)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def isa_label():
    """This CPU's 8-bit ISA, as the INT8 results files name it."""
    flags = cpu_flags()
    isa = [label for f, label in [("avx512_vnni", "AVX512-VNNI"), ("avx_vnni", "AVX-VNNI"),
                                  ("amx_int8", "AMX-INT8")] if f in flags]
    return ", ".join(isa) or "AVX2 only"


def cosine(a, b):
    """The cosine of two tensors' elements, in f64."""
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def write_results(path, lines):
    """Writes a results file's lines to `path`, and prints them."""
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    print(text)
