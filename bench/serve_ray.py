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

Then tiny_cnn compiled at batch 1 and batch 4, served one sample per
request through tessel.serve's scheduler path (``application([b1, b4])``:
a ``tessel.Scheduler`` per replica, no ``@serve.batch``); its direct figure
is ``--clients`` threads calling ``Scheduler.run`` in a closed loop on one
scheduler (one-thread kernels, one batch per core at once, max batch 8,
2 ms window). The row after it puts ``@serve.batch`` (8 within 2 ms) in
front of the same scheduler (window 0: the batch it is handed runs at once),
the alternative tessel.serve does not take.

The last row is Serve alone: the same clients and replicas, each replica
batching as tessel.serve does and returning its inputs without running
anything, the ceiling Serve's own per-request cost sets on this machine.
Each figure is the requests completed in ``--seconds`` after a 1 s warm-up;
Serve's answers are checked equal to direct runs first. The clients, Ray's
router and the replicas share the machine's cores. Prints a table; about a
minute on 2 cores. Usage:

    python3 bench/serve_ray.py [--build build] [--seconds 5] [--clients 32]
                               [--replicas N] [--rows mlp,tiny_cnn,...]
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


@serve.deployment(ray_actor_options={
    "num_cpus": 1, "runtime_env": {"env_vars": {"TESSEL_NUM_THREADS": "1"}}},
    max_ongoing_requests=16)
class BatchedScheduler:
    """tessel.serve's scheduler path with @serve.batch in front: each batch's
    samples are submitted together to a scheduler that batches at once."""

    def __init__(self, paths):
        self.scheduler = tessel.Scheduler(paths, max_batch=8, window_us=0, num_threads=1)

    async def __call__(self, inputs):
        return await self._batch(inputs)

    @serve.batch(max_batch_size=8, batch_wait_timeout_s=0.002)
    async def _batch(self, requests):
        return await asyncio.gather(*[asyncio.wrap_future(self.scheduler.submit(inputs))
                                      for inputs in requests])


def closed_loop_rate(call, clients, seconds):
    """Requests/s of ``clients`` threads calling ``call()`` in a closed loop."""
    counts = [0] * clients
    start = threading.Barrier(clients + 1)
    measuring = threading.Event()
    stop = threading.Event()

    def client(index):
        start.wait()
        while not stop.is_set():
            call()
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


def direct_rate(path, inputs, clients, seconds):
    """Requests/s of ``clients`` threads calling run in a closed loop."""
    with tessel.load(path) as model, model.session(num_threads=1) as session:
        return closed_loop_rate(lambda: session.run(inputs), clients, seconds)


def scheduler_rate(paths, inputs, clients, seconds):
    """Requests/s and mean batch of ``clients`` threads calling
    Scheduler.run in a closed loop."""
    with tessel.Scheduler(paths, max_batch=8, num_threads=1,
                          max_concurrent_batches=os.cpu_count()) as scheduler:
        rate = closed_loop_rate(lambda: scheduler.run(inputs), clients, seconds)
        return rate, scheduler.stats().mean_batch


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


async def serve_checked_rate(handle, inputs, expected, args):
    """serve_rate after checking one answer against ``expected``."""
    answer = await handle.remote(inputs)
    for output, want in expected.items():
        np.testing.assert_array_equal(answer[output], want)
    return await serve_rate(handle, inputs, args.clients, args.seconds)


def measure(args, work):
    """The table's rows, with the artifacts compiled into ``work``."""
    cores = os.cpu_count()
    subprocess.run([sys.executable, os.path.join(ROOT, "test", "Inputs", "models.py"),
                    "mlp", "--out", work], check=True, capture_output=True)
    cnn = os.path.join(ROOT, "examples", "tiny_cnn", "model.onnx")
    models = {
        "mlp": tessel.compile(os.path.join(work, "mlp.onnx"),
                              os.path.join(work, "mlp.so")),
        "tiny_cnn": tessel.compile(cnn, os.path.join(work, "tiny_cnn.so")),
    }
    batched = [models["tiny_cnn"],
               tessel.compile(cnn, os.path.join(work, "tiny_cnn_b4.so"),
                              input_shapes={"image": (4, 1, 28, 28)})]
    models = {name: path for name, path in models.items() if name in args.rows}

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
        inputs = {"image": np.random.default_rng(0).standard_normal(
            (1, 1, 28, 28)).astype(np.float32)}
        with tessel.load(batched[0]) as model, model.session() as session:
            expected = session.run(inputs)
        if {"scheduler", "scheduler+batch"} & set(args.rows):
            log(f"tiny_cnn b1+b4: direct Scheduler.run, {args.clients} threads")
            direct, mean = scheduler_rate(batched, inputs, args.clients, args.seconds)
            log(f"  mean batch {mean:.2f}")
        if "scheduler" in args.rows:
            log(f"tiny_cnn b1+b4: serve, scheduler path, {args.replicas} replicas")
            handle = serve.run(tessel.serve.application(
                batched, name="tiny_cnn_b1_b4", num_threads=1, min_replicas=args.replicas,
                max_replicas=args.replicas), name="tiny_cnn_b1_b4", route_prefix=None)
            served = asyncio.run(serve_checked_rate(handle, inputs, expected, args))
            log(f"  mean batch {handle.stats.remote().result()['mean_batch']:.2f}")
            serve.delete("tiny_cnn_b1_b4")
            rows.append(f"{'b1+b4 sched':11} {direct:13.0f} {served:12.0f} "
                        f"{served / direct:13.4f}")
        if "scheduler+batch" in args.rows:
            log(f"tiny_cnn b1+b4: serve, @serve.batch + scheduler, {args.replicas} replicas")
            handle = serve.run(BatchedScheduler.options(num_replicas=args.replicas)
                               .bind(batched), name="batched", route_prefix=None)
            served = asyncio.run(serve_checked_rate(handle, inputs, expected, args))
            serve.delete("batched")
            rows.append(f"{'  +batch':11} {direct:13.0f} {served:12.0f} "
                        f"{served / direct:13.4f}")
        if "echo" in args.rows:
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
    parser.add_argument("--rows", default="mlp,tiny_cnn,scheduler,scheduler+batch,echo",
                        help="which rows, comma-separated (default: all)")
    args = parser.parse_args()
    args.rows = args.rows.split(",")
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
    print(f"b1+b4 sched: tiny_cnn at batch 1 and 4, one sample per request; direct: "
          f"{args.clients} threads x Scheduler.run; +batch: @serve.batch in front")
    print(f"{'model':11} {'direct req/s':>13} {'serve req/s':>12} {'serve/direct':>13}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
