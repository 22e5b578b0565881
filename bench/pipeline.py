"""The pipelined request path: JPEG decoding overlapping the model.

Each request is a JPEG file; serving it is decoding (Pillow, libjpeg-turbo)
and a model run. Serial: one request after another, decode then run.
Pipelined: tessel.Pipeline decodes request n+1 on its worker thread while
request n runs on a stream (python/tessel/_pipeline.py). Two artifacts of
the same network:

  * compiled: tessel-compile --preprocess (ImageNet's resize 256, crop 224,
    /255, mean/std compiled in): the request path outside is decoding alone;
  * numpy: compiled without it: decoding plus NumPy's crop, /255, mean/std
    and HWC -> CHW.

Modes, all in a pool of 2 threads (TESSEL_NUM_THREADS=2): serial and
pipelined with 1-thread kernels (session num_threads=1), pipelined on 2
streams (the runs of consecutive requests overlapping too), serial and
pipelined with 2-thread kernels. Every mode's outputs are checked equal, bit
for bit, to the serial ones with the same kernel threads; the two artifacts'
logits to 1e-3 of their scale. Throughput is requests/s over one pass of all
the images, the median of interleaved rounds. Writes
bench/pipeline-results.md; about a minute for both models once they are
compiled (the first run exports and compiles them). Usage:

    python3 bench/pipeline.py [--build build] [--models resnet18,mobilenet_v2]
                              [--onnx-dir DIR] [--images 32] [--rounds 5]
                              [--recompile]
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tessel  # noqa: E402
# The same SPEC and numpy path as the single-image benchmark.
from preprocess import SPEC, cpu_name, numpy_preprocess  # noqa: E402


def log(*args):
    print("pipeline:", *args, file=sys.stderr, flush=True)


def write_jpegs(directory, count, seed):
    """`count` seeded 256x256 RGB JPEGs (quality 90): smooth colour fields
    (bicubic upsampling of 16x16 noise) plus fine noise, so that they
    compress as photographs do rather than as pure noise."""
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(count):
        coarse = rng.integers(0, 256, (16, 16, 3)).astype(np.uint8)
        field = np.asarray(Image.fromarray(coarse).resize((256, 256), Image.BICUBIC),
                           np.float64)
        pixels = np.clip(field + rng.normal(0, 6, field.shape), 0, 255).astype(np.uint8)
        path = os.path.join(directory, f"{i:03d}.jpg")
        Image.fromarray(pixels).save(path, quality=90)
        paths.append(path)
    return paths


def decode(path):
    """The JPEG's pixels, uint8 [256, 256, 3] (the compiled artifact's input)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def compile_artifacts(build, onnx_path, model_name, work, recompile):
    """The --preprocess artifact and the plain one, compiled unless they are
    newer than the model (or `recompile`). Returns them and the commands."""
    compiler = os.path.join(build, "bin", "tessel-compile")
    artifacts, commands = {}, []
    for variant, extra in (("compiled", [f"--preprocess={SPEC}"]), ("numpy", [])):
        out = os.path.join(work, f"{model_name}.{variant}.so")
        cmd = [compiler, onnx_path, *extra, "-o", out]
        commands.append(" ".join(shlex.quote(os.path.relpath(c, ROOT) if os.path.isabs(c)
                                             else c) for c in cmd))
        fresh = os.path.exists(out) and os.path.getmtime(out) > os.path.getmtime(onnx_path)
        if recompile or not fresh:
            log(f"compiling {variant}: {commands[-1]}")
            subprocess.run(cmd, check=True)
        artifacts[variant] = out
    return artifacts, commands


# (name, kernel threads, Pipeline(depth, streams) or None for serial)
MODES = (
    ("serial", 1, None),
    ("pipelined", 1, (2, 1)),
    ("pipelined, 2 streams", 1, (3, 2)),
    ("serial", 2, None),
    ("pipelined", 2, (2, 1)),
)


