"""Requests per second through Ray Serve (tessel.serve) beside direct calls.

Compiles test/Inputs/models.py's MLP (float32[4,64] per request) and
examples/tiny_cnn (float32[1,1,28,28]), then for each model measures, in
this one process on this one machine:

  * direct: one client thread per core calling ``Session.run`` in a closed
    loop on one session of 1-thread kernels (the best direct throughput on
    few cores: runs in parallel, one per core);
  * serve: ``--clients`` closed-loop asyncio clients awaiting
    ``handle.remote(inputs)`` on a local Ray instance (loopback only, no HTTP
    proxy) serving the artifact with tessel.serve: ``--replicas`` replicas
    (default one per core), each ``num_threads=1``, ``@serve.batch`` up to 8
    within 2 ms (the defaults).

The last row is Serve alone: the same clients and replicas, each replica
batching as tessel.serve does and returning its inputs without running
anything, the ceiling Serve's own per-request cost sets on this machine.
Each figure is the requests completed in ``--seconds`` after a 1 s warm-up;
Serve's answers are checked equal to direct runs first. The clients, Ray's
router and the replicas share the machine's cores. Prints a table; about a
minute on 2 cores. Usage:

    python3 bench/serve_ray.py [--build build] [--seconds 5] [--clients 32]
                               [--replicas N]
"""

import argparse
import asyncio
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
# Loopback only, and a token of this run's own (see python/tests/test_serve.py).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
import ray  # noqa: E402
from ray import serve  # noqa: E402

import tessel  # noqa: E402
import tessel.serve  # noqa: E402


def log(*args):
    print("serve_ray:", *args, file=sys.stderr, flush=True)


def cpu_name():
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return next((line.split(":", 1)[1].strip() for line in out.splitlines()
                 if line.startswith("Model name")), "unknown")


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=16)
class Echo:
    """A replica that batches as tessel.serve's does and runs nothing."""

    async def __call__(self, inputs):
        return await self._batch(inputs)

    @serve.batch(max_batch_size=8, batch_wait_timeout_s=0.002)
    async def _batch(self, requests):
        return requests


def direct_rate(path, inputs, clients, seconds):
    """Requests/s of ``clients`` threads calling run in a closed loop."""
    with tessel.load(path) as model, model.session(num_threads=1) as session:
        counts = [0] * clients
        start = threading.Barrier(clients + 1)
        measuring = threading.Event()
        stop = threading.Event()

        def client(index):
            start.wait()
            while not stop.is_set():
                session.run(inputs)
                if measuring.is_set():
                    counts[index] += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        start.wait()
        time.sleep(1)  # warm-up
        measuring.set()
        began = time.perf_counter()
        time.sleep(seconds)
        stop.set()
        elapsed = time.perf_counter() - began
        for thread in threads:
            thread.join()
    return sum(counts) / elapsed


async def serve_rate(handle, inputs, clients, seconds):
    """Requests/s of ``clients`` asyncio clients, each awaiting its answer
    before sending the next request."""
    count = 0
    measuring = False
    stop = False

    async def client():
        nonlocal count
        while not stop:
            await handle.remote(inputs)
            if measuring:
                count += 1

    tasks = [asyncio.create_task(client()) for _ in range(clients)]
    await asyncio.sleep(1)  # warm-up
    measuring = True
    began = time.perf_counter()
    await asyncio.sleep(seconds)
    stop = True
    elapsed = time.perf_counter() - began
    await asyncio.gather(*tasks)
    return count / elapsed


def measure(args, work):
    """The table's rows, with the artifacts compiled into ``work``."""
    cores = os.cpu_count()
    subprocess.run([sys.executable, os.path.join(ROOT, "test", "Inputs", "models.py"),
                    "mlp", "--out", work], check=True, capture_output=True)
    models = {
        "mlp": tessel.compile(os.path.join(work, "mlp.onnx"),
                              os.path.join(work, "mlp.so")),
        "tiny_cnn": tessel.compile(os.path.join(ROOT, "examples", "tiny_cnn", "model.onnx"),
                                   os.path.join(work, "tiny_cnn.so")),
    }

    ray.init(address="local", num_cpus=cores, include_dashboard=False,
             _node_ip_address="127.0.0.1", log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.path.join(ROOT, "python"),
                                       "TESSEL_BUILD_DIR": os.environ["TESSEL_BUILD_DIR"]}})
    rows = []
    try:
        serve.start(proxy_location="Disabled")
        for name, path in models.items():
            with tessel.load(path) as model, model.session() as session:
                rng = np.random.default_rng(0)
                inputs = {t.name: rng.standard_normal(t.shape).astype(t.dtype)
                          for t in model.inputs}
                expected = session.run(inputs)
            log(f"{name}: direct, {cores} threads")
            direct = direct_rate(path, inputs, cores, args.seconds)
            log(f"{name}: serve, {args.replicas} replicas, {args.clients} clients")
            handle = serve.run(tessel.serve.application(
                path, name=name, num_threads=1, min_replicas=args.replicas,
                max_replicas=args.replicas), name=name, route_prefix=None)
            answer = handle.remote(inputs).result(timeout_s=60)
            for output, want in expected.items():
                np.testing.assert_array_equal(answer[output], want)
            served = asyncio.run(serve_rate(handle, inputs, args.clients, args.seconds))
            serve.delete(name)
            rows.append(f"{name:11} {direct:13.0f} {served:12.0f} {served / direct:13.4f}")
        log(f"serve alone, {args.replicas} replicas, {args.clients} clients")
        handle = serve.run(Echo.options(num_replicas=args.replicas).bind(),
                           name="echo", route_prefix=None)
        handle.remote(inputs).result(timeout_s=60)  # tiny_cnn's inputs
        served = asyncio.run(serve_rate(handle, inputs, args.clients, args.seconds))
        rows.append(f"{'serve alone':11} {'-':>13} {served:12.0f} {'-':>13}")
    finally:
        serve.shutdown()
        ray.shutdown()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--replicas", type=int, default=os.cpu_count())
    args = parser.parse_args()
    os.environ["TESSEL_BUILD_DIR"] = os.path.abspath(args.build)
    cores = os.cpu_count()
    # The router's warnings when probing a busy replica's queue takes over
    # 0.1 s, which it does whenever the clients and replicas fill the cores.
    logging.getLogger("ray.serve").setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory(prefix="serve_ray-") as work:
        rows = measure(args, work)

    print(f"CPU: {cpu_name()}, {cores} cores; tessel {tessel.runtime_version()}, "
          f"ray {ray.__version__}; {args.seconds:g} s per figure")
    print(f"direct: {cores} threads x Session.run (1-thread kernels); serve: "
          f"{args.replicas} replicas x num_threads=1, {args.clients} asyncio clients, "
          "handles")
    print(f"{'model':11} {'direct req/s':>13} {'serve req/s':>12} {'serve/direct':>13}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
