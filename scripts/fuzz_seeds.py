"""Writes the seed corpora of the libFuzzer harnesses (fuzz/), one directory
per harness under OUT_DIR:

    onnx-import/   the ONNX backend suites' models (Debian's libonnx-testdata,
                   up to 128 KiB each) and test/robustness/seeds
    tensor-proto/  the node tests' test_data_set_0 tensors (distinct ones)
    npy/           .npy files of every dtype the reader takes, numpy-written
    artifact/      sealed fixture artifacts and a compiled example (mode 0),
                   their unsealed images (mode 1), descriptor bytes (mode 2)

usage: python3 scripts/fuzz_seeds.py BUILD_DIR OUT_DIR
Deterministic: the same inputs give the same seeds.
"""

import hashlib
import io
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

SUITE_ROOT = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "simple", "pytorch-converted", "pytorch-operator")
MAX_MODEL = 128 * 1024
MAX_TENSOR = 64 * 1024
SEAL_SIZE = 32


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def onnx_seeds(repo, out):
    count = 0
    for suite in SUITES:
        base = os.path.join(SUITE_ROOT, suite)
        if not os.path.isdir(base):
            continue
        for test in sorted(os.listdir(base)):
            model = os.path.join(base, test, "model.onnx")
            if os.path.isfile(model) and os.path.getsize(model) <= MAX_MODEL:
                with open(model, "rb") as f:
                    write(out, f"{suite}-{test}.onnx", f.read())
                count += 1
    seeds = os.path.join(repo, "test", "robustness", "seeds")
    if os.path.isdir(seeds):
        for name in sorted(os.listdir(seeds)):
            if name.endswith(".onnx"):
                with open(os.path.join(seeds, name), "rb") as f:
                    write(out, name, f.read())
                count += 1
    return count


def tensor_proto_seeds(out):
    seen = set()
    base = os.path.join(SUITE_ROOT, "node")
    for test in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        data_set = os.path.join(base, test, "test_data_set_0")
        if not os.path.isdir(data_set):
            continue
        for name in sorted(os.listdir(data_set)):
            path = os.path.join(data_set, name)
            if not name.endswith(".pb") or os.path.getsize(path) > MAX_TENSOR:
                continue
            with open(path, "rb") as f:
                data = f.read()
            digest = hashlib.sha1(data).hexdigest()
            if digest not in seen:
                seen.add(digest)
                write(out, f"{digest[:16]}.pb", data)
    return len(seen)


def npy_seeds(out):
    rng = np.random.default_rng(1)
    dtypes = ["<f4", "<f8", "<f2", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4",
              "<i8", "<u8", "|b1", ">f4", ">i8"]
    shapes = [(), (0,), (3,), (2, 3), (1, 2, 3, 4), (2, 0, 3)]
    count = 0
    for dtype in dtypes:
        for shape in shapes:
            array = (rng.standard_normal(shape) * 10).astype(dtype)
            for order, version in (("C", (1, 0)), ("F", (1, 0)), ("C", (2, 0))):
                buffer = io.BytesIO()
                data = np.asfortranarray(array) if order == "F" else array
                np.lib.format.write_array(buffer, data, version=version)
                name = (f"{dtype.replace('<', 'le').replace('>', 'be').replace('|', '')}"
                        f"-{'x'.join(map(str, shape)) or 'scalar'}-{order}-v{version[0]}.npy")
                write(out, name, buffer.getvalue())
                count += 1
    return count


def artifact_seeds(repo, build, out):
    images = []
    fixtures = os.path.join(build, "unittests", "runtime", "fixtures")
    for name in sorted(os.listdir(fixtures)) if os.path.isdir(fixtures) else []:
        if name.endswith(".so"):
            with open(os.path.join(fixtures, name), "rb") as f:
                images.append((name, f.read()))
    compiler = os.path.join(build, "bin", "tessel-compile")
    example = os.path.join(repo, "examples", "tiny_cnn", "model.onnx")
    if os.access(compiler, os.X_OK) and os.path.isfile(example):
        with tempfile.TemporaryDirectory() as work:
            target = os.path.join(work, "tiny_cnn.so")
            subprocess.run([compiler, example, "-o", target], check=True)
            with open(target, "rb") as f:
                images.append(("tiny_cnn.so", f.read()))
    count = 0
    for name, data in images:
        write(out, f"sealed-{name}", b"\0" + data)
        if data[-SEAL_SIZE:-SEAL_SIZE + 8] == b"TSLSEAL1":
            write(out, f"image-{name}", b"\1" + data[:-SEAL_SIZE])
        count += 2
    rng = random.Random(1)
    for i in range(32):
        write(out, f"descriptor-{i:02d}",
              b"\2" + bytes(rng.randrange(256) for _ in range(rng.randrange(16, 512))))
        count += 1
    return count


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, out = (os.path.abspath(a) for a in sys.argv[1:])
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    counts = {
        "onnx-import": onnx_seeds(repo, os.path.join(out, "onnx-import")),
        "tensor-proto": tensor_proto_seeds(os.path.join(out, "tensor-proto")),
        "npy": npy_seeds(os.path.join(out, "npy")),
        "artifact": artifact_seeds(repo, build, os.path.join(out, "artifact")),
    }
    print("fuzz seeds: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
