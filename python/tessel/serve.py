"""Serving a compiled artifact on Ray Serve (``pip install "ray[serve]"``).

    from ray import serve
    import tessel.serve

    serve.start(proxy_location="Disabled")  # handles only, no HTTP proxy
    handle = serve.run(tessel.serve.application("/models/mlp.so", num_threads=2),
                       name="mlp", route_prefix=None)
    outputs = handle.remote({"x": x}).result()  # {"logits": array}
    outputs = handle.remote(x).result()  # a one-input model's array alone

docs/serving.md has the details: one machine, a cluster, numbers.

Each replica loads the artifact once, in its constructor, and makes one
session and ``num_threads`` streams. A request is what ``Session.run`` takes
(``{name: array}`` or a list in input order), or a single array for a model
with one input; its outputs come back as ``{name: array}``. A request the
session refuses (an unknown or missing input, a wrong shape or dtype) raises
that ``TesselError`` at the caller, naming the input and what was expected;
the other requests of its batch are not affected.

Batching path. Serve's ``@serve.batch`` collects up to ``max_batch_size``
requests (waiting at most ``batch_wait_timeout_s`` for more), and the replica
queues each request of the batch with ``Session.run_async`` on its streams,
round-robin, so that runs overlap on the runtime's thread pool while the
replica's event loop stays free. Requests are not stacked into a larger
batch dimension: the runtime's batching scheduler (``tessel/scheduler.h``),
which does that with one artifact per batch size, has no Python binding, and
stacking here would duplicate it. A request therefore has the artifact's own
input shapes, leading dimension included. On small models this costs nothing
measurable: Serve's own cost per request is a thousand times a run's, and a
replica that runs nothing serves as many requests (bench/serve_ray.py).

Thread budget. A replica reserves ``num_threads`` CPUs from Ray
(``ray_actor_options["num_cpus"]``), so that Ray places no more replicas on a
node than it has cores, and its process runs the runtime's pool with that
many threads (``TESSEL_NUM_THREADS``, set through the replica's
``runtime_env``) and a session of that budget: however many streams run at
once, a replica keeps at most ``num_threads`` cores busy.

The artifact path is read by every replica, on whichever node Ray places it:
on a cluster it must name the same file on every node (a shared file system,
or the file copied to the same path). An artifact is native code: serve only
artifacts you trust (docs/security.md).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Optional

import numpy as np
from ray import serve

from . import _ext
from ._errors import INVALID_ARGUMENT, TesselError
from ._runtime import load
from ._streams import Stream


class Replica:
    """One replica of an artifact's deployment (see the module docstring);
    ``application`` makes the deployment."""

    def __init__(self, artifact: str, num_threads: int, max_batch_size: int,
                 batch_wait_timeout_s: float) -> None:
        with load(artifact) as model:
            self._inputs = model.inputs
            self._outputs = model.outputs
            self._session = model.session(num_threads=num_threads)
        self._streams = [Stream() for _ in range(num_threads)]
        # The decorator's values are per class; these are this deployment's.
        self._run_batch.set_max_batch_size(max_batch_size)
        self._run_batch.set_batch_wait_timeout_s(batch_wait_timeout_s)

    async def __call__(self, inputs) -> dict[str, np.ndarray]:
        """The outputs of one request; raises the session's TesselError for
        inputs it refuses."""
        if isinstance(inputs, np.ndarray):
            if len(self._inputs) != 1:
                raise TesselError(
                    INVALID_ARGUMENT,
                    f"the model has {len(self._inputs)} inputs ("
                    + ", ".join(f"'{tensor.name}'" for tensor in self._inputs)
                    + "): send a dict of arrays by name, not one array")
            inputs = {self._inputs[0].name: inputs}
        result = await self._run_batch(inputs)
        if isinstance(result, BaseException):
            raise result
        return result

    def describe(self) -> dict[str, Any]:
        """The model's ``inputs`` and ``outputs`` (TensorInfo lists) and the
        replica's thread budget: ``num_threads`` (the session's) and
        ``runtime_threads`` (its process's pool)."""
        return {"inputs": self._inputs, "outputs": self._outputs,
                "num_threads": self._session.num_threads,
                "runtime_threads": _ext.module().runtime_num_threads()}

    # Serve's batching; application() sets this deployment's batch size and
    # wait in the constructor.
    @serve.batch
    async def _run_batch(self, requests: list) -> list:
        """Queues each request on the streams, round-robin, and returns each
        one's outputs, or its exception (refused inputs, a failed run) for
        __call__ to raise at that caller alone."""
        loop = asyncio.get_running_loop()
        runs = []
        for index, inputs in enumerate(requests):
            try:
                run = asyncio.wrap_future(self._session.run_async(
                    inputs, self._streams[index % len(self._streams)]), loop=loop)
            except Exception as error:  # refused at once: nothing was queued
                run = loop.create_future()
                run.set_exception(error)
            runs.append(run)
        return await asyncio.gather(*runs, return_exceptions=True)

    def __del__(self) -> None:
        # Serve calls this when it stops the replica: wait for queued runs.
        # (A constructor that failed may have made neither.)
        for stream in getattr(self, "_streams", ()):
            stream.close()
        if hasattr(self, "_session"):
            self._session.close()


def application(artifact: str | os.PathLike, *, name: Optional[str] = None,
                num_threads: int = 1, max_batch_size: int = 8,
                batch_wait_timeout_s: float = 0.002, min_replicas: int = 1,
                max_replicas: int = 4,
                target_ongoing_requests: Optional[float] = None,
                max_ongoing_requests: Optional[int] = None) -> serve.Application:
    """A Ray Serve application serving the artifact at ``artifact``: pass it
    to ``serve.run``.

    ``name`` is the deployment's (default: the artifact's file name without
    its suffix). Each replica gets ``num_threads`` CPUs and runtime threads.
    ``max_batch_size`` and ``batch_wait_timeout_s`` are ``@serve.batch``'s
    (the default wait, 2 ms, is the runtime scheduler's default window).
    Replicas scale between ``min_replicas`` and ``max_replicas`` to keep
    about ``target_ongoing_requests`` (default: ``max_batch_size``, one full
    batch) requests on each; a replica takes at most ``max_ongoing_requests``
    at once (default: twice ``max_batch_size``, a batch running and the next
    one filling), Serve queues the rest.
    """
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) \
            or num_threads < 1:
        raise TesselError(INVALID_ARGUMENT,
                          f"num_threads must be an int >= 1, not {num_threads!r}")
    path = os.path.abspath(os.fspath(artifact))
    deployment = serve.deployment(
        Replica,
        name=name or os.path.splitext(os.path.basename(path))[0],
        ray_actor_options={
            "num_cpus": num_threads,
            # Read once, when the process's runtime starts its pool.
            "runtime_env": {"env_vars": {"TESSEL_NUM_THREADS": str(num_threads)}},
        },
        max_ongoing_requests=max_ongoing_requests or 2 * max_batch_size,
        autoscaling_config={
            "min_replicas": min_replicas,
            "max_replicas": max_replicas,
            "target_ongoing_requests": target_ongoing_requests or max_batch_size,
        })
    return deployment.bind(path, num_threads, max_batch_size, batch_wait_timeout_s)