def median_ms(fn, items, repeats=1):
    times = []
    for _ in range(repeats):
        for item in items:
            start = time.perf_counter()
            fn(item)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def measure(model_path, preprocess, paths, rounds):
    """Requests/s of each of MODES (one list of rounds each), the stages'
    times alone, and each mode's outputs."""
    runs, outputs, stages = {}, {}, {}
    with tessel.load(model_path) as model:
        sessions = {threads: model.session(num_threads=threads) for threads in (1, 2)}
        pipelines = []
        try:
            for name, threads, shape in MODES:
                session = sessions[threads]
                if shape is None:
                    runs[(name, threads)] = lambda s=session: [
                        s.run(preprocess(path)) for path in paths]
                else:
                    pipelines.append(tessel.Pipeline(session, preprocess, *shape))
                    runs[(name, threads)] = lambda p=pipelines[-1]: list(p.map(paths))
            for key, fn in runs.items():  # warm-up pass, and the outputs
                outputs[key] = fn()
            inputs = [preprocess(path) for path in paths[:8]]
            stages["preprocess"] = median_ms(preprocess, paths)
            for threads, session in sessions.items():
                stages[threads] = median_ms(session.run, inputs, 2)
            samples = {key: [] for key in runs}
            keys = list(runs)
            for r in range(rounds):
                for key in keys[r % len(keys):] + keys[:r % len(keys)]:  # rotated
                    start = time.perf_counter()
                    runs[key]()
                    samples[key].append(len(paths) / (time.perf_counter() - start))
        finally:
            for pipeline in pipelines:
                pipeline.close()
            for session in sessions.values():
                session.close()
    return samples, outputs, stages


def check_outputs(what, outputs):
    """Every mode gives the outputs of the serial mode with the same kernel
    threads, bit for bit; 1 and 2 kernel threads agree to rounding."""
    for (name, threads), results in outputs.items():
        for want, got in zip(outputs[("serial", threads)], results):
            for tensor in want:
                if not np.array_equal(want[tensor], got[tensor]):
                    raise SystemExit(f"pipeline: {what}, {name}, {threads} kernel "
                                     f"thread(s): output '{tensor}' differs from serial")
    for one, two in zip(outputs[("serial", 1)], outputs[("serial", 2)]):
        for tensor in one:
            if not np.allclose(one[tensor], two[tensor], rtol=1e-4, atol=1e-4):
                raise SystemExit(f"pipeline: {what}: 1 and 2 kernel threads differ "
                                 f"by {np.abs(one[tensor] - two[tensor]).max()}")
    log(f"{what}: every mode's outputs equal the serial ones, bit for bit")


def stacked(results):
    return np.stack([next(iter(r.values())).reshape(-1) for r in results])


