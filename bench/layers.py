"""Single layers of the benchmark's CNNs, Tessel against onnxruntime.

Builds one ONNX model per layer shape of MobileNetV2 and ResNet-18 (a Conv
with bias and the ReLU after it, or ResNet's MaxPool) with seeded random
weights, compiles each with tessel-compile, checks Tessel's output against
onnxruntime's (rtol 1e-4, atol 1e-5 after scaling by the output's largest
magnitude), and times both interleaved on 1 thread: p50 of --iterations
calls after 5 warm-up calls each. Prints one row per layer (ms, GFLOP/s,
Tessel/onnxruntime) and writes bench/layers-results.md. It tells which
kernel shape a whole-model gap comes from. With --cold, every call (of
either system) follows an untimed read of 64 MiB, so that each layer
meets its weights and activations in memory, as the early layers of a whole
model do (bench/layers-cold-results.md). Usage:

    python3 bench/layers.py [--layers dw32,pw96_24,...] [--iterations 40] [--cold]
                            [--batch B] [--compile-flag=--layout=nhwc ...]

With --batch B, each layer runs at batch B (onnxruntime on the same model
with a symbolic batch) and Tessel's batch-1 artifact of it is timed beside:
the "per sample" column is Tessel's time at B / B / its time at 1, which
says whether batching pays (bench/layers-batchB-results.md).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (op, input channels, output channels, kernel, stride, groups, input
# height = width)
LAYERS = {
    "mb_first3x3s2": ("Conv", 3, 32, 3, 2, 1, 224),
    "mb_dw32": ("Conv", 32, 32, 3, 1, 32, 112),
    "mb_pw32_16": ("Conv", 32, 16, 1, 1, 1, 112),
    "mb_pw16_96": ("Conv", 16, 96, 1, 1, 1, 112),
    "mb_dw96s2": ("Conv", 96, 96, 3, 2, 96, 112),
    "mb_pw96_24": ("Conv", 96, 24, 1, 1, 1, 56),
    "mb_pw24_144": ("Conv", 24, 144, 1, 1, 1, 56),
    "mb_dw144": ("Conv", 144, 144, 3, 1, 144, 56),
    "mb_dw192": ("Conv", 192, 192, 3, 1, 192, 28),
    "mb_pw192_32": ("Conv", 192, 32, 1, 1, 1, 28),
    "mb_dw576": ("Conv", 576, 576, 3, 1, 576, 14),
    "mb_pw960_160": ("Conv", 960, 160, 1, 1, 1, 7),
    "mb_pw320_1280": ("Conv", 320, 1280, 1, 1, 1, 7),
    "rn_stem7x7s2": ("Conv", 3, 64, 7, 2, 1, 224),
    "rn_maxpool": ("MaxPool", 64, 64, 3, 2, 1, 112),
    "rn_3x3_64": ("Conv", 64, 64, 3, 1, 1, 56),
    "rn_3x3_128": ("Conv", 128, 128, 3, 1, 1, 28),
    "rn_3x3_256": ("Conv", 256, 256, 3, 1, 1, 14),
    "rn_3x3_512": ("Conv", 512, 512, 3, 1, 1, 7),
    "rn_1x1s2_128": ("Conv", 64, 128, 1, 2, 1, 56),
    # ResNet-50's bottlenecks (torchvision: the stride on the 3x3).
    "r50_1x1_256_64": ("Conv", 256, 64, 1, 1, 1, 56),
    "r50_1x1_64_256": ("Conv", 64, 256, 1, 1, 1, 56),
    "r50_1x1s2_256_512": ("Conv", 256, 512, 1, 2, 1, 56),
    "r50_3x3s2_128": ("Conv", 128, 128, 3, 2, 1, 56),
    "r50_1x1_512_128": ("Conv", 512, 128, 1, 1, 1, 28),
    "r50_1x1_128_512": ("Conv", 128, 512, 1, 1, 1, 28),
    "r50_1x1_512_256": ("Conv", 512, 256, 1, 1, 1, 28),
    "r50_1x1s2_512_1024": ("Conv", 512, 1024, 1, 2, 1, 28),
    "r50_1x1_1024_256": ("Conv", 1024, 256, 1, 1, 1, 14),
    "r50_1x1_256_1024": ("Conv", 256, 1024, 1, 1, 1, 14),
    "r50_1x1_1024_512": ("Conv", 1024, 512, 1, 1, 1, 14),
    "r50_1x1s2_1024_2048": ("Conv", 1024, 2048, 1, 2, 1, 14),
    "r50_1x1_2048_512": ("Conv", 2048, 512, 1, 1, 1, 7),
    "r50_1x1_512_2048": ("Conv", 512, 2048, 1, 1, 1, 7),
    # SqueezeNet 1.0's fire modules (squeeze 1x1, expand 1x1 and 3x3) at
    # 55 x 55, 27 x 27 and 13 x 13: planes no vector divides.
    "sq_squeeze_96_16": ("Conv", 96, 16, 1, 1, 1, 55),
    "sq_expand1_16_64": ("Conv", 16, 64, 1, 1, 1, 55),
    "sq_expand3_16_64": ("Conv", 16, 64, 3, 1, 1, 55),
    "sq_squeeze_256_32": ("Conv", 256, 32, 1, 1, 1, 27),
    "sq_expand3_32_128": ("Conv", 32, 128, 3, 1, 1, 27),
    "sq_squeeze_512_64": ("Conv", 512, 64, 1, 1, 1, 13),
    "sq_expand3_64_256": ("Conv", 64, 256, 3, 1, 1, 13),
    "sq_stem7x7s2": ("Conv", 3, 96, 7, 2, 1, 224),
}


def cpu_name():
    """The CPU's model name and family/model numbers, from /proc/cpuinfo."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        return "unknown CPU"
    return (f"{fields.get('model name', 'unknown CPU')} (family "
            f"{fields.get('cpu family', '?')} model {fields.get('model', '?')})")


