"""What the INT8 benches share: the CPU's name and flags, running a tool,
and onnxruntime sessions timed on 1 thread (bench/int8_matmul.py,
bench/qdq.py)."""

import os
import platform
import statistics
import subprocess
import sys
import time

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


def session(path):
    """An onnxruntime CPU session on 1 thread."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
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
