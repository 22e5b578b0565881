"""ResNet-18 from decoded pixels to logits: preprocessing compiled into the
artifact (tessel-compile --preprocess) against numpy preprocessing followed by
Tessel, and by onnxruntime. 1 thread, p50, interleaved rounds in one run.

Runs bench/preprocess_torch.py under /usr/bin/python3 first (ResNet-18,
seeded JPEG images, torchvision's transforms and torch's logits), then checks
the --preprocess artifact against torch's logits and times the three paths.
Writes bench/preprocess-results.md. Usage:

    python3 bench/preprocess.py [--build build] [--work bench/work-preprocess]
                                [--rounds 5] [--iterations 20]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tessel  # noqa: E402

SPEC = ("input=uint8,hwc,size=256x256,resize=256,crop=224,scale=1/255,"
        "mean=0.485:0.456:0.406,std=0.229:0.224:0.225")
MEAN = np.float32([0.485, 0.456, 0.406])
STD = np.float32([0.229, 0.224, 0.225])


def numpy_preprocess(pixels):
    """What a user writes: center crop 224 of the 256x256 image (Resize(256)
    leaves it as it is), /255, normalise, HWC -> NCHW."""
    x = pixels[16:240, 16:240].astype(np.float32) / 255
    x = (x - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def cpu_name():
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((l.split(":", 1)[1].strip() for l in out.splitlines()
                 if l.startswith("Model name")), "unknown")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "work-preprocess"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "preprocess-results.md"))
    args = parser.parse_args()
    work = args.work
    if not os.path.exists(os.path.join(work, "torch_logits.npy")):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "preprocess_torch.py"),
                        work], check=True, cwd=os.path.join(ROOT, "bench"))
    onnx_path = os.path.join(work, "resnet18.onnx")
    compile_ = os.path.join(args.build, "bin", "tessel-compile")
    plain, pre = os.path.join(work, "resnet18.so"), os.path.join(work, "resnet18.pre.so")
    for out, extra in ((plain, []), (pre, [f"--preprocess={SPEC}"])):
        subprocess.run([compile_, onnx_path, "-o", out, f"--report={out}.json", *extra],
                       check=True)
    kernels = [len(json.load(open(p + ".json"))["kernels"]) for p in (plain, pre)]

    pixels = np.load(os.path.join(work, "pixels.npy"))
    torch_logits = np.load(os.path.join(work, "torch_logits.npy"))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    ort_session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])

    with tessel.load(pre) as pre_model, pre_model.session(1) as pre_session, \
            tessel.load(plain) as plain_model, plain_model.session(1) as plain_session:
        # Accuracy: every image, against torchvision + torch.
        ours = np.stack([pre_session.run([p])["logits"][0] for p in pixels])
        scale = np.abs(torch_logits).max()
        max_abs = float(np.abs(ours - torch_logits).max())
        close = bool(np.allclose(ours, torch_logits, rtol=1e-3, atol=1e-3 * scale))
        top1 = float((ours.argmax(1) == torch_logits.argmax(1)).mean() * 100)
        plain_diff = float(np.abs(
            np.stack([plain_session.run([numpy_preprocess(p)])["logits"][0] for p in pixels])
            - ours).max())

        paths = {
            "Tessel --preprocess (pixels in)": lambda p: pre_session.run([p]),
            "numpy preprocessing + Tessel": lambda p: plain_session.run([numpy_preprocess(p)]),
            "numpy preprocessing + onnxruntime": lambda p: ort_session.run(
                None, {"input": numpy_preprocess(p)}),
            "numpy preprocessing alone": numpy_preprocess,
        }
        samples = {name: [] for name in paths}
        for name, fn in paths.items():  # warm up
            for p in pixels[:3]:
                fn(p)
        for _ in range(args.rounds):
            for name, fn in paths.items():
                times = []
                for i in range(args.iterations):
                    p = pixels[i % len(pixels)]
                    t = time.perf_counter()
                    fn(p)
                    times.append((time.perf_counter() - t) * 1e3)
                samples[name].append(statistics.median(times))
    ms = {name: statistics.median(v) for name, v in samples.items()}
    load = os.getloadavg()[0]
    base = ms["Tessel --preprocess (pixels in)"]
    lines = [
        "# ResNet-18 from pixels to logits: preprocessing compiled in",
        "",
        f"`python3 bench/preprocess.py`, {cpu_name()}, 1 thread, p50 of {args.iterations} runs "
        f"per round, median of {args.rounds} interleaved rounds; load average {load:.2f} at the end. "
        f"{len(pixels)} seeded 256x256 JPEG images (bench/preprocess_torch.py), decoded by Pillow; "
        f"decoding is outside every path.",
        "",
        f"`--preprocess='{SPEC}'`",
        "",
        "| path | ms per image | vs Tessel --preprocess |",
        "|---|---|---|",
    ]
    for name, value in ms.items():
        lines.append(f"| {name} | {value:.3f} | {value / base:.2f}x |")
    lines += [
        "",
        f"Kernels: {kernels[0]} without preprocessing, {kernels[1]} with it "
        f"(the normalisation's scale folds into the first convolution; the cast, the mean's "
        f"shift and the HWC -> CHW transpose are one kernel).",
        "",
        f"Accuracy against torchvision's transforms followed by torch's model, on all "
        f"{len(pixels)} images: max abs difference {max_abs:.2e} (largest |logit| {scale:.2f}); "
        f"`allclose(rtol=1e-3, atol=1e-3 * max|logit|)`: {close}; same top-1 on {top1:.0f}%. "
        f"Against numpy preprocessing + the plain artifact: max abs difference {plain_diff:.2e}.",
        "",
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    if not close:
        sys.exit(1)


if __name__ == "__main__":
    main()