def build(name, spec, rng, path, batch=1):
    """Writes the layer's model to `path`; with batch > 1 its batch is the
    symbolic N (onnxruntime runs it at any batch; Tessel compiles it with
    --input-shape). Returns the input's shape at `batch` and the flops."""
    op, cin, cout, k, stride, groups, hw = spec
    pad = k // 2
    out_hw = (hw + 2 * pad - k) // stride + 1
    n = "N" if batch > 1 else 1
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, cin, hw, hw])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                      [n, cout, out_hw, out_hw])
    if op == "MaxPool":
        nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[k, k],
                                  strides=[stride] * 2, pads=[pad] * 4)]
        weights, flops = [], cout * out_hw * out_hw * k * k
    else:
        w = (rng.standard_normal((cout, cin // groups, k, k)) * 0.1).astype(np.float32)
        b = rng.standard_normal(cout).astype(np.float32)
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"],
                                  kernel_shape=[k, k], strides=[stride] * 2,
                                  pads=[pad] * 4, group=groups),
                 helper.make_node("Relu", ["c"], ["y"])]
        weights = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        flops = 2 * cout * out_hw * out_hw * (cin // groups) * k * k
    flops *= batch
    graph = helper.make_graph(nodes, name, [x], [y], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return (batch, cin, hw, hw), flops


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--layers", default=",".join(LAYERS))
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--cold", action="store_true",
                        help="read 64 MiB before every call (untimed)")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="passed to tessel-compile (repeatable)")
    parser.add_argument("--batch", type=int, default=1,
                        help="time batch B, and Tessel's batch 1 beside it "
                             "(per-sample time of B against 1)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.out is None:
        args.out = os.path.join(ROOT, "bench", "layers-cold-results.md"
                                if args.cold else
                                f"layers-batch{args.batch}-results.md"
                                if args.batch > 1 else "layers-results.md")
    # Written once (a never-written buffer reads the kernel's one zero
    # page), then read: reading evicts without adding dirty lines for the
    # timed call to write back.
    flush_buffer = np.ones((64 << 20) // 8, np.int64) if args.cold else None

    def flush():
        if flush_buffer is not None:
            flush_buffer.sum()
    names = args.layers.split(",")
    unknown = set(names) - set(LAYERS)
    if unknown:
        raise SystemExit(f"layers: unknown layer(s) {sorted(unknown)}; "
                         f"known: {','.join(LAYERS)}")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("TESSEL_BUILD_DIR", args.build)
    import onnxruntime as ort
    import tessel

    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            path = os.path.join(work, name + ".onnx")
            shape, flops = build(name, LAYERS[name], rng, path, args.batch)
            compile_cmd = [os.path.join(args.build, "bin", "tessel-compile"),
                           path, *args.compile_flag]
            so = os.path.join(work, name + ".so")
            shape_flag = ["--input-shape", "x=" + "x".join(map(str, shape))]
            subprocess.run(compile_cmd + (shape_flag if args.batch > 1 else [])
                           + ["-o", so], check=True)
            x = rng.standard_normal(shape).astype(np.float32)
            session = tessel.load(so).session(num_threads=1)
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            peer = ort.InferenceSession(path, options,
                                        providers=["CPUExecutionProvider"])
            mine = list(session.run({"x": x}).values())[0]
            theirs = peer.run(None, {"x": x})[0]
            scale = max(1.0, float(np.max(np.abs(theirs))))
            ok = np.allclose(mine, theirs, rtol=1e-4, atol=1e-5 * scale)
            calls = {"tessel": lambda: session.run({"x": x}),
                     "ort": lambda: peer.run(None, {"x": x})}
            if args.batch > 1:
                # Tessel's batch-1 artifact of the same model, on the first
                # sample: the per-sample reference.
                so1 = os.path.join(work, name + ".b1.so")
                subprocess.run(compile_cmd + ["--input-shape", "x=1x" + "x".join(
                    map(str, shape[1:])), "-o", so1], check=True)
                single = tessel.load(so1).session(num_threads=1)
                x1 = x[:1].copy()
                calls["tessel1"] = lambda: single.run({"x": x1})
            for _ in range(5):
                for call in calls.values():
                    call()
            times = {key: [] for key in calls}
            for _ in range(args.iterations):
                for key, call in calls.items():
                    flush()
                    start = time.perf_counter()
                    call()
                    times[key].append(time.perf_counter() - start)
            p50 = {key: float(np.median(t)) * 1e3 for key, t in times.items()}
            a, b = p50["tessel"], p50["ort"]
            per_sample = (a / args.batch / p50["tessel1"]
                          if args.batch > 1 else None)
            row = (name, a, flops / a / 1e6, b, flops / b / 1e6, a / b, ok,
                   per_sample)
            rows.append(row)
            print(f"{name:15s} tessel {a:8.3f} ms {row[2]:7.1f} GFLOP/s   "
                  f"ort {b:8.3f} ms {row[4]:7.1f} GFLOP/s   ratio {a / b:5.2f}"
                  + (f"   per sample vs batch 1 {per_sample:5.2f}"
                     if per_sample else "")
                  + f"   {'ok' if ok else 'MISMATCH'}", flush=True)
    with open(args.out, "w") as f:
        cold = (", cold caches" if args.cold else "") + (
            f", batch {args.batch}" if args.batch > 1 else "")
        f.write(f"# Single layers: Tessel vs onnxruntime, 1 thread{cold}\n\n"
                f"Generated by `python3 bench/layers.py{' --cold' if args.cold else ''}"
                f"{f' --batch {args.batch}' if args.batch > 1 else ''}`"
                f" on {time.strftime('%Y-%m-%d')}, {cpu_name()}; "
                "do not edit by hand. "
                "Each layer is a Conv + bias + Relu (or ResNet-18's MaxPool) "
                "of the benchmark's CNNs (mb_: MobileNetV2, rn_: ResNet-18) "
                "and of the model zoo (r50_: ResNet-50's bottlenecks, sq_: "
                f"SqueezeNet 1.0's fire modules), p50 of {args.iterations} interleaved "
                "calls"
                + (", each after an untimed read of 64 MiB (weights and "
                   "activations start in memory, as a whole model's early "
                   "layers find them)" if args.cold else "")
                + "; ratio = Tessel / onnxruntime (< 1: Tessel faster). "
                "onnxruntime's time for a lone layer includes its conversion "
                "to and from its blocked NCHWc layout, which a whole model "
                "pays once: a layer at parity here can still lose inside a "
                "model.\n\n"
                + (f"At batch {args.batch}: per sample = Tessel's time at "
                   f"batch {args.batch} / {args.batch} / its time at batch 1 "
                   "(< 1: batching pays).\n\n" if args.batch > 1 else "")
                + "| layer | Tessel ms | GFLOP/s | onnxruntime ms | GFLOP/s | ratio |"
                + (" per sample |" if args.batch > 1 else "") + " matches |\n"
                "|---|---|---|---|---|---|" + ("---|" if args.batch > 1 else "")
                + "---|\n")
        for name, a, ga, b, gb, r, ok, per_sample in rows:
            f.write(f"| {name} | {a:.3f} | {ga:.1f} | {b:.3f} | {gb:.1f} | "
                    f"{r:.2f} |" + (f" {per_sample:.2f} |" if per_sample else "")
                    + f" {'yes' if ok else 'NO'} |\n")
    if not all(row[6] for row in rows):
        raise SystemExit("layers: some layer's output does not match onnxruntime")


if __name__ == "__main__":
    main()
