"""The >2 GB model check (issue "Production", large models): writes a model
of stacked MatMuls whose weights (over 2 GB) are ONNX external data,
compiles it with tessel-compile (the weights go to OUT.weights beside the
artifact, past the 1 GiB default threshold), runs it with tessel-run, checks
the output against numpy, and prints each step's peak resident memory (from
wait4's ru_maxrss) beside the weights' size.

    python3 scripts/large_model_check.py WORK_DIR [--build build] [--layers 9]

Needs about 3x the weights' size of free disk (the data, the weights file)
and, for the compile, about 2.5x of memory. Takes a few minutes.
"""

import argparse
import os
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_model(work, layers, wide=16384, narrow=4096):
    """x[1, narrow] through `layers` MatMuls alternating narrow->wide and
    wide->narrow, weights in weights.bin; returns the path, the input and the
    weights' bytes."""
    rng = np.random.default_rng(0)
    data = os.path.join(work, "weights.bin")
    inits, nodes, prev, offset = [], [], "x", 0
    x = rng.standard_normal((1, narrow)).astype(np.float32)
    reference = x.astype(np.float64)
    with open(data, "wb") as f:
        for i in range(layers):
            n_in, n_out = (narrow, wide) if i % 2 == 0 else (wide, narrow)
            w = rng.standard_normal((n_in, n_out), dtype=np.float32) / np.float32(np.sqrt(n_in))
            f.write(w.tobytes())
            reference = reference @ w.astype(np.float64)
            tensor = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT,
                                 dims=[n_in, n_out], data_location=TensorProto.EXTERNAL)
            for key, value in (("location", "weights.bin"), ("offset", str(offset)),
                               ("length", str(w.nbytes))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
            offset += w.nbytes
            inits.append(tensor)
            out = "y" if i == layers - 1 else f"h{i}"
            nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [out], name=f"matmul{i}"))
            prev = out
            del w
    graph = helper.make_graph(
        nodes, "stacked_matmuls",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, narrow])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, wide if layers % 2 else narrow])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(work, "large.onnx")
    onnx.save(model, path)
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "expected.npy"), reference.astype(np.float32))
    return path, offset


def run(cmd):
    """Runs `cmd`; returns (seconds, its peak RSS in bytes, its output)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, out.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
        out.seek(0)
        text = out.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)} failed:\n{text}")
    return time.perf_counter() - start, usage.ru_maxrss * 1024, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("work")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--layers", type=int, default=9)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model, weights = write_model(args.work, args.layers)
    print(f"model: {model}, {args.layers} MatMuls, {weights} bytes of external data "
          f"({weights / 2**30:.2f} GiB)")
    artifact = os.path.join(args.work, "large.so")
    for name, cmd in (
            ("tessel-compile", [os.path.join(args.build, "bin", "tessel-compile"), model,
                                "-o", artifact, "--report", artifact + ".json"]),
            ("tessel-run", [os.path.join(args.build, "bin", "tessel-run"), artifact,
                            "--input", os.path.join(args.work, "x.npy"),
                            "--expected", os.path.join(args.work, "expected.npy"),
                            "--rtol", "1e-3", "--atol", "1e-3", "--quiet"])):
        seconds, peak, out = run(cmd)
        print(f"{name}: {seconds:.1f} s, peak RSS {peak / 2**30:.2f} GiB = "
              f"{peak / weights:.2f}x the weights")
        if out.strip():
            print("  " + out.strip().replace("\n", "\n  "))
    sizes = {f: os.path.getsize(os.path.join(args.work, f))
             for f in ("large.so", "large.so.weights")}
    print(f"artifact: large.so {sizes['large.so']} bytes, large.so.weights "
          f"{sizes['large.so.weights']} bytes")


if __name__ == "__main__":
    main()
