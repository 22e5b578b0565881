"""INT8 accuracy with real weights: the digits CNN, FP32 against each calibrator.

Quantization error on random weights says little; this model is trained
(bench/export_digits.py: two convolutions, pooling and a linear head on
scikit-learn's 8x8 digits, seeded). In one run it measures top-1 accuracy on
the 360 held-out images for:

    Tessel FP32; Tessel INT8 (`tessel-compile --quantize=int8`) with each
    calibrator (minmax, percentile, entropy); onnxruntime FP32 and INT8
    (quantize_static, QDQ, U8S8, per-channel, minmax).

Every INT8 build calibrates on the same 480 training images (8 batches of
60). Writes bench/digits-results.md, naming the CPU and its 8-bit ISA.
Usage:

    python3 bench/digits.py

(needs the pip python3 with onnx and onnxruntime, and Debian's
/usr/bin/python3 with python3-torch and python3-sklearn to train the model
once).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

from ort_timing import cosine, cpu_flags, cpu_name, isa_label, run, write_results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 60


class Reader(CalibrationDataReader):
    def __init__(self, batches):
        self.batches = iter(batches)

    def get_next(self):
        batch = next(self.batches, None)
        return None if batch is None else {"image": batch}


def tessel_logits(bin_dir, so, batches, work):
    """`so`'s logits on each batch, concatenated."""
    logits = []
    for i, batch in enumerate(batches):
        path = os.path.join(work, f"digits.batch{i}.npy")
        np.save(path, batch)
        out = os.path.join(work, "digits-out")
        run([os.path.join(bin_dir, "tessel-run"), so, "--input", f"image={path}",
             "--output-dir", out, "--quiet"])
        logits.append(np.load(os.path.join(out, "logits.npy")))
    return np.concatenate(logits)



def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "work-digits"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "digits-results.md"))
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    bin_dir = os.path.join(args.build, "bin")
    model = os.path.join(args.work, "digits.onnx")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_digits.py"),
                        args.work], check=True)
    data = np.load(os.path.join(args.work, "digits.npz"))
    test, labels = data["test"], data["test_labels"]
    test_batches = [test[i:i + BATCH] for i in range(0, len(test), BATCH)]
    calibration = data["train"][:8 * BATCH].reshape(8, BATCH, 1, 8, 8)
    calibration_path = os.path.join(args.work, "digits.calibration.npz")
    np.savez(calibration_path, image=calibration)

    rows = []
    fp32_so = os.path.join(args.work, "digits.fp32.so")
    run([os.path.join(bin_dir, "tessel-compile"), model, "-o", fp32_so])
    reference = tessel_logits(bin_dir, fp32_so, test_batches, args.work)
    fp32 = (reference.argmax(1) == labels).mean()

    def row(label, logits):
        rows.append((label, (logits.argmax(1) == labels).mean(),
                     (logits.argmax(1) == reference.argmax(1)).mean(),
                     cosine(logits, reference)))

    row("Tessel FP32", reference)
    for method in ("minmax", "percentile", "entropy"):
        so = os.path.join(args.work, f"digits.int8-{method}.so")
        run([os.path.join(bin_dir, "tessel-compile"), model, "-o", so, "--quantize=int8",
             "--calibration-data=" + calibration_path, "--calibration=" + method,
             "--report=" + so + ".json"])
        row(f"Tessel INT8, --calibration={method}",
            tessel_logits(bin_dir, so, test_batches, args.work))
    # The budget: at most 0.5% of the predictions may change, searched on the
    # calibration images (480 rows), checked here on the held-out ones.
    so = os.path.join(args.work, "digits.int8-budget.so")
    run([os.path.join(bin_dir, "tessel-compile"), model, "-o", so, "--quantize=int8",
         "--calibration-data=" + calibration_path, "--accuracy-budget=top1:0.5",
         "--report=" + so + ".json"])
    kept = [k["nodes"][-1] for k in json.load(open(so + ".json"))["accuracy_budget"]["kept_fp32"]]
    budgeted = tessel_logits(bin_dir, so, test_batches, args.work)
    changed = 100 * (budgeted.argmax(1) != reference.argmax(1)).mean()
    row("Tessel INT8, --accuracy-budget=top1:0.5 (kept in FP32: "
        + (", ".join(kept) or "none") + f"; held-out: {changed:.2f}% changed, "
        + ("holds" if changed <= 0.5 else "**misses**") + ")", budgeted)
    # BF16: the products on vdpbf16ps. Only Zen 4 runs it faster than FP32; on
    # a host with AVX512-BF16 the Zen 4 code runs here, elsewhere the build
    # keeps FP32 (with a warning) and says so.
    bf16_target = ["--target-cpu=znver4"] if "avx512_bf16" in cpu_flags() else []
    so = os.path.join(args.work, "digits.bf16.so")
    run([os.path.join(bin_dir, "tessel-compile"), model, "-o", so, "--precision=bf16",
         *bf16_target, "--report=" + so + ".json"])
    low = len(json.load(open(so + ".json"))["precision"]["low_precision_products"])
    row(f"Tessel BF16, --precision=bf16 {' '.join(bf16_target)} ({low} products in bf16)",
        tessel_logits(bin_dir, so, test_batches, args.work))
    qdq = os.path.join(args.work, "digits.qdq.onnx")
    quantize_static(model, qdq, Reader(list(calibration)), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    for label, path in (("onnxruntime FP32", model), ("onnxruntime INT8 (QDQ, minmax)", qdq)):
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        row(label, np.concatenate([session.run(None, {"image": b})[0] for b in test_batches]))

    lines = ["# INT8 accuracy on a trained model: the digits CNN", "",
             f"`python3 bench/digits.py`, {cpu_name()} ({isa_label()}). Two 3x3 convolutions, "
             "2x2 max pooling and a linear head trained on scikit-learn's 8x8 digits "
             "(bench/export_digits.py, seeded); top-1 on the 360 held-out images; every INT8 "
             "build calibrated on the same 480 training images.", "",
             "| build | top-1 | points vs Tessel FP32 | predictions equal to Tessel FP32's "
             "| logits' cosine vs Tessel FP32 |", "|---|---|---|---|---|"]
    for label, accuracy, agree, cos in rows:
        lines.append(f"| {label} | {100 * accuracy:.2f}% | {100 * (accuracy - fp32):+.2f} | "
                     f"{100 * agree:.2f}% | {cos:.5f} |")
    write_results(args.out, lines)


if __name__ == "__main__":
    main()
