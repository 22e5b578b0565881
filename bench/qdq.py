"""Tessel INT8, Tessel on onnxruntime's QDQ models, Tessel BF16 and FP16, beside onnxruntime INT8 and both FP32.

For each model (exported by bench/export_models.py with Debian's torch): the
model is quantized by onnxruntime's own `quantize_static` (QDQ format, U8S8:
uint8 activations, int8 weights per channel) on 16 seeded calibration
inputs, and by Tessel itself (`tessel-compile --quantize=int8`, minmax, on
the same 16 inputs); then, in one run, 1 thread, p50 of each tool's timing
loop, median over interleaved rounds:

    Tessel FP32, Tessel INT8 (--quantize), Tessel on the QDQ model,
    Tessel BF16 (--precision=bf16), Tessel FP16 (--precision=fp16),
    onnxruntime FP32, onnxruntime INT8 (the QDQ model).

Accuracy on 32 other inputs: each output's cosine against onnxruntime's FP32
output (Tessel INT8, Tessel's QDQ build and onnxruntime INT8), and the share
of Tessel's QDQ elements within one quantization step of onnxruntime INT8's
(the step is the scale of the DequantizeLinear that produces the output,
when one does), and of the QDQ model as written (onnxruntime with its graph
optimizations off: each DequantizeLinear, float op and QuantizeLinear as
ONNX defines it; onnxruntime INT8 fuses them into integer kernels that
round differently, so the two references differ from each other).
The compile report's `quantization` section says which products ran on
integers, its `precision` section which ran in bf16 or f16 (on a CPU without
a 16-bit kernel faster than its FP32 FMA, none: the BF16 or FP16 build is
then the FP32 one). Names the CPU and its 8-bit, bf16 and f16 ISA. Usage:

    python3 bench/qdq.py [--models mlp,bert,resnet18] [--rounds 3]

(needs the pip python3 with onnx and onnxruntime, and Debian's
/usr/bin/python3 with python3-torch to export the models once).
"""

import argparse
import json
import os
import statistics
import sys

import numpy as np
import onnx
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

from ort_timing import (cosine, cpu_flags, cpu_name, isa_label, ort_p50, run, session,
                        write_results)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def samples(reference, count, seed):
    """Inputs shaped like the model's reference inputs: normal floats,
    integers (token ids) in [0, 1000)."""
    rng = np.random.default_rng(seed)
    result = []
    for _ in range(count):
        feed = {}
        for name, value in reference.items():
            if value.dtype.kind in "iu":
                feed[name] = rng.integers(0, 1000, size=value.shape).astype(value.dtype)
            else:
                feed[name] = rng.standard_normal(value.shape).astype(value.dtype)
        result.append(feed)
    return result


class Reader(CalibrationDataReader):
    def __init__(self, feeds):
        self.feeds = iter(feeds)

    def get_next(self):
        return next(self.feeds, None)


def output_step(model):
    """The scale of the DequantizeLinear producing the first output, or None."""
    out = model.graph.output[0].name
    producers = {o: n for n in model.graph.node for o in n.output}
    inits = {i.name: i for i in model.graph.initializer}
    node = producers.get(out)
    while node is not None and node.op_type == "Identity":
        node = producers.get(node.input[0])
    if node is None or node.op_type != "DequantizeLinear" or node.input[1] not in inits:
        return None
    return float(onnx.numpy_helper.to_array(inits[node.input[1]]).max())



def save_inputs(feed, work):
    """Writes `feed` as .npy files; the NAME=FILE arguments of the tools."""
    args = []
    for name, value in feed.items():
        path = os.path.join(work, f"in.{name}.npy")
        np.save(path, value)
        args.append(f"{name}={path}")
    return args