VARIANTS = {
    "compiled": ("decode", lambda path: {"input": decode(path)}),
    "numpy": ("decode + numpy", lambda path: {"input": numpy_preprocess(decode(path))}),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "work-pipeline"))
    parser.add_argument("--models", default="resnet18,mobilenet_v2",
                        help="comma-separated, of resnet18 and mobilenet_v2")
    parser.add_argument("--onnx-dir", help="where NAME.onnx are (default: --work, "
                        "exported there by bench/export_models.py when missing)")
    parser.add_argument("--images", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recompile", action="store_true",
                        help="compile the artifacts even when they are newer than the model")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "pipeline-results.md"))
    args = parser.parse_args()
    models = args.models.split(",")
    if not set(models) <= {"resnet18", "mobilenet_v2"}:
        parser.error(f"--models: {args.models}")
    # The pool is sized when the runtime first needs it: set it before.
    os.environ["TESSEL_NUM_THREADS"] = "2"
    os.makedirs(args.work, exist_ok=True)

    artifacts, compile_commands = {}, []
    for model in models:
        onnx_path = os.path.join(args.onnx_dir or args.work, f"{model}.onnx")
        if not os.path.exists(onnx_path):
            log(f"exporting {model} with /usr/bin/python3 (torch)")
            subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "export_models.py"),
                            os.path.dirname(onnx_path), "--models", model,
                            "--gemm-sizes", "256"], check=True)
        artifacts[model], commands = compile_artifacts(args.build, onnx_path, model,
                                                       args.work, args.recompile)
        compile_commands += commands

    load_start = os.getloadavg()
    results, diffs = {}, {}
    with tempfile.TemporaryDirectory() as images:
        paths = write_jpegs(images, args.images, args.seed)
        for model in models:
            logits = {}
            for variant, model_path in artifacts[model].items():
                log(f"{model}, {variant}: {args.rounds} rounds of {args.images} requests")
                samples, outputs, stages = measure(model_path, VARIANTS[variant][1], paths,
                                                   args.rounds)
                check_outputs(f"{model}, {variant}", outputs)
                results[(model, variant)] = (samples, stages)
                logits[variant] = stacked(outputs[("serial", 1)])
            scale = np.abs(logits["compiled"]).max()
            diffs[model] = (float(np.abs(logits["compiled"] - logits["numpy"]).max()), scale)
            if not np.allclose(logits["compiled"], logits["numpy"], rtol=1e-3,
                               atol=1e-3 * scale):
                raise SystemExit(f"pipeline: {model}: the two artifacts' logits differ "
                                 f"by {diffs[model][0]}")
    load_end = os.getloadavg()

    command = "python3 " + " ".join(
        shlex.quote(a) for a in [os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]])
    lines = [
        "# The pipelined request path: JPEG decoding overlapping the model", "",
        f"`{command}` on {cpu_name()}, {os.cpu_count()} cores; load average "
        f"{load_start[0]:.2f} / {load_start[1]:.2f} (1 / 5 min) at the start, "
        f"{load_end[0]:.2f} / {load_end[1]:.2f} at the end. {args.images} seeded "
        "256x256 JPEGs (quality 90); each request is decoded by Pillow from its file "
        "(and, without `--preprocess`, cropped and normalised by NumPy), then run. "
        "A pool of 2 threads (`TESSEL_NUM_THREADS=2`, set by the script); kernel "
        "threads are the session's `num_threads`. Serial: one request after another "
        "on the calling thread. Pipelined: `tessel.Pipeline(session, preprocess, "
        "depth=2)`, request n+1 preprocessed on the pipeline's worker thread while "
        "request n runs on a stream; 2 streams: `depth=3, streams=2`, the runs of "
        "requests n and n+1 overlapping too. Requests/s over one pass of all the "
        f"images, median (min-max) of {args.rounds} interleaved rounds.", "",
        "Artifacts:", "",
        *[f"    {c}" for c in compile_commands], "",
        "| model | outside the artifact | mode | kernel threads | requests/s "
        "| vs serial, same kernel threads | vs serial, 2 kernel threads |",
        "|---|---|---|---|---|---|---|",
    ]
    for (model, variant), (samples, _) in results.items():
        serial_rate = {t: statistics.median(samples[("serial", t)]) for t in (1, 2)}
        for name, threads, _ in MODES:
            values = samples[(name, threads)]
            rate = statistics.median(values)
            lines.append(f"| {model} | {VARIANTS[variant][0]} | {name} | {threads} | "
                         f"{rate:.1f} ({min(values):.1f}-{max(values):.1f}) | "
                         f"{rate / serial_rate[threads]:.3f}x | "
                         f"{rate / serial_rate[2]:.3f}x |")
    lines += ["", "Stage times alone (median ms per request):", "",
              "| model | outside the artifact | preprocess | run, 1 kernel thread "
              "| run, 2 kernel threads | most pipelining can gain at 1 thread |",
              "|---|---|---|---|---|---|"]
    for (model, variant), (_, stages) in results.items():
        pre, one = stages["preprocess"], stages[1]
        lines.append(f"| {model} | {VARIANTS[variant][0]} | {pre:.2f} | {one:.2f} | "
                     f"{stages[2]:.2f} | {(pre + one) / max(pre, one):.3f}x |")
    lines += ["", "Every mode's outputs equal the serial mode's with the same kernel "
              "threads, bit for bit (checked on every image). The logits of the "
              "`--preprocess` artifact and of NumPy preprocessing plus the plain "
              "artifact differ by at most " + ", ".join(
                  f"{diff:.1e} ({model}, logits up to {scale:.2f})"
                  for model, (diff, scale) in diffs.items()) + "."]
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