def tessel_outputs(bin_dir, so, feed, work):
    """The directory where tessel-run wrote the outputs of `so` on `feed`."""
    out_dir = os.path.join(work, "out")
    run([os.path.join(bin_dir, "tessel-run"), so, "--input", *save_inputs(feed, work),
         "--output-dir", out_dir, "--quiet"])
    return out_dir


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work-qdq"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "qdq-results.md"))
    ap.add_argument("--models", default="mlp,bert,resnet18,mobilenet_v2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    bin_dir = os.path.join(args.build, "bin")
    models = args.models.split(",")
    missing = [m for m in models if not os.path.exists(os.path.join(args.work, m + ".onnx"))]
    if missing:
        run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"), args.work,
             "--models", ",".join(missing), "--gemm-sizes", "256"])
    rows, notes = [], []
    half_rows = {"bf16": [], "fp16": []}
    half_notes = {"bf16": [], "fp16": []}
    for name in models:
        base = os.path.join(args.work, name)
        reference = dict(np.load(base + ".inputs.npz"))
        qdq = base + ".qdq.onnx"
        calibration = samples(reference, 16, seed=1)
        if not os.path.exists(qdq):
            quantize_static(base + ".onnx", qdq, Reader(calibration),
                            quant_format=QuantFormat.QDQ, per_channel=True,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        # The same samples for Tessel's own calibration: one array per
        # input, a leading sample axis.
        np.savez(base + ".calibration.npz",
                 **{k: np.stack([f[k] for f in calibration]) for k in reference})
        for src, so, extra in [
                (base + ".onnx", base + ".fp32.so", []),
                (base + ".onnx", base + ".int8.so",
                 ["--quantize=int8", "--calibration-data=" + base + ".calibration.npz"]),
                (qdq, base + ".qdq.so", []),
                (base + ".onnx", base + ".bf16.so", ["--precision=bf16"]),
                (base + ".onnx", base + ".fp16.so", ["--precision=fp16"])]:
            run([os.path.join(bin_dir, "tessel-compile"), src, "-o", so,
                 "--report=" + so + ".json", *extra])
        fp32, int8 = session(base + ".onnx"), session(qdq)
        as_written = session(qdq, optimize=False)
        step = output_step(onnx.load(qdq))
        cos_tessel, cos_ort, cos_int8, within, within_written = [], [], [], [], []
        cos_half = {"bf16": [], "fp16": []}
        output = fp32.get_outputs()[0].name + ".npy"
        for feed in samples(reference, 32, seed=2):
            expected = fp32.run(None, feed)[0]
            theirs = int8.run(None, feed)[0]
            out_dir = tessel_outputs(bin_dir, base + ".int8.so", feed, args.work)
            cos_int8.append(cosine(np.load(os.path.join(out_dir, output)), expected))
            for half in cos_half:
                out_dir = tessel_outputs(bin_dir, base + f".{half}.so", feed, args.work)
                cos_half[half].append(cosine(np.load(os.path.join(out_dir, output)), expected))
            out_dir = tessel_outputs(bin_dir, base + ".qdq.so", feed, args.work)
            ours = np.load(os.path.join(out_dir, output))
            cos_tessel.append(cosine(ours, expected))
            cos_ort.append(cosine(theirs, expected))
            if step:
                within.append(float(np.mean(np.abs(ours - theirs) <= step * 1.001)))
                written = as_written.run(None, feed)[0]
                within_written.append(float(np.mean(np.abs(ours - written) <= step * 1.001)))
        feed_args = save_inputs(reference, args.work)
        times = {k: [] for k in ("tessel_fp32", "tessel_int8", "tessel_qdq", "tessel_bf16",
                                 "tessel_fp16", "ort_fp32", "ort_int8")}
        for _ in range(args.rounds):
            for key, so in [("tessel_fp32", base + ".fp32.so"),
                            ("tessel_int8", base + ".int8.so"),
                            ("tessel_qdq", base + ".qdq.so"),
                            ("tessel_bf16", base + ".bf16.so"),
                            ("tessel_fp16", base + ".fp16.so")]:
                out = run([os.path.join(bin_dir, "tessel-bench"), so, "--input", *feed_args,
                           "--warmup", "5", "--iterations", str(args.iterations), "--threads",
                           "1", "--json"])
                times[key].append(json.loads(out)["p50_ms"])
            times["ort_fp32"].append(ort_p50(fp32, reference, args.iterations))
            times["ort_int8"].append(ort_p50(int8, reference, args.iterations))
        t = {k: statistics.median(v) for k, v in times.items()}
        report = json.load(open(base + ".qdq.so.json"))["quantization"]
        own = json.load(open(base + ".int8.so.json"))["quantization"]
        for half in half_rows:
            precision = json.load(open(base + f".{half}.so.json"))["precision"]
            half_rows[half].append((name, t, min(cos_half[half]),
                                    len(precision["low_precision_products"]),
                                    len(precision["full_precision_products"])))
            reasons = sorted({p["reason"] for p in precision["full_precision_products"]})
            if reasons:
                half_notes[half].append(f"- {name} ({half.upper()}): products left in f32: " +
                                        "; ".join(reasons))
        rows.append((name, t, min(cos_int8), min(cos_tessel), min(cos_ort),
                     min(within) if within else None,
                     min(within_written) if within_written else None,
                     len(own["integer_products"]), len(own["float_products"]),
                     len(report["integer_products"]), len(report["float_products"])))
        for label, r in (("INT8", own), ("QDQ", report)):
            reasons = sorted({p["reason"] for p in r["float_products"]})
            if reasons:
                notes.append(f"- {name} ({label}): products left in f32: " + "; ".join(reasons))
        print(f"qdq: {name}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in t.items()),
              file=sys.stderr, flush=True)
    cpu, isa = cpu_name(), isa_label()
    flags = cpu_flags()
    half_isa = {
        "bf16": ", ".join(n for f, n in (("amx_bf16", "AMX-BF16"), ("avx512_bf16", "AVX512-BF16"))
                          if f in flags) or "no bf16 arithmetic",
        "fp16": "AVX512-FP16" if "avx512_fp16" in flags else "no f16 arithmetic"}
    lines = ["# Tessel INT8, Tessel on onnxruntime's QDQ models, and Tessel BF16 and FP16", "",
             f"`python3 bench/qdq.py`, {cpu} ({isa}), 1 thread, p50 of {args.iterations} runs "
             f"per round, median of {args.rounds} interleaved rounds; load average "
             f"{os.getloadavg()[0]:.2f} at the end. Tessel INT8: `tessel-compile "
             "--quantize=int8` (minmax) on 16 calibration inputs; QDQ models by onnxruntime's "
             "quantize_static (U8S8, per-channel weights) on the same 16; accuracy on 32 other "
             "inputs.", "",
             "| model | Tessel FP32 ms | Tessel INT8 ms | Tessel QDQ ms | onnxruntime FP32 ms "
             "| onnxruntime INT8 ms | Tessel INT8 / ORT INT8 | Tessel QDQ / ORT INT8 "
             "| Tessel INT8 / Tessel FP32 | Tessel QDQ / Tessel FP32 "
             "| cosine vs FP32: Tessel INT8 | Tessel QDQ | ORT INT8 "
             "| Tessel QDQ within one step of ORT INT8 | of the QDQ model as written "
             "| products on integers / in f32: Tessel INT8 | Tessel QDQ |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, t, c8, ct, co, within, written, i_int, i_float, n_int, n_float in rows:
        share = "-" if within is None else f"{100 * within:.2f}%"
        share_written = "-" if written is None else f"{100 * written:.2f}%"
        lines.append(f"| {name} | {t['tessel_fp32']:.3f} | {t['tessel_int8']:.3f} | "
                     f"{t['tessel_qdq']:.3f} | {t['ort_fp32']:.3f} | {t['ort_int8']:.3f} | "
                     f"{t['tessel_int8'] / t['ort_int8']:.2f} | "
                     f"{t['tessel_qdq'] / t['ort_int8']:.2f} | "
                     f"{t['tessel_int8'] / t['tessel_fp32']:.2f} | "
                     f"{t['tessel_qdq'] / t['tessel_fp32']:.2f} | {c8:.5f} | {ct:.5f} | "
                     f"{co:.5f} | {share} | {share_written} | {i_int} / {i_float} | "
                     f"{n_int} / {n_float} |")
    if not flags & {"avx512_vnni", "avx_vnni"} and "avx2" in flags:
        # Measured on Zen 3: onnxruntime's fused qdq_cnn (test/Inputs/models.py)
        # was off by up to 6 steps in 283 of 1152 outputs.
        lines += ["", "This CPU has AVX2 without VNNI: onnxruntime's fused 8-bit kernels "
                  "multiply with vpmaddubsw, which saturates each pair's sum at int16, so "
                  "its INT8 outputs can differ from the QDQ model as written by several "
                  "steps; Tessel's integer sums are exact (vpmaddwd)."]
    lines += ["", "Cosines and shares are the minimum over the inputs. Products left in f32, "
              "from the compile report:", ""] + (notes or ["- none"])
    for half, label, element in (("bf16", "BF16", "bf16"), ("fp16", "FP16", "f16")):
        lines += ["", f"## {label}", "",
                  f"`tessel-compile --precision={half}` ({half_isa[half]}), timed in the same "
                  "rounds as the table above; cosine against onnxruntime FP32 on the same 32 "
                  "inputs (minimum).", "",
                  f"| model | Tessel FP32 ms | Tessel {label} ms | onnxruntime FP32 ms "
                  f"| Tessel {label} / Tessel FP32 | Tessel {label} / ORT FP32 | cosine vs FP32 "
                  f"| products in {element} / in f32 |",
                  "|---|---|---|---|---|---|---|---|"]
        for name, t, c, n_low, n_full in half_rows[half]:
            key = "tessel_" + half
            lines.append(f"| {name} | {t['tessel_fp32']:.3f} | {t[key]:.3f} | "
                         f"{t['ort_fp32']:.3f} | {t[key] / t['tessel_fp32']:.2f} | "
                         f"{t[key] / t['ort_fp32']:.2f} | {c:.5f} | {n_low} / {n_full} |")
        lines += ["", f"Products left in f32 by --precision={half}, from the compile report:",
                  ""] + (half_notes[half] or ["- none"])
    write_results(args.out, lines)


if __name__ == "__main__":
    main()
